package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.ConsumerGroupRestartTest.RestartableBroker;
import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transaction coordinator's state is records of {@code __transaction_state}: after a broker restart
 * the transactional id keeps its producer id and epoch and its open transaction, a committed
 * transaction's offsets are still the group's, and the next producer with the id fences the old epoch
 * and aborts the transaction the restart left open.
 */
class TransactionRestartTest {
    private static final String TOPIC = "restart-txn";
    private static final String ID = "restart-txn-id";
    private static final String GROUP = "restart-txn-group";
    private RestartableBroker krill;

    @BeforeEach
    void start() throws Exception {
        krill = new RestartableBroker(Map.of("num.partitions", "1", "transaction.state.log.num.partitions", "3",
                "offsets.topic.num.partitions", "3", "group.initial.rebalance.delay.ms", "0"));
    }

    @AfterEach
    void stop() {
        krill.close();
    }

    @Test
    void coordinatorStateAndTransactionalOffsetsSurviveARestart() throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        KafkaProducer<String, String> first = producer();
        try {
            first.initTransactions();
            first.beginTransaction();
            send(first, "committed", 5);
            first.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(5, "five")),
                    new ConsumerGroupMetadata(GROUP));
            first.commitTransaction();
            first.beginTransaction();
            send(first, "open", 3);
            first.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(8)), new ConsumerGroupMetadata(GROUP));
            first.flush();
        } finally {
            first.close(Duration.ZERO);
        }
        TransactionDescription before = describe();
        assertEquals(TransactionState.ONGOING, before.state());
        assertEquals(List.of(tp), new ArrayList<>(before.topicPartitions()).stream()
                .filter(p -> p.topic().equals(TOPIC)).toList());

        krill.restart();

        TransactionDescription after = describe();
        assertEquals(TransactionState.ONGOING, after.state(), "the open transaction survived");
        assertEquals(before.producerId(), after.producerId());
        assertEquals(before.producerEpoch(), after.producerEpoch());
        try (Admin admin = Admin.create(Clients.base(krill.bootstrapServers()))) {
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS)
                    .get(tp);
            assertEquals(5L, committed.offset(), "the committed transaction's offset, not the open one's");
            assertEquals("five", committed.metadata());
        }

        try (KafkaProducer<String, String> second = producer()) {
            second.initTransactions();
            second.beginTransaction();
            send(second, "after", 2);
            second.commitTransaction();
        }
        TransactionDescription done = describe();
        assertEquals(TransactionState.COMPLETE_COMMIT, done.state());
        assertEquals(before.producerId(), done.producerId());
        assertTrue(done.producerEpoch() >= before.producerEpoch() + 2,
                "fenced once to abort the open transaction, bumped once for the new producer: " + done.producerEpoch());

        assertEquals(List.of("committed-0", "committed-1", "committed-2", "committed-3", "committed-4", "after-0",
                "after-1"), read(IsolationLevel.READ_COMMITTED, 7));
        assertEquals(10, read(IsolationLevel.READ_UNCOMMITTED, 10).size());
        try (Admin admin = Admin.create(Clients.base(krill.bootstrapServers()))) {
            assertEquals(5L, admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS)
                    .get(tp).offset(), "the aborted transaction's offset was dropped");
        }
    }

    private TransactionDescription describe() throws Exception {
        try (Admin admin = Admin.create(Clients.base(krill.bootstrapServers()))) {
            return admin.describeTransactions(List.of(ID)).description(ID).get(60, TimeUnit.SECONDS);
        }
    }

    private KafkaProducer<String, String> producer() {
        return Clients.producer(krill.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, ID,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
    }

    private static void send(KafkaProducer<String, String> producer, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", prefix + "-" + i));
        }
    }

    private List<String> read(IsolationLevel isolation, int expected) {
        Properties props = Clients.base(krill.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
            }
            consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
        }
        return values;
    }
}
