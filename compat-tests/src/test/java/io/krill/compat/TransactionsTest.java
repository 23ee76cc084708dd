package io.krill.compat;

import static org.awaitility.Awaitility.await;
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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactions with the stock Java client (kafka-clients 4.4, transaction protocol v1): committed
 * records are visible to read_committed consumers and aborted ones are not, while read_uncommitted
 * consumers see both; interleaved transactions of two producers on one partition; a second producer
 * with the same transactional id fences the first and aborts its open transaction.
 */
class TransactionsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("transaction.state.log.num.partitions", "5")
            .with("offsets.topic.num.partitions", "5")
            .with("group.initial.rebalance.delay.ms", "0")
            .with("transaction.max.timeout.ms", "60000")
            .with("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200");

    @Test
    void readCommittedSeesCommittedRecordsOnlyAndReadUncommittedSeesAll() {
        String topic = "txn-commit-abort";
        try (KafkaProducer<String, String> producer = transactional("txn-commit-abort-id")) {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, topic, "committed-a", 10);
            producer.commitTransaction();
            producer.beginTransaction();
            send(producer, topic, "aborted", 10);
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            send(producer, topic, "committed-b", 10);
            producer.commitTransaction();
        }
        List<String> committed = values(readAll(topic, IsolationLevel.READ_COMMITTED, 20));
        assertEquals(20, committed.size(), "read_committed: " + committed);
        assertTrue(committed.stream().allMatch(v -> v.startsWith("committed-")), committed.toString());
        List<String> all = values(readAll(topic, IsolationLevel.READ_UNCOMMITTED, 30));
        assertEquals(30, all.size(), "read_uncommitted: " + all);
        assertEquals(10, all.stream().filter(v -> v.startsWith("aborted")).count());
        // 30 records and 3 markers; every transaction ended, so the last stable offset is the end.
        assertEquals(33L, endOffset(topic, IsolationLevel.READ_COMMITTED));
        assertEquals(33L, endOffset(topic, IsolationLevel.READ_UNCOMMITTED));
    }

    @Test
    void anOpenTransactionHoldsBackReadCommittedAndListOffsets() throws Exception {
        String topic = "txn-open";
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("before-1", "before-2"));
        try (KafkaProducer<String, String> producer = transactional("txn-open-id")) {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, topic, "open", 5);
            producer.flush();
            assertEquals(2L, endOffset(topic, IsolationLevel.READ_COMMITTED), "LSO at the open transaction");
            assertEquals(7L, endOffset(topic, IsolationLevel.READ_UNCOMMITTED), "high watermark past it");
            assertEquals(List.of("before-1", "before-2"), values(readAll(topic, IsolationLevel.READ_COMMITTED, 2)));
            producer.commitTransaction();
        }
        assertEquals(7, readAll(topic, IsolationLevel.READ_COMMITTED, 7).size());
    }

    @Test
    void interleavedTransactionsOfTwoProducersOnOnePartition() {
        String topic = "txn-interleaved";
        try (KafkaProducer<String, String> first = transactional("txn-interleaved-1");
             KafkaProducer<String, String> second = transactional("txn-interleaved-2")) {
            first.initTransactions();
            second.initTransactions();
            first.beginTransaction();
            second.beginTransaction();
            for (int i = 0; i < 5; i++) {
                first.send(new ProducerRecord<>(topic, 0, "k", "first-" + i));
                first.flush();
                second.send(new ProducerRecord<>(topic, 0, "k", "second-" + i));
                second.flush();
            }
            first.abortTransaction();
            second.commitTransaction();
        }
        List<String> committed = values(readAll(topic, IsolationLevel.READ_COMMITTED, 5));
        assertEquals(List.of("second-0", "second-1", "second-2", "second-3", "second-4"), committed);
        assertEquals(10, readAll(topic, IsolationLevel.READ_UNCOMMITTED, 10).size());
    }

    @Test
    void aSecondProducerWithTheSameIdFencesTheFirstAndAbortsItsTransaction() {
        String topic = "txn-fencing";
        String id = "txn-fencing-id";
        KafkaProducer<String, String> zombie = transactional(id);
        try {
            zombie.initTransactions();
            zombie.beginTransaction();
            send(zombie, topic, "zombie", 5);
            zombie.flush();
            try (KafkaProducer<String, String> successor = transactional(id)) {
                successor.initTransactions();
                assertThrows(ProducerFencedException.class, zombie::commitTransaction);
                successor.beginTransaction();
                send(successor, topic, "successor", 3);
                successor.commitTransaction();
            }
        } finally {
            zombie.close(Duration.ZERO);
        }
        assertEquals(List.of("successor-0", "successor-1", "successor-2"),
                values(readAll(topic, IsolationLevel.READ_COMMITTED, 3)), "the zombie's open transaction was aborted");
        assertEquals(8, readAll(topic, IsolationLevel.READ_UNCOMMITTED, 8).size());
    }

    @Test
    void aFencedProducersLateWriteIsRefusedAndItsAbortFails() {
        String topic = "txn-fencing-late";
        String id = "txn-fencing-late-id";
        KafkaProducer<String, String> zombie = transactional(id);
        try {
            zombie.initTransactions();
            zombie.beginTransaction();
            send(zombie, topic, "zombie", 2);
            zombie.flush();
            try (KafkaProducer<String, String> successor = transactional(id)) {
                successor.initTransactions();
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> zombie.send(new ProducerRecord<>(topic, 0, "k", "late")).get(60, TimeUnit.SECONDS));
                assertTrue(refused.getCause() instanceof InvalidProducerEpochException,
                        "a write at the fenced epoch: " + refused.getCause());
                assertThrows(ProducerFencedException.class, zombie::abortTransaction);
            }
        } finally {
            zombie.close(Duration.ZERO);
        }
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("sentinel"));
        assertEquals(List.of("sentinel"), values(readAll(topic, IsolationLevel.READ_COMMITTED, 1)));
        assertEquals(List.of("zombie-0", "zombie-1", "sentinel"),
                values(readAll(topic, IsolationLevel.READ_UNCOMMITTED, 3)), "the late record never reached the log");
    }

    @Test
    void aTransactionOpenLongerThanItsTimeoutIsAbortedAndItsProducerFenced() {
        String topic = "txn-timeout";
        KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-timeout-id",
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "1000",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
        try {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, topic, "hanging", 3);
            producer.flush();
            assertEquals(0L, endOffset(topic, IsolationLevel.READ_COMMITTED), "held back while open");
            // The coordinator aborts it: three records and the abort marker, all stable.
            await().atMost(Duration.ofSeconds(20)).until(() -> endOffset(topic, IsolationLevel.READ_COMMITTED) == 4L);
            assertThrows(ProducerFencedException.class, producer::commitTransaction);
        } finally {
            producer.close(Duration.ZERO);
        }
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("sentinel"));
        assertEquals(List.of("sentinel"), values(readAll(topic, IsolationLevel.READ_COMMITTED, 1)));
        assertEquals(List.of("hanging-0", "hanging-1", "hanging-2", "sentinel"),
                values(readAll(topic, IsolationLevel.READ_UNCOMMITTED, 4)));
    }

    @Test
    void aTimeoutAboveTheBrokersMaximumIsRefused() {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-too-long",
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "120000",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"))) {
            // The 4.4 client reports INVALID_TRANSACTION_TIMEOUT as an unexpected error with its message.
            KafkaException refused = assertThrows(KafkaException.class, producer::initTransactions);
            assertTrue(refused.getMessage().contains(Errors.INVALID_TRANSACTION_TIMEOUT.message()), refused.toString());
        }
    }

    private static KafkaProducer<String, String> transactional(String transactionalId) {
        return Clients.producer(KRILL.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, 0, "k-" + i, prefix + "-" + i));
        }
    }

    static KafkaConsumer<String, String> consumer(IsolationLevel isolation) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** Reads partition 0 from the start until {@code expected} records or 10 s without more; then a bit on. */
    private static List<ConsumerRecord<String, String>> readAll(String topic, IsolationLevel isolation, int expected) {
        TopicPartition tp = new TopicPartition(topic, 0);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
            // Anything beyond what was expected would show up now.
            consumer.poll(Duration.ofMillis(300)).forEach(records::add);
        }
        return records;
    }

    private static long endOffset(String topic, IsolationLevel isolation) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
            return consumer.endOffsets(List.of(tp)).get(tp);
        }
    }

    private static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
