package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * KIP-467 with the stock producer: a batch refused because of some of its records names each of them in
 * {@code record_errors}, so the producer fails those records with the reason and the others of the batch
 * with "part of a batch which had invalid records"; nothing of the batch is appended.
 */
class RecordErrorsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static void createTopic(String name, Map<String, String> configs) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 1).configs(configs))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static long endOffset(String topic) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(30, TimeUnit.SECONDS)
                    .offset();
        }
    }

    /** Sends the records as one batch (a long linger, flushed at the end) and returns their outcomes. */
    private static List<Future<RecordMetadata>> sendAsOneBatch(List<ProducerRecord<String, String>> records) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("linger.ms", "60000", "delivery.timeout.ms", "120000", "batch.size", "1000000", "retries", "0",
                        "enable.idempotence", "false", "compression.type", "lz4"))) {
            for (ProducerRecord<String, String> record : records) {
                futures.add(producer.send(record));
            }
            producer.flush();
        }
        return futures;
    }

    private static Throwable failure(Future<RecordMetadata> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void keylessRecordsToACompactedTopicAreNamedOneByOne() throws Exception {
        String topic = "compacted-record-errors";
        createTopic(topic, Map.of("cleanup.policy", "compact"));
        List<Future<RecordMetadata>> sent = sendAsOneBatch(List.of(
                new ProducerRecord<>(topic, 0, "k0", "v0"),
                new ProducerRecord<>(topic, 0, null, "no key 1"),
                new ProducerRecord<>(topic, 0, "k2", "v2"),
                new ProducerRecord<>(topic, 0, null, "no key 3")));
        for (int i : new int[] {1, 3}) {
            Throwable cause = failure(sent.get(i));
            // two record errors: the producer cannot tell their kinds apart and makes each an InvalidRecordException
            assertInstanceOf(InvalidRecordException.class, cause, "record " + i);
            assertTrue(cause.getMessage().contains("Compacted topic cannot accept message without key"), cause.getMessage());
        }
        for (int i : new int[] {0, 2}) {
            Throwable cause = failure(sent.get(i));
            assertInstanceOf(KafkaException.class, cause, "record " + i);
            assertTrue(cause.getMessage().contains("part of a batch which had one more more invalid records"),
                    "record " + i + ": " + cause.getMessage());
        }
        assertEquals(0, endOffset(topic), "nothing of the refused batch was appended");
    }

    @Test
    void aRecordTooOldIsNamedEvenInTheMiddleOfTheBatch() throws Exception {
        String topic = "timestamp-record-errors";
        createTopic(topic, Map.of("message.timestamp.before.max.ms", "3600000"));
        long now = System.currentTimeMillis();
        List<Future<RecordMetadata>> sent = sendAsOneBatch(List.of(
                new ProducerRecord<>(topic, 0, now, "k0", "v0"),
                new ProducerRecord<>(topic, 0, now - 24 * 3600_000L, "k1", "a day old"),
                new ProducerRecord<>(topic, 0, now, "k2", "v2")));
        Throwable old = failure(sent.get(1));
        // one record error: the producer uses the partition's error, INVALID_TIMESTAMP, for it
        assertInstanceOf(InvalidTimestampException.class, old);
        assertTrue(old.getMessage().contains("is out of range"), old.getMessage());
        for (int i : new int[] {0, 2}) {
            assertTrue(failure(sent.get(i)).getMessage().contains("part of a batch which had one more more invalid"),
                    "record " + i);
        }
        assertEquals(0, endOffset(topic));
    }
}
