package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the stock 4.4 Java client meets off the happy path of ProduceConsumeTest: acks 0 and 1, a
 * record over message.max.bytes, a batch larger than a segment, an invalid topic name, a fetch size smaller than a batch, and
 * timestamps the broker keeps (CreateTime) or sets (LogAppendTime).
 */
class ClientEdgeCasesTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    @Test
    void acksZeroAndOne() throws Exception {
        for (String acks : List.of("0", "1")) {
            String topic = "edge-acks-" + acks;
            int count = 1000;
            try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                    Map.of("acks", acks, "enable.idempotence", "false"))) {
                List<Future<RecordMetadata>> futures = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    futures.add(producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i)));
                }
                for (int i = 0; i < count; i++) {
                    RecordMetadata md = futures.get(i).get(60, TimeUnit.SECONDS);
                    // acks=0 gets no offset back (-1); acks=1 gets the real one.
                    assertEquals(acks.equals("0") ? -1L : i, md.offset(), "offset for acks=" + acks);
                }
            }
            List<ConsumerRecord<String, String>> read = Clients.consume(KRILL.bootstrapServers(), topic, 0, count);
            assertEquals(count, read.size(), "records stored with acks=" + acks);
            assertEquals("v" + (count - 1), read.get(count - 1).value());
        }
    }

    @Test
    void recordLargerThanMessageMaxBytesIsRefused() throws Exception {
        String topic = "edge-too-large";
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("small"));
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("max.request.size", String.valueOf(4 << 20), "retries", "0", "enable.idempotence", "false",
                        "linger.ms", "0"))) {
            // message.max.bytes defaults to 1 MiB + 12 in Kafka 4.
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, 0, "k", "x".repeat(2 << 20))).get(60, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof RecordTooLargeException, "RecordTooLargeException, got " + e.getCause());
            assertEquals(1L, producer.send(new ProducerRecord<>(topic, 0, "k", "fits")).get(60, TimeUnit.SECONDS).offset(),
                    "the partition goes on after the refusal");
        }
    }

    @Test
    void batchLargerThanTheSegmentIsRefusedAsKafkaRefusesIt() throws Exception {
        String topic = "edge-larger-than-segment";
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            // a batch may be as large as max.message.bytes, but never larger than a segment
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(
                    "segment.bytes", String.valueOf(1 << 20), "max.message.bytes", String.valueOf(4 << 20)))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("max.request.size", String.valueOf(8 << 20), "retries", "0", "enable.idempotence", "false",
                        "linger.ms", "0"))) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, 0, "k", "x".repeat(2 << 20))).get(60, TimeUnit.SECONDS));
            // Kafka answers RECORD_LIST_TOO_LARGE (18), which the client raises as RecordBatchTooLargeException
            assertTrue(e.getCause() instanceof RecordBatchTooLargeException,
                    "RecordBatchTooLargeException, got " + e.getCause());
            assertEquals(0L, producer.send(new ProducerRecord<>(topic, 0, "k", "fits")).get(60, TimeUnit.SECONDS).offset(),
                    "the partition goes on after the refusal");
        }
    }

    @Test
    void invalidTopicName() {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("max.block.ms", "10000"))) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("bad topic!", "v")).get(60, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof InvalidTopicException, "InvalidTopicException, got " + e.getCause());
        }
    }

    @Test
    void fetchSizeSmallerThanOneBatchStillProgresses() throws Exception {
        String topic = "edge-small-fetch";
        int count = 200;
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("linger.ms", "50", "batch.size", "65536"))) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, 0, "k" + i, "value-" + "y".repeat(200) + i)));
            }
            for (Future<RecordMetadata> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put("max.partition.fetch.bytes", "1024");
        props.put("fetch.max.bytes", "1024");
        props.put("enable.auto.commit", "false");
        TopicPartition tp = new TopicPartition(topic, 0);
        int read = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props,
                new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    assertEquals(read, r.offset());
                    read++;
                }
            }
        }
        assertEquals(count, read, "a batch larger than the fetch limits is still returned whole (KIP-74)");
    }

    @Test
    void createTimeIsKept() throws Exception {
        String topic = "edge-timestamps";
        long ts = 1_600_000_000_123L;
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            RecordMetadata md = producer.send(new ProducerRecord<>(topic, 0, ts, "k", "v")).get(60, TimeUnit.SECONDS);
            assertEquals(ts, md.timestamp(), "CreateTime returned in the produce response path");
        }
        ConsumerRecord<String, String> r = Clients.consume(KRILL.bootstrapServers(), topic, 0, 1).get(0);
        assertEquals(ts, r.timestamp());
        assertEquals(TimestampType.CREATE_TIME, r.timestampType());
    }
}
