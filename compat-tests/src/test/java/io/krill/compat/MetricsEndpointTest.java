package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.krill.compat.support.FreePorts;

/**
 * A Prometheus scrape of the broker's /metrics after real traffic from stock clients: request counts
 * and latencies per API, bytes and records in per topic, bytes out, log size, consumer lag per group
 * and partition, JVM metrics; /health and /ready answer 200.
 */
class MetricsEndpointTest {
    private static final int HTTP_PORT = FreePorts.next();

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("krill.http.port", Integer.toString(HTTP_PORT));

    private static HttpResponse<String> get(String path) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + HTTP_PORT + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static double value(String metrics, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+-]+)$").matcher(metrics);
        assertTrue(m.find(), "no series " + series + " in:\n" + metrics);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void scrapeAfterTraffic() throws Exception {
        String topic = "metrics-topic";
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
            }
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "metrics-group");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            int read = 0;
            long deadline = System.currentTimeMillis() + 30_000;
            while (read < 100 && System.currentTimeMillis() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertEquals(100, read);
            consumer.commitSync(java.util.Map.of(tp, new OffsetAndMetadata(60)));
        }

        HttpResponse<String> scrape = get("/metrics");
        assertEquals(200, scrape.statusCode());
        String metrics = scrape.body();
        assertTrue(value(metrics, "krill_requests_total{api=\"Produce\"}") >= 100);
        assertTrue(value(metrics, "krill_request_seconds_count{api=\"Fetch\"}") >= 1);
        assertEquals(100, value(metrics, "krill_topic_records_in_total{topic=\"metrics-topic\"}"));
        assertTrue(value(metrics, "krill_topic_bytes_in_total{topic=\"metrics-topic\"}") > 100 * 4);
        assertTrue(value(metrics, "krill_topic_bytes_out_total{topic=\"metrics-topic\"}") > 0);
        assertTrue(value(metrics, "krill_log_size_bytes{partition=\"0\",topic=\"metrics-topic\"}") > 0);
        assertEquals(40, value(metrics, "krill_consumer_group_lag{group=\"metrics-group\",partition=\"0\",topic=\"metrics-topic\"}"));
        assertEquals(0, value(metrics, "krill_under_replicated_partitions"));
        assertEquals(1, value(metrics, "krill_active_controller"));
        assertTrue(metrics.contains("jvm_memory_used_bytes"), "JVM metrics");
        assertEquals(200, get("/health").statusCode());
        assertEquals(200, get("/ready").statusCode());
    }
}
