package io.krill.compat.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.broker.security.scram.ScramFormatter;
import io.krill.broker.security.scram.ScramMechanism;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Processes;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ApiVersionsRequest;
import io.krill.wire.message.ApiVersionsResponse;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.MetadataResponse;
import io.krill.wire.message.SaslAuthenticateRequest;
import io.krill.wire.message.SaslAuthenticateResponse;
import io.krill.wire.message.SaslHandshakeRequest;
import io.krill.wire.message.SaslHandshakeResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SASL listeners with the stock Java client and kcat: PLAIN on SASL_PLAINTEXT (JAAS users), SCRAM-SHA-256
 * and -512 on SASL_SSL (users created over the PLAINTEXT listener), the client's SaslAuthenticationException
 * for a wrong password and an unknown user, a request before authentication closing the connection, the
 * legacy (SaslHandshake v0) flow, the frame bound before authentication, and KIP-368 re-authentication.
 */
class SaslListenerTest {
    static final TestPki PKI = TestPki.create("Krill SASL CA");
    static final TestPki.Identity BROKER = PKI.issue("broker", "/OU=Brokers/CN=localhost");
    static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";
    static final int PLAINTEXT = 0;
    static final int SASL_PLAINTEXT = 1;
    static final int SASL_SSL = 2;
    static final int REAUTH = 3;

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,"
                    + "REAUTH://127.0.0.1:0")
            .with("listener.security.protocol.map",
                    "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,REAUTH:SASL_PLAINTEXT")
            .with("sasl.enabled.mechanisms", "PLAIN")
            .with("sasl.jaas.config", PLAIN_JAAS)
            .with("listener.name.sasl_ssl.sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN")
            .with("listener.name.reauth.connections.max.reauth.ms", "1500")
            .with("ssl.keystore.location", BROKER.keystore("JKS").toString())
            .with("ssl.keystore.password", TestPki.PASSWORD)
            .with("ssl.truststore.location", PKI.truststore("JKS").toString())
            .with("ssl.truststore.password", TestPki.PASSWORD);

    @AfterAll
    static void removePki() {
        PKI.close();
    }

    private static int port(int listener) {
        return KRILL.broker().boundAddresses().get(listener).getPort();
    }

    private static String bootstrap(int listener) {
        return "127.0.0.1:" + port(listener);
    }

    static Map<String, String> plain(String user, String password) {
        return new HashMap<>(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                        + "username=\"" + user + "\" password=\"" + password + "\";"));
    }

    static Map<String, String> scram(String mechanism, String user, String password) {
        return new HashMap<>(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", mechanism,
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"" + user + "\" password=\"" + password + "\";",
                "ssl.truststore.location", PKI.truststore("PKCS12").toString(),
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", TestPki.PASSWORD));
    }

    /**
     * Creates a SCRAM user over the PLAINTEXT listener with the Admin API (AlterUserScramCredentials);
     * where the broker does not serve it yet, writes the same credential to the store directly.
     */
    static void createScramUser(String mechanism, String user, String password) throws Exception {
        if (KRILL.apis().serves(org.apache.kafka.common.protocol.ApiKeys.ALTER_USER_SCRAM_CREDENTIALS)) {
            try (Admin admin = SecureClients.admin(bootstrap(PLAINTEXT), Map.of())) {
                admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                        new ScramCredentialInfo(org.apache.kafka.clients.admin.ScramMechanism.fromMechanismName(mechanism),
                                4096), password))).all().get(30, TimeUnit.SECONDS);
            }
            return;
        }
        ScramMechanism scram = ScramMechanism.forName(mechanism).orElseThrow();
        String entity = "users/" + user;
        Map<String, String> configs = new HashMap<>(KRILL.broker().metadata().image().entityConfigs(entity));
        configs.put(mechanism, new ScramFormatter(scram).credential(password, 4096).toConfigValue());
        KRILL.broker().metadata().alterEntityConfigs(entity, configs);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!KRILL.broker().metadata().image().entityConfigs(entity).containsKey(mechanism)
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    @Test
    void plainProducesAndConsumes() throws Exception {
        String topic = "sasl-plain";
        SecureClients.createTopic(bootstrap(SASL_PLAINTEXT), plain("alice", "alice-secret"), topic, 1, (short) 1);
        List<String> values = IntStream.range(0, 500).mapToObj(i -> "plain-" + i).collect(Collectors.toList());
        SecureClients.produce(bootstrap(SASL_PLAINTEXT), plain("alice", "alice-secret"), topic, values);
        assertEquals(values, SecureClients.consume(bootstrap(SASL_PLAINTEXT), plain("bob", "bob-secret"), topic,
                values.size()));
    }

    @Test
    void plainWrongPasswordAndUnknownUserGetSaslAuthenticationException() {
        Throwable wrong = SecureClients.describeFailure(bootstrap(SASL_PLAINTEXT), plain("alice", "nope"));
        assertInstanceOf(SaslAuthenticationException.class, wrong, String.valueOf(wrong));
        Throwable unknown = SecureClients.describeFailure(bootstrap(SASL_PLAINTEXT), plain("mallory", "x"));
        assertInstanceOf(SaslAuthenticationException.class, unknown, String.valueOf(unknown));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512"})
    void scramOverTlsProducesAndConsumes(String mechanism) throws Exception {
        String user = "carol-" + mechanism.substring(mechanism.length() - 3);
        createScramUser(mechanism, user, "carol-secret");
        String topic = "sasl-scram-" + mechanism.toLowerCase();
        Map<String, String> carol = scram(mechanism, user, "carol-secret");
        SecureClients.createTopic(bootstrap(SASL_SSL), carol, topic, 1, (short) 1);
        List<String> values = IntStream.range(0, 500).mapToObj(i -> mechanism + "-" + i).collect(Collectors.toList());
        SecureClients.produce(bootstrap(SASL_SSL), carol, topic, values);
        assertEquals(values, SecureClients.consume(bootstrap(SASL_SSL), carol, topic, values.size()));

        Throwable wrong = SecureClients.describeFailure(bootstrap(SASL_SSL), scram(mechanism, user, "wrong"));
        assertInstanceOf(SaslAuthenticationException.class, wrong, String.valueOf(wrong));
        Throwable unknown = SecureClients.describeFailure(bootstrap(SASL_SSL), scram(mechanism, "nobody", "x"));
        assertInstanceOf(SaslAuthenticationException.class, unknown, String.valueOf(unknown));
    }

    @Test
    void kcatWithPlainOverPlaintextAndOverTls() throws Exception {
        // SCRAM with kcat waits for the server to accept librdkafka's client-final nonce as Kafka does
        // (it must end with the server-first nonce; librdkafka repeats the client nonce in front).
        assumeTrue(Processes.onPath("kcat"), "kcat is not installed");
        String topic = "sasl-kcat";
        SecureClients.createTopic(bootstrap(PLAINTEXT), Map.of(), topic, 1, (short) 1);
        List<String> lines = IntStream.range(0, 200).mapToObj(i -> "kcat-" + i).collect(Collectors.toList());
        List<String> plain = List.of("kcat", "-b", bootstrap(SASL_PLAINTEXT), "-X", "security.protocol=sasl_plaintext",
                "-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret");
        List<String> produce = new ArrayList<>(plain);
        produce.addAll(List.of("-P", "-t", topic, "-p", "0"));
        Processes.run(produce, String.join("\n", lines) + "\n", Duration.ofSeconds(60)).assertSuccess();
        List<String> overTls = List.of("kcat", "-b", bootstrap(SASL_SSL), "-X", "security.protocol=sasl_ssl",
                "-X", "ssl.ca.location=" + PKI.caPem, "-X", "sasl.mechanisms=PLAIN",
                "-X", "sasl.username=bob", "-X", "sasl.password=bob-secret");
        List<String> consume = new ArrayList<>(overTls);
        consume.addAll(List.of("-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q"));
        assertEquals(lines, Processes.run(consume, "", Duration.ofSeconds(60)).assertSuccess().outLines());

        List<String> bad = new ArrayList<>(plain.subList(0, plain.size() - 1));
        bad.addAll(List.of("sasl.password=wrong", "-L", "-m", "5"));
        Processes.Result refused = Processes.run(bad, "", Duration.ofSeconds(60));
        assertTrue(refused.exitCode() != 0, "kcat with a wrong password listed metadata: " + refused.describe());
    }

    @Test
    void requestBeforeAuthenticationClosesTheConnection() throws Exception {
        try (RawKafkaSocket raw = new RawKafkaSocket(port(SASL_PLAINTEXT))) {
            raw.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequest().setClientSoftwareName("raw")
                    .setClientSoftwareVersion("1"));
            ApiVersionsResponse versions = raw.receive(ApiKeys.API_VERSIONS, (short) 3);
            assertEquals(Errors.NONE.code(), versions.errorCode(), "ApiVersions is served before authentication");
            raw.send(ApiKeys.METADATA, (short) 1, new MetadataRequest());
            assertTrue(raw.closedByPeer(), "Metadata before authentication must close the connection");
        }
    }

    @Test
    void unknownMechanismAndOutOfOrderAuthenticate() throws Exception {
        try (RawKafkaSocket raw = new RawKafkaSocket(port(SASL_PLAINTEXT))) {
            raw.send(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequest().setMechanism("GSSAPI"));
            SaslHandshakeResponse response = raw.receive(ApiKeys.SASL_HANDSHAKE, (short) 1);
            assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), response.errorCode());
            assertEquals(List.of("PLAIN"), response.mechanisms());
            assertTrue(raw.closedByPeer());
        }
        try (RawKafkaSocket raw = new RawKafkaSocket(port(SASL_PLAINTEXT))) {
            raw.send(ApiKeys.SASL_AUTHENTICATE, (short) 1, new SaslAuthenticateRequest().setAuthBytes(new byte[1]));
            SaslAuthenticateResponse response = raw.receive(ApiKeys.SASL_AUTHENTICATE, (short) 1);
            assertEquals(Errors.ILLEGAL_SASL_STATE.code(), response.errorCode());
            assertTrue(raw.closedByPeer());
        }
    }

    @Test
    void legacyHandshakeV0CarriesRawTokens() throws Exception {
        try (RawKafkaSocket raw = new RawKafkaSocket(port(SASL_PLAINTEXT))) {
            raw.send(ApiKeys.SASL_HANDSHAKE, (short) 0, new SaslHandshakeRequest().setMechanism("PLAIN"));
            SaslHandshakeResponse handshake = raw.receive(ApiKeys.SASL_HANDSHAKE, (short) 0);
            assertEquals(Errors.NONE.code(), handshake.errorCode());
            raw.sendToken("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals(new byte[0], raw.receiveFrame(), "PLAIN's empty final token, size-prefixed");
            raw.send(ApiKeys.METADATA, (short) 1, new MetadataRequest());
            MetadataResponse metadata = raw.receive(ApiKeys.METADATA, (short) 1);
            assertEquals(1, metadata.brokers().size(), "served once authenticated");
        }
        try (RawKafkaSocket raw = new RawKafkaSocket(port(SASL_PLAINTEXT))) {
            raw.send(ApiKeys.SASL_HANDSHAKE, (short) 0, new SaslHandshakeRequest().setMechanism("PLAIN"));
            raw.receive(ApiKeys.SASL_HANDSHAKE, (short) 0);
            raw.sendToken("\0alice\0wrong".getBytes(StandardCharsets.UTF_8));
            assertTrue(raw.closedByPeer(), "a failed legacy exchange closes the connection");
        }
    }

    @Test
    void oversizedFrameBeforeAuthenticationClosesTheConnection() throws Exception {
        try (RawKafkaSocket raw = new RawKafkaSocket(port(SASL_PLAINTEXT))) {
            raw.sendBytes(new byte[] {0, 0x10, 0, 0}); // 1 MiB > sasl.server.max.receive.size
            assertTrue(raw.closedByPeer());
        }
    }

    @Test
    void clientReauthenticatesAndKeepsWorking() throws Exception {
        String topic = "sasl-reauth";
        Map<String, String> alice = plain("alice", "alice-secret");
        SecureClients.createTopic(bootstrap(REAUTH), alice, topic, 1, (short) 1);
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = SecureClients.producer(bootstrap(REAUTH), alice)) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5000); // > 3 session lifetimes
            int i = 0;
            while (System.nanoTime() < end) {
                acks.add(producer.send(new ProducerRecord<>(topic, 0, null, "r-" + i++)));
                producer.flush();
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        assertEquals(acks.size(), SecureClients.consume(bootstrap(REAUTH), alice, topic, acks.size()).size());
        assertTrue(!KRILL.recentLog().contains("after the SASL session expired"),
                "the producer re-authenticated in time: no connection was closed for an expired session");
    }
}
