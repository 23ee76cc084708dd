package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.FreePorts;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-714 client telemetry end to end: a CLIENT_METRICS subscription made with the Admin client, a Kafka 4.4
 * producer pushing its metrics (enable.metrics.push is on by default), and the pushed metrics on the broker's
 * /metrics labelled with the producer's client id and instance id; Kafka's kafka-client-metrics and
 * kafka-configs tools against the subscriptions.
 */
class ClientTelemetryTest {
    private static final int HTTP_PORT = FreePorts.next();

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("krill.http.port", Integer.toString(HTTP_PORT));

    private static String scrape() throws Exception {
        return scrape(HTTP_PORT);
    }

    /** The Prometheus text a broker serves on /metrics of {@code krill.http.port} {@code httpPort}. */
    static String scrape(int httpPort) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers()));
    }

    @Test
    void producerMetricsPushedToKrillAreOnItsPrometheusEndpoint() throws Exception {
        ConfigResource subscription = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "producers");
        try (Admin admin = admin()) {
            admin.incrementalAlterConfigs(Map.of(subscription, List.of(
                    new AlterConfigOp(new ConfigEntry("metrics", "org.apache.kafka.producer."), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("interval.ms", "1000"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
            Config described = admin.describeConfigs(List.of(subscription)).all().get(30, TimeUnit.SECONDS)
                    .get(subscription);
            assertEquals("org.apache.kafka.producer.", described.get("metrics").value());
            assertEquals("1000", described.get("interval.ms").value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_CLIENT_METRICS_CONFIG, described.get("interval.ms").source());
            assertEquals("", described.get("match").value());
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "telemetry-producer");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>("telemetry-topic", "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
            }
            Uuid instance = producer.clientInstanceId(Duration.ofSeconds(30));
            String labels = "client_id=\"telemetry-producer\",client_instance_id=\"" + instance + "\"";
            try {
                await("the producer's pushed metrics on /metrics").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> scrape().lines().anyMatch(l -> l.startsWith("org_apache_kafka_producer_")
                                && l.contains(labels)));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("no series labelled " + labels + " among:\n" + String.join("\n",
                        scrape().lines().filter(l -> l.contains("kafka")).limit(20).toList()), e);
            }
            String text = scrape();
            assertTrue(text.lines().anyMatch(l -> l.startsWith("org_apache_kafka_producer_record_send_")
                    && l.contains(labels) && l.contains("client_software_name=\"apache-kafka-java\"")), text);
            assertTrue(text.lines().noneMatch(l -> l.startsWith("org_apache_kafka_consumer_")), text);
        }
    }

    @Test
    void kafkaClientMetricsAndKafkaConfigsToolsManageSubscriptions(@TempDir Path tmp) {
        Result alter = ToolRunner.run("kafka-client-metrics", org.apache.kafka.tools.ClientMetricsCommand::main,
                Duration.ofSeconds(60), "--bootstrap-server", KRILL.bootstrapServers(), "--alter", "--name", "tool-sub",
                "--metrics", "org.apache.kafka.consumer.,org.apache.kafka.producer.", "--interval", "2000",
                "--match", "client_id=app.*");
        assertEquals(0, alter.exitCode(), alter.toString());
        Result list = ToolRunner.run("kafka-client-metrics", org.apache.kafka.tools.ClientMetricsCommand::main,
                Duration.ofSeconds(60), "--bootstrap-server", KRILL.bootstrapServers(), "--list");
        assertEquals(0, list.exitCode(), list.toString());
        assertTrue(list.outLines().contains("tool-sub"), list.toString());
        Result describe = ToolRunner.run("kafka-client-metrics", org.apache.kafka.tools.ClientMetricsCommand::main,
                Duration.ofSeconds(60), "--bootstrap-server", KRILL.bootstrapServers(), "--describe", "--name",
                "tool-sub");
        assertEquals(0, describe.exitCode(), describe.toString());
        assertTrue(describe.out().contains("interval.ms=2000"), describe.toString());
        assertTrue(describe.out().contains("org.apache.kafka.consumer.,org.apache.kafka.producer."), describe.toString());

        Result configs = ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), "--entity-type", "client-metrics",
                "--entity-name", "cfg-sub", "--alter", "--add-config", "metrics=org.apache.kafka.producer.,interval.ms=1000");
        assertEquals(0, configs.exitCode(), configs.toString());
        Result shown = ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), "--entity-type", "client-metrics",
                "--entity-name", "cfg-sub", "--describe");
        assertEquals(0, shown.exitCode(), shown.toString());
        assertTrue(shown.out().contains("interval.ms=1000"), shown.toString());
        Result bad = ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), "--entity-type", "client-metrics",
                "--entity-name", "cfg-sub", "--alter", "--add-config", "interval.ms=50");
        assertTrue(bad.exitCode() != 0, bad.toString());
        assertTrue((bad.out() + bad.err() + bad.thrown()).contains("interval must be between 100 and 3600000"),
                bad.toString());
    }
}
