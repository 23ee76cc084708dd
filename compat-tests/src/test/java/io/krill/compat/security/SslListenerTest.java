package io.krill.compat.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Processes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * TLS listeners with the stock Java client and kcat: produce and consume (a topic larger than one fetch,
 * so log data that PLAINTEXT sends with sendfile goes through the TLS engine), mutual TLS with the
 * principal taken from the client certificate, the refusals a client sees (no client certificate where
 * one is required, a broker certificate it does not trust, an expired client certificate), and a key
 * store replaced on disk serving new connections without a restart. The mTLS listener reads PEM stores
 * through its {@code listener.name.mtls.} overrides.
 */
class SslListenerTest {
    static final TestPki PKI = TestPki.create("Krill Test CA");
    static final TestPki OTHER_CA = TestPki.create("Some Other CA");
    static final TestPki.Identity BROKER = PKI.issue("broker", "/OU=Brokers/CN=localhost");
    static final TestPki.Identity ALICE = PKI.issue("alice", "/OU=Clients/CN=alice");
    static final TestPki.Identity EXPIRED = PKI.issueExpired("expired", "/OU=Clients/CN=expired");

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0")
            .with("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL")
            .with("ssl.keystore.location", BROKER.keystore("PKCS12").toString())
            .with("ssl.keystore.type", "PKCS12")
            .with("ssl.keystore.password", TestPki.PASSWORD)
            .with("ssl.truststore.location", PKI.truststore("JKS").toString())
            .with("ssl.truststore.type", "JKS")
            .with("ssl.truststore.password", TestPki.PASSWORD)
            .with("listener.name.mtls.ssl.client.auth", "required")
            // the mTLS listener reads PEM files instead of the broker-wide PKCS12/JKS stores
            .with("listener.name.mtls.ssl.keystore.type", "PEM")
            .with("listener.name.mtls.ssl.keystore.location", BROKER.pemBundle().toString())
            .with("listener.name.mtls.ssl.truststore.type", "PEM")
            .with("listener.name.mtls.ssl.truststore.location", PKI.caPem.toString());

    @AfterAll
    static void removePki() {
        PKI.close();
        OTHER_CA.close();
    }

    private static String bootstrap(int listenerIndex) {
        return "127.0.0.1:" + KRILL.broker().boundAddresses().get(listenerIndex).getPort();
    }

    private static Map<String, String> tls(TestPki.Identity client) {
        Map<String, String> props = new java.util.HashMap<>(Map.of(
                "security.protocol", "SSL",
                "ssl.truststore.location", PKI.truststore("PKCS12").toString(),
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", TestPki.PASSWORD));
        if (client != null) {
            props.put("ssl.keystore.location", client.keystore("PKCS12").toString());
            props.put("ssl.keystore.type", "PKCS12");
            props.put("ssl.keystore.password", TestPki.PASSWORD);
        }
        return props;
    }

    @Test
    void javaClientProducesAndConsumesMoreThanOneFetchOverTls() throws Exception {
        String topic = "tls-big";
        String pad = "x".repeat(1000);
        List<String> values = IntStream.range(0, 6000).mapToObj(i -> i + "-" + pad).collect(Collectors.toList());
        SecureClients.createTopic(bootstrap(1), tls(null), topic, 1, (short) 1);
        SecureClients.produce(bootstrap(1), tls(null), topic, values);
        assertEquals(values, SecureClients.consume(bootstrap(1), tls(null), topic, values.size()),
                "6 MB read back over TLS, in order and intact");
    }

    @Test
    void kcatProducesAndConsumesOverTls() throws Exception {
        assumeTrue(Processes.onPath("kcat"), "kcat is not installed");
        String topic = "tls-kcat";
        SecureClients.createTopic(bootstrap(1), tls(null), topic, 1, (short) 1);
        List<String> lines = IntStream.range(0, 300).mapToObj(i -> "line-" + i).collect(Collectors.toList());
        List<String> common = List.of("kcat", "-b", bootstrap(1), "-X", "security.protocol=ssl",
                "-X", "ssl.ca.location=" + PKI.caPem, "-X", "socket.timeout.ms=20000");
        List<String> produce = new java.util.ArrayList<>(common);
        produce.addAll(List.of("-P", "-t", topic, "-p", "0"));
        Processes.run(produce, String.join("\n", lines) + "\n", Duration.ofSeconds(60)).assertSuccess();
        List<String> consume = new java.util.ArrayList<>(common);
        consume.addAll(List.of("-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q"));
        Processes.Result read = Processes.run(consume, "", Duration.ofSeconds(60)).assertSuccess();
        assertEquals(lines, read.outLines());
        assertEquals(lines, SecureClients.consume(bootstrap(1), tls(null), topic, lines.size()));
    }

    @Test
    void mutualTlsAuthenticatesTheCertificateSubject() throws Exception {
        Logger handler = (Logger) LoggerFactory.getLogger("io.krill.broker.net.SslPrincipalHandler");
        Level before = handler.getLevel();
        handler.setLevel(Level.DEBUG);
        try {
            String topic = "mtls";
            SecureClients.createTopic(bootstrap(2), tls(ALICE), topic, 1, (short) 1);
            SecureClients.produce(bootstrap(2), tls(ALICE), topic, List.of("from alice"));
            assertEquals(List.of("from alice"), SecureClients.consume(bootstrap(2), tls(ALICE), topic, 1));
        } finally {
            handler.setLevel(before);
        }
        assertTrue(KRILL.recentLog().contains("authenticated as User:CN=alice,OU=Clients"),
                "the principal is the certificate subject in RFC 2253 form");
    }

    @Test
    void clientWithoutCertificateIsRefusedWhereOneIsRequired() {
        Throwable failure = SecureClients.describeFailure(bootstrap(2), tls(null));
        assertNotNull(failure, "a client without a certificate was served on ssl.client.auth=required");
        assertInstanceOf(SslAuthenticationException.class, failure, failure.toString());
        assertNull(SecureClients.describeFailure(bootstrap(1), tls(null)), "the same client on the SSL listener");
    }

    @Test
    void clientThatDoesNotTrustTheBrokerFails() {
        Map<String, String> props = tls(null);
        props.put("ssl.truststore.location", OTHER_CA.truststore("PKCS12").toString());
        Throwable failure = SecureClients.describeFailure(bootstrap(1), props);
        assertInstanceOf(SslAuthenticationException.class, failure, String.valueOf(failure));
    }

    @Test
    void aReplacedKeyStoreServesNewConnections() throws Exception {
        assertTrue(peerSubject().contains("OU=Brokers"), peerSubject());
        java.nio.file.Path live = BROKER.keystore("PKCS12");
        java.nio.file.Path rotated = PKI.issue("rotated", "/OU=Rotated/CN=localhost").keystore("PKCS12");
        java.nio.file.Path staged = live.resolveSibling("staged.p12");
        java.nio.file.Files.copy(rotated, staged);
        java.nio.file.Files.move(staged, live, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        assertTrue(peerSubject().contains("OU=Rotated"), "after the swap: " + peerSubject());
    }

    /** The subject of the certificate the SSL listener presents to a new connection. */
    private static String peerSubject() throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(PKI.truststore("PKCS12"))) {
            trust.load(in, TestPki.PASSWORD.toCharArray());
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
        tmf.init(trust);
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        int port = KRILL.broker().boundAddresses().get(1).getPort();
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) context.getSocketFactory()
                .createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            return ((java.security.cert.X509Certificate) socket.getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName();
        }
    }

    @Test
    void expiredClientCertificateIsRefused() {
        Throwable failure = SecureClients.describeFailure(bootstrap(2), tls(EXPIRED));
        assertNotNull(failure, "an expired client certificate was accepted");
        assertInstanceOf(SslAuthenticationException.class, failure, failure.toString());
    }
}
