package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import io.krill.compat.support.Processes;
import io.krill.compat.support.RunningProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KIP-714 client telemetry from librdkafka 2.15.1 (a client other than Kafka's own): a CLIENT_METRICS
 * subscription selecting one client id, a librdkafka producer of that id ({@code src/test/native/
 * telemetry_producer.c}) pushing its metrics, and those metrics on Krill's /metrics labelled with the
 * instance id librdkafka was given and with librdkafka as the client software.
 *
 * <p>Debian's librdkafka (2.0.2, which kcat and python3-confluent-kafka link) predates KIP-714, so the
 * producer is built by {@code build-share-consumer.sh} against the librdkafka 2.15.1 that script builds in
 * {@code ~/.cache/krill-native} (.ci/run builds it before the tests). Skipped only when that library has not
 * been built; the program itself is compiled here (seconds) if it is missing or older than its source.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LibrdkafkaTelemetryTest {
    private static final int HTTP_PORT = FreePorts.next();
    private static final Path NATIVE = Path.of(System.getProperty("user.dir"), "src", "test", "native");
    private static final Path LIBRARY = Path.of(System.getenv().getOrDefault("KRILL_NATIVE_CACHE",
            System.getProperty("user.home") + "/.cache/krill-native"), "librdkafka-2.15.1");
    private static final String CLIENT_ID = "librdkafka-telemetry";
    private static final String INSTANCE_LINE = "client-instance-id ";

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("krill.http.port", Integer.toString(HTTP_PORT));

    private static Path producer;

    @BeforeAll
    static void buildTheProducer() {
        assumeTrue(Files.exists(LIBRARY.resolve(".lib-built")), "librdkafka 2.15.1 is not built in " + LIBRARY
                + " (src/test/native/build-share-consumer.sh builds it, as .ci/run does): no librdkafka with"
                + " client telemetry to test");
        Processes.Result build = Processes.run(List.of("bash", NATIVE.resolve("build-share-consumer.sh").toString()),
                "", Duration.ofMinutes(5));
        assertEquals(0, build.exitCode(), build.describe());
        producer = Path.of(build.outLines().get(build.outLines().size() - 1).trim()).resolveSibling(
                "krill-telemetry-producer");
        assertTrue(Files.isExecutable(producer), "not built: " + producer + "\n" + build.describe());
    }

    @Test
    void librdkafkaMetricsPushedToKrillAreOnItsPrometheusEndpoint() throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("librdkafka-telemetry", 1, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "librdkafka"),
                    List.of(new AlterConfigOp(new ConfigEntry("metrics", "org.apache.kafka."), AlterConfigOp.OpType.SET),
                            new AlterConfigOp(new ConfigEntry("interval.ms", "500"), AlterConfigOp.OpType.SET),
                            new AlterConfigOp(new ConfigEntry("match", "client_id=" + CLIENT_ID),
                                    AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        try (RunningProcess running = RunningProcess.start(List.of(producer.toString(), KRILL.bootstrapServers(),
                "librdkafka-telemetry", CLIENT_ID, "60"))) {
            RunningProcess.waitFor("librdkafka's client instance id", Duration.ofSeconds(30),
                    () -> running.outLines().stream().anyMatch(l -> l.startsWith(INSTANCE_LINE)), running);
            // librdkafka logs the id in standard base64; Kafka (and the label) in URL-safe base64.
            String instance = running.outLines().stream().filter(l -> l.startsWith(INSTANCE_LINE)).findFirst()
                    .orElseThrow().substring(INSTANCE_LINE.length()).trim().replace('+', '-').replace('/', '_');
            String labels = "client_id=\"" + CLIENT_ID + "\",client_instance_id=\"" + instance + "\"";
            RunningProcess.waitFor("librdkafka's metrics labelled " + labels + " on /metrics", Duration.ofSeconds(60),
                    () -> ClientTelemetryTest.scrape(HTTP_PORT).lines().anyMatch(l ->
                            l.startsWith("org_apache_kafka_producer_") && l.contains(labels)), running);
            String text = ClientTelemetryTest.scrape(HTTP_PORT);
            assertTrue(text.lines().anyMatch(l -> l.contains(labels)
                    && l.contains("client_software_name=\"librdkafka\"")), text);
            running.terminate();
        }
    }
}
