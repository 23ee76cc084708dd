package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code krill.console.listener} naming an SSL listener, the HTTP port serves HTTPS with that
 * listener's key store (a self-signed certificate made by the JDK's keytool), /metrics included, and
 * plain HTTP is not served there.
 */
class ConsoleApiTlsTest {
    private static final String PASSWORD = "console-secret";
    private static final Path KEYSTORE = keystore();
    private static final int HTTP_PORT = FreePorts.next();

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0")
            .with("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL")
            .with("inter.broker.listener.name", "PLAINTEXT")
            .with("ssl.keystore.location", KEYSTORE.toString())
            .with("ssl.keystore.type", "PKCS12")
            .with("ssl.keystore.password", PASSWORD)
            .with("krill.console.listener", "SSL")
            .with("krill.http.port", Integer.toString(HTTP_PORT));

    /** A PKCS12 key store with a self-signed certificate for 127.0.0.1, made by keytool. */
    private static Path keystore() {
        try {
            Path dir = Files.createTempDirectory("krill-console-tls");
            Path store = dir.resolve("console.p12");
            Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                    "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                    "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
                    .redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes());
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
            store.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return store;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpClient trustingClient() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(KEYSTORE)) {
            trust.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void servesHttpsWithTheListenersKeyStore() throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("console-tls", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        HttpClient https = trustingClient();
        HttpResponse<String> topics = https.send(HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + HTTP_PORT + "/console/api/topics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, topics.statusCode());
        JsonNode json = new ObjectMapper().readTree(topics.body());
        assertNotNull(ConsoleHttp.find(json.path("topics"), "name", "console-tls"));
        HttpResponse<String> metrics = https.send(HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + HTTP_PORT + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        assertThrows(IOException.class, () -> new ConsoleHttp(HTTP_PORT).get("/console/api/me"),
                "plain HTTP is not served on an HTTPS port");
    }
}
