package io.krill.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.controller.metadata.MetadataImage;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SaslMechanismsTest {
    static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

    static BrokerConfig config(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("log.dirs", "/tmp/unused");
        props.put("listeners", "SASL_PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:9093");
        props.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,INTERNAL:SASL_PLAINTEXT");
        props.put("inter.broker.listener.name", "INTERNAL");
        props.putAll(extra);
        return BrokerConfig.from(props);
    }

    private static SaslMechanisms mechanisms(Map<String, String> extra) {
        return new SaslMechanisms(config(extra), () -> (MetadataImage) null);
    }

    @Test
    void enabledMechanismsComeFromListenerOverrideElseGlobalAndSkipUnimplemented() {
        SaslMechanisms m = mechanisms(Map.of("sasl.enabled.mechanisms", "GSSAPI,PLAIN",
                "listener.name.internal.sasl.enabled.mechanisms", "PLAIN"));
        assertEquals(List.of("PLAIN"), m.enabled("SASL_PLAINTEXT"));
        assertEquals(List.of("GSSAPI", "PLAIN"), m.configuredMechanisms("SASL_PLAINTEXT"));
        assertEquals(List.of("PLAIN"), m.enabled("INTERNAL"));
        assertEquals(List.of(), mechanisms(Map.of()).enabled("SASL_PLAINTEXT"));
        ConfigException e = assertThrows(ConfigException.class, () -> m.checkListener("SASL_PLAINTEXT"));
        assertTrue(e.getMessage().contains("GSSAPI"), e.getMessage());
    }

    @Test
    void plainUsesTheListenerMechanismJaasConfig() throws Exception {
        SaslMechanisms m = mechanisms(Map.of("sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS));
        m.checkListener("SASL_PLAINTEXT");
        SaslServerMechanism server = m.create("SASL_PLAINTEXT", "PLAIN");
        server.evaluateResponse("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8));
        assertEquals("alice", server.principal().name());
        assertThrows(IllegalArgumentException.class, () -> m.create("SASL_PLAINTEXT", "GSSAPI"));
        ConfigException e = assertThrows(ConfigException.class, () -> m.checkListener("INTERNAL"));
        assertTrue(e.getMessage().contains("listener.name.internal.plain.sasl.jaas.config"), e.getMessage());
    }

    @Test
    void globalJaasConfigIsTheFallback() throws Exception {
        SaslMechanisms m = mechanisms(Map.of("sasl.enabled.mechanisms", "PLAIN", "sasl.jaas.config", PLAIN_JAAS,
                "sasl.mechanism.inter.broker.protocol", "PLAIN"));
        m.checkListener("INTERNAL");
        SaslClientMechanism client = m.interBrokerClient("INTERNAL");
        assertEquals("PLAIN", client.mechanismName());
        SaslServerMechanism server = m.create("INTERNAL", "PLAIN");
        server.evaluateResponse(client.initialResponse());
        assertEquals("admin", server.principal().name());
    }

    @Test
    void malformedJaasConfigIsAConfigError() {
        SaslMechanisms m = mechanisms(Map.of("sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", "x.Y required user_a=\"s3cret"));
        ConfigException e = assertThrows(ConfigException.class, () -> m.create("SASL_PLAINTEXT", "PLAIN"));
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
    }

    @Test
    void interBrokerMechanismMustBeImplemented() {
        ConfigException e = assertThrows(ConfigException.class, () -> mechanisms(Map.of()).interBrokerClient("INTERNAL"));
        assertTrue(e.getMessage().contains("GSSAPI"), e.getMessage());
    }

    @Test
    void mechanismJaasKeyIsNotAnUnknownKey() {
        assertTrue(config(Map.of("listener.name.internal.scram-sha-256.sasl.jaas.config", "x.Y required;"))
                .unknownKeys().isEmpty());
    }

    @Test
    void scramReadsCredentialsFromTheImageAndNeedsNoServerJaas() throws Exception {
        ScramFormatter f = new ScramFormatter(ScramMechanism.SCRAM_SHA_512);
        MetadataImage image = new MetadataImage("c", 1, List.of(), List.of(), Map.of("users/alice",
                Map.of("SCRAM-SHA-512", f.credential("alice-secret", 4096).toConfigValue(), "producer_byte_rate", "1024")));
        Map<String, String> props = Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512,SCRAM-SHA-256,PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS,
                "sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512",
                "listener.name.internal.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"alice-secret\";");
        SaslMechanisms m = new SaslMechanisms(config(props), () -> image);
        assertEquals(List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"), m.enabled("SASL_PLAINTEXT"));
        m.checkListener("SASL_PLAINTEXT");
        SaslClientMechanism client = m.interBrokerClient("INTERNAL");
        assertEquals("SCRAM-SHA-512", client.mechanismName());
        SaslServerMechanism server = m.create("SASL_PLAINTEXT", "SCRAM-SHA-512");
        byte[] last = server.evaluateResponse(client.evaluateChallenge(server.evaluateResponse(client.initialResponse())));
        client.evaluateChallenge(last);
        assertTrue(client.isComplete());
        assertEquals("alice", server.principal().name());
        // no SHA-256 credential for alice
        SaslServerMechanism sha256 = m.create("SASL_PLAINTEXT", "SCRAM-SHA-256");
        SaslClientMechanism client256 = new ScramClientMechanism(ScramMechanism.SCRAM_SHA_256, "alice", "alice-secret");
        byte[] response = client256.evaluateChallenge(sha256.evaluateResponse(client256.initialResponse()));
        assertThrows(SaslAuthenticationException.class, () -> sha256.evaluateResponse(response));
    }
}
