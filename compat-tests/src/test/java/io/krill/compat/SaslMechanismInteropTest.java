package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.sasl.PlainClientMechanism;
import io.krill.broker.security.sasl.PlainServerMechanism;
import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.broker.security.sasl.ScramClientMechanism;
import io.krill.broker.security.sasl.ScramServerMechanism;
import io.krill.broker.security.scram.ScramCredential;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.junit.jupiter.api.Test;

/**
 * Krill's SASL mechanisms against the Java client's own SCRAM implementation (kafka-clients 4.4's SaslClient and
 * SaslServer, the code a stock client and broker run), message for message, without a network: Kafka's client
 * authenticates to Krill's server and Krill's client (the inter-broker one) to Kafka's server. PLAIN's one
 * message is checked against the bytes Kafka's PLAIN client sends.
 */
class SaslMechanismInteropTest {
    private static CallbackHandler clientCallbacks(String user, String password) {
        return callbacks -> {
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    name.setName(user);
                } else if (callback instanceof PasswordCallback pw) {
                    pw.setPassword(password.toCharArray());
                } else if (!(callback instanceof ScramExtensionsCallback)) {
                    throw new javax.security.auth.callback.UnsupportedCallbackException(callback);
                }
            }
        };
    }

    private static org.apache.kafka.common.security.scram.internals.ScramMechanism kafkaMechanism(ScramMechanism m) {
        return org.apache.kafka.common.security.scram.internals.ScramMechanism.forMechanismName(m.mechanismName());
    }

    @Test
    void kafkaScramClientAuthenticatesToKrillServer() throws Exception {
        for (ScramMechanism m : ScramMechanism.values()) {
            ScramCredential stored = new ScramFormatter(m).credential("alice-secret", 4096);
            ScramServerMechanism server = new ScramServerMechanism(m,
                    user -> user.equals("alice") ? Optional.of(stored) : Optional.empty());
            SaslClient client = new ScramSaslClient(kafkaMechanism(m), clientCallbacks("alice", "alice-secret"));
            byte[] clientFirst = client.evaluateChallenge(new byte[0]);
            byte[] clientFinal = client.evaluateChallenge(server.evaluateResponse(clientFirst));
            client.evaluateChallenge(server.evaluateResponse(clientFinal));
            assertTrue(client.isComplete(), m.mechanismName());
            assertTrue(server.isComplete());
            assertEquals("alice", server.principal().name());

            // a wrong password is refused with Kafka's generic wording
            ScramServerMechanism refusing = new ScramServerMechanism(m, user -> Optional.of(stored));
            SaslClient wrong = new ScramSaslClient(kafkaMechanism(m), clientCallbacks("alice", "nope"));
            byte[] wrongFinal = wrong.evaluateChallenge(refusing.evaluateResponse(wrong.evaluateChallenge(new byte[0])));
            SaslAuthenticationException e = assertThrows(SaslAuthenticationException.class,
                    () -> refusing.evaluateResponse(wrongFinal));
            assertEquals("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                    + m.mechanismName(), e.getMessage());
        }
    }

    @Test
    void krillScramClientAuthenticatesToKafkaServer() throws Exception {
        for (ScramMechanism m : ScramMechanism.values()) {
            ScramCredential stored = new ScramFormatter(m).credential("broker-secret", 8192);
            CallbackHandler serverCallbacks = callbacks -> {
                String user = null;
                for (Callback callback : callbacks) {
                    if (callback instanceof NameCallback name) {
                        user = name.getDefaultName();
                    } else if (callback instanceof ScramCredentialCallback credential && "broker".equals(user)) {
                        credential.scramCredential(new org.apache.kafka.common.security.scram.ScramCredential(
                                stored.salt(), stored.storedKey(), stored.serverKey(), stored.iterations()));
                    }
                }
            };
            SaslServer server = new ScramSaslServer(kafkaMechanism(m), Map.of(), serverCallbacks);
            ScramClientMechanism client = new ScramClientMechanism(m, "broker", "broker-secret");
            byte[] serverFinal = server.evaluateResponse(client.evaluateChallenge(
                    server.evaluateResponse(client.initialResponse())));
            assertNull(client.evaluateChallenge(serverFinal));
            assertTrue(client.isComplete());
            assertTrue(server.isComplete());
            assertEquals("broker", server.getAuthorizationID());

            SaslServer refusing = new ScramSaslServer(kafkaMechanism(m), Map.of(), serverCallbacks);
            ScramClientMechanism wrong = new ScramClientMechanism(m, "broker", "nope");
            byte[] wrongFinal = wrong.evaluateChallenge(refusing.evaluateResponse(wrong.initialResponse()));
            assertThrows(SaslException.class, () -> refusing.evaluateResponse(wrongFinal));
        }
    }

    @Test
    void plainMessageMatchesTheJdkClientKafkaUses() throws Exception {
        // Kafka's PlainLoginModule leaves the PLAIN client to the JDK's SASL provider.
        SaslClient jdkPlain = javax.security.sasl.Sasl.createSaslClient(new String[] {"PLAIN"}, null, "kafka",
                "localhost", Map.of(), clientCallbacks("alice", "alice-secret"));
        byte[] jdkToken = jdkPlain.evaluateChallenge(new byte[0]);
        byte[] krillToken = new PlainClientMechanism("alice", "alice-secret").initialResponse();
        assertEquals(new String(jdkToken, StandardCharsets.UTF_8), new String(krillToken, StandardCharsets.UTF_8));
        PlainServerMechanism server = new PlainServerMechanism(Map.of("alice", "alice-secret"));
        server.evaluateResponse(jdkToken);
        assertEquals("alice", server.principal().name());
        assertFalse(new PlainServerMechanism(Map.of()).isComplete());
    }
}
