package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once loop of Kafka Streams and friends, with the stock 4.4 client: consume, transform,
 * produce, and commit the consumed offsets in the same transaction (sendOffsetsToTransaction).
 * Offsets sent in a transaction are not visible until it commits (a read_committed consumer's OffsetFetch
 * with require_stable is told UNSTABLE_OFFSET_COMMIT meanwhile) and are dropped if it aborts. An
 * instance that dies mid-transaction is replaced by one with the same transactional id, which aborts
 * the open transaction and resumes from the committed offsets: the output, read with read_committed,
 * has every input transformed exactly once.
 */
class ConsumeTransformProduceTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "2")
            .with("transaction.state.log.num.partitions", "3")
            .with("offsets.topic.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final String INPUT = "ctp-input";
    private static final String OUTPUT = "ctp-output";
    private static final String GROUP = "ctp-group";
    private static final String TXN_ID = "ctp-app";
    private static final int INPUTS = 200;

    @Test
    void everyInputIsTransformedExactlyOnceAcrossACrashAndOffsetsAreVisibleOnlyOnCommit() throws Exception {
        for (int p = 0; p < 2; p++) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < INPUTS / 2; i++) {
                values.add("in-" + p + "-" + i);
            }
            Clients.produce(KRILL.bootstrapServers(), INPUT, p, values);
        }
        Set<TopicPartition> inputs = Set.of(new TopicPartition(INPUT, 0), new TopicPartition(INPUT, 1));

        // First instance: one committed transaction, one aborted, then it dies in the middle of a third.
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED);
             KafkaProducer<String, String> producer = producer()) {
            consumer.subscribe(List.of(INPUT));
            producer.initTransactions();

            ConsumerRecords<String, String> batch = pollSome(consumer);
            producer.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> sent = transform(producer, batch);
            producer.sendOffsetsToTransaction(sent, consumer.groupMetadata());
            producer.flush();
            try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
                Map<TopicPartition, OffsetAndMetadata> before = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
                assertTrue(before.isEmpty(), "nothing committed while the transaction is open: " + before);
            }
            // The 4.4 consumer always asks with require_stable: it waits for the transaction to end.
            try (KafkaConsumer<String, String> stable = groupObserver(IsolationLevel.READ_COMMITTED)) {
                assertThrows(TimeoutException.class, () -> stable.committed(inputs, Duration.ofSeconds(2)),
                        "require_stable waits while the transaction's offsets are pending");
            }
            producer.commitTransaction();
            try (KafkaConsumer<String, String> stable = groupObserver(IsolationLevel.READ_COMMITTED)) {
                Map<TopicPartition, OffsetAndMetadata> after = stable.committed(inputs, Duration.ofSeconds(10));
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : sent.entrySet()) {
                    assertEquals(e.getValue().offset(), after.get(e.getKey()).offset(), "committed with the transaction");
                }
            }

            // An aborted transaction: its offsets are dropped, the consumer rewinds to the committed ones.
            batch = pollSome(consumer);
            producer.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> abortedOffsets = transform(producer, batch);
            producer.sendOffsetsToTransaction(abortedOffsets, consumer.groupMetadata());
            producer.abortTransaction();
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(inputs, Duration.ofSeconds(10));
            for (TopicPartition tp : inputs) {
                OffsetAndMetadata c = committed.get(tp);
                if (sent.containsKey(tp)) {
                    assertEquals(sent.get(tp).offset(), c.offset(), "the aborted offsets were dropped");
                } else {
                    assertNull(c);
                }
                consumer.seek(tp, c == null ? 0 : c.offset());
            }

            // The crash: outputs and offsets written, no commit, the process gone.
            batch = pollSome(consumer);
            producer.beginTransaction();
            producer.sendOffsetsToTransaction(transform(producer, batch), consumer.groupMetadata());
            producer.flush();
        }

        // The replacement: same transactional id and group; it fences the dead instance's transaction.
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED);
             KafkaProducer<String, String> producer = producer()) {
            consumer.subscribe(List.of(INPUT));
            producer.initTransactions();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!caughtUp(consumer, inputs) && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(200));
                if (batch.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(transform(producer, batch), consumer.groupMetadata());
                producer.commitTransaction();
            }
            assertTrue(caughtUp(consumer, inputs), "the replacement consumed every input");
        }

        List<String> output = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = reader()) {
            List<TopicPartition> outputs = List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1));
            reader.assign(outputs);
            reader.seekToBeginning(outputs);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (output.size() < INPUTS && System.nanoTime() < deadline) {
                reader.poll(Duration.ofMillis(200)).forEach(r -> output.add(r.value()));
            }
            reader.poll(Duration.ofMillis(300)).forEach(r -> output.add(r.value()));
        }
        assertEquals(INPUTS, output.size(), "one output per input");
        Set<String> distinct = new HashSet<>(output);
        assertEquals(INPUTS, distinct.size(), "no input transformed twice");
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < INPUTS / 2; i++) {
                assertTrue(distinct.contains("IN-" + p + "-" + i), "missing output of in-" + p + "-" + i);
            }
        }
    }

    private static boolean caughtUp(KafkaConsumer<String, String> consumer, Set<TopicPartition> inputs) {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(inputs, Duration.ofSeconds(10));
        long total = 0;
        for (OffsetAndMetadata o : committed.values()) {
            total += o == null ? 0 : o.offset();
        }
        return total == INPUTS;
    }

    /** Upper-cases each record to the same partition of the output; returns the offsets to commit. */
    private static Map<TopicPartition, OffsetAndMetadata> transform(KafkaProducer<String, String> producer,
                                                                   ConsumerRecords<String, String> batch) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, String> r : batch) {
            producer.send(new ProducerRecord<>(OUTPUT, r.partition(), r.key(), r.value().toUpperCase()));
            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        return offsets;
    }

    private static ConsumerRecords<String, String> pollSome(KafkaConsumer<String, String> consumer) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(200));
            if (!batch.isEmpty()) {
                return batch;
            }
        }
        throw new AssertionError("no input arrived");
    }

    private static KafkaProducer<String, String> producer() {
        return Clients.producer(KRILL.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, TXN_ID,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
    }

    private static KafkaConsumer<String, String> consumer(IsolationLevel isolation) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "30");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** A read_committed consumer outside any group. */
    private static KafkaConsumer<String, String> reader() {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** A consumer of the group that only looks at its committed offsets (it never joins). */
    private static KafkaConsumer<String, String> groupObserver(IsolationLevel isolation) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }
}
