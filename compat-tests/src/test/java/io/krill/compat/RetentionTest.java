package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Records live for the retention period, then go, as Kafka's retention deletes them: by age (retention.ms,
 * from each segment's largest timestamp) and by size (retention.bytes), whole segments at a time, checked every
 * {@code log.retention.check.interval.ms}. A topic that stopped receiving records loses them too: its only
 * segment is the active one, which Kafka rolls and deletes. Offsets go on where they were.
 */
class RetentionTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("log.retention.check.interval.ms", "300");

    @Test
    void aQuietTopicsRecordsGoAfterRetentionMsAndOffsetsGoOn() throws Exception {
        String topic = "retention-quiet";
        createTopic(topic, Map.of("retention.ms", "3000"));
        List<RecordMetadata> acked = Clients.produce(KRILL.bootstrapServers(), topic, 0, values("old", 20));
        assertEquals(19, acked.get(19).offset());
        assertEquals(20, Clients.consume(KRILL.bootstrapServers(), topic, 0, 20).size(), "readable while retained");

        await().atMost(Duration.ofSeconds(30)).until(() -> logStart(topic) == 20L);
        assertEquals(20L, Clients.endOffsets(KRILL.bootstrapServers(), topic, 1).get(0));

        List<RecordMetadata> more = Clients.produce(KRILL.bootstrapServers(), topic, 0, values("new", 3));
        assertEquals(20, more.get(0).offset(), "the log goes on from the offset it had");
        List<ConsumerRecord<String, String>> read = Clients.consume(KRILL.bootstrapServers(), topic, 0, 3);
        assertEquals(List.of("new-0", "new-1", "new-2"), read.stream().map(ConsumerRecord::value).toList());
        assertEquals(20, read.get(0).offset());
    }

    @Test
    void recordsStampedBeforeRetentionMsGoWhileFreshOnesStay() throws Exception {
        String topic = "retention-age";
        createTopic(topic, Map.of("retention.ms", "3600000"));
        long twoHoursAgo = System.currentTimeMillis() - 7_200_000;
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, twoHoursAgo + i, null, "old-" + i))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        // Stamped two hours ago with an hour's retention, the records are the whole active segment: they go.
        await().atMost(Duration.ofSeconds(30)).until(() -> logStart(topic) == 10L);
        Clients.produce(KRILL.bootstrapServers(), topic, 0, values("fresh", 5));
        // Fresh records stay: the log start holds through several retention passes.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> logStart(topic) == 10L);
        assertEquals(List.of("fresh-0", "fresh-1", "fresh-2", "fresh-3", "fresh-4"),
                Clients.consume(KRILL.bootstrapServers(), topic, 0, 5).stream().map(ConsumerRecord::value).toList());
    }

    @Test
    void retentionBytesKeepsTheNewestSegments() throws Exception {
        String topic = "retention-size";
        // Segments of 1 MiB (Kafka's least) and 2.5 MiB kept, of 5 MiB written.
        createTopic(topic, Map.of("retention.bytes", "2621440", "segment.bytes", "1048576", "retention.ms", "-1"));
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            values.add(String.format("value-%03d-%s", i, "x".repeat(10_240)));
        }
        Clients.produce(KRILL.bootstrapServers(), topic, 0, values);
        await().atMost(Duration.ofSeconds(30)).until(() -> logStart(topic) > 0L);
        long start = logStart(topic);
        assertEquals(500L, Clients.endOffsets(KRILL.bootstrapServers(), topic, 1).get(0));
        assertTrue(start >= 200 && start <= 350, "the newest 2.5 MiB, whole segments, are kept: log start " + start);
        List<ConsumerRecord<String, String>> kept = Clients.consume(KRILL.bootstrapServers(), topic, 0,
                (int) (500 - start));
        assertEquals(500 - start, kept.size());
        for (int i = 0; i < kept.size(); i++) {
            assertEquals(start + i, kept.get(i).offset(), "a consumer from the beginning starts at the log start");
            assertEquals(values.get((int) start + i), kept.get(i).value(), "in order, none missing");
        }
    }

    private static long logStart(String topic) {
        return Clients.beginningOffsets(KRILL.bootstrapServers(), topic, 1).get(0);
    }

    private static List<String> values(String prefix, int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(prefix + "-" + i);
        }
        return out;
    }

    private static void createTopic(String topic, Map<String, String> configs) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
        }
    }
}
