package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.TransactionsCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kafka-transactions.sh (Kafka 4.4's {@code org.apache.kafka.tools.TransactionsCommand}) against an open
 * and a committed transaction: list and describe (ListTransactions, DescribeTransactions), describe-producers
 * (DescribeProducers), find-hanging, and abort by start offset (DescribeProducers, then WriteTxnMarkers
 * to the partition leader), after which read_committed consumers move past the aborted records.
 */
class TransactionsToolTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("transaction.state.log.num.partitions", "3")
            .with("offsets.topic.num.partitions", "3");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String TOPIC = "tool-txn";

    private static Result transactions(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers()));
        all.addAll(List.of(args));
        return ToolRunner.run("kafka-transactions", TransactionsCommand::main, TIMEOUT, all.toArray(String[]::new));
    }

    @Test
    void listDescribeDescribeProducersFindHangingAndAbort() {
        Clients.produce(KRILL.bootstrapServers(), TOPIC, 0, List.of("plain-0", "plain-1"));
        try (KafkaProducer<String, String> done = producer("tool-done-id")) {
            done.initTransactions();
            done.beginTransaction();
            done.send(new ProducerRecord<>(TOPIC, 0, "k", "committed"));
            done.commitTransaction();
        }
        KafkaProducer<String, String> open = producer("tool-open-id");
        try {
            open.initTransactions();
            open.beginTransaction();
            for (int i = 0; i < 3; i++) {
                open.send(new ProducerRecord<>(TOPIC, 0, "k", "open-" + i));
            }
            open.flush();
            // plain-0, plain-1, committed, its marker: the open transaction starts at offset 4.

            Result list = transactions("list").assertSuccess();
            assertEquals(List.of("TransactionalId", "Coordinator", "ProducerId", "TransactionState"),
                    columns(list.outLines().get(0)), list.describe());
            assertTrue(row(list, "tool-open-id").contains("Ongoing"), list.describe());
            assertTrue(row(list, "tool-done-id").contains("CompleteCommit"), list.describe());
            String producerId = columns(row(list, "tool-open-id")).get(2);

            Result describe = transactions("describe", "--transactional-id", "tool-open-id").assertSuccess();
            List<String> described = columns(row(describe, "tool-open-id"));
            assertEquals(producerId, described.get(2), describe.describe());
            assertEquals("Ongoing", described.get(4), describe.describe());
            assertTrue(described.get(described.size() - 1).contains(TOPIC + "-0"), describe.describe());

            Result producers = transactions("describe-producers", "--topic", TOPIC, "--partition", "0").assertSuccess();
            List<String> openProducer = columns(row(producers, producerId));
            assertEquals("4", openProducer.get(openProducer.size() - 1), "current transaction start offset: "
                    + producers.describe());

            Result hanging = transactions("find-hanging", "--broker-id", "1").assertSuccess();
            assertTrue(hanging.outLines().stream().noneMatch(l -> l.contains(producerId)),
                    "open for less than the maximum timeout, so not hanging: " + hanging.describe());

            assertEquals(4L, endOffset(IsolationLevel.READ_COMMITTED), "held back by the open transaction");
            transactions("abort", "--topic", TOPIC, "--partition", "0", "--start-offset", "4").assertSuccess();
            await().atMost(Duration.ofSeconds(10)).until(() -> endOffset(IsolationLevel.READ_COMMITTED) == 8L);
            Result after = transactions("describe-producers", "--topic", TOPIC, "--partition", "0").assertSuccess();
            List<String> aborted = columns(row(after, producerId));
            assertEquals("None", aborted.get(aborted.size() - 1), "no open transaction left: " + after.describe());
        } finally {
            open.close(Duration.ZERO);
        }
        assertEquals(List.of("plain-0", "plain-1", "committed"), readCommitted(3));
    }

    private static KafkaProducer<String, String> producer(String transactionalId) {
        return Clients.producer(KRILL.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
    }

    private static String row(Result result, String key) {
        return result.outLines().stream().filter(l -> columns(l).contains(key)).findFirst()
                .orElseThrow(() -> new AssertionError("no row with " + key + ":\n" + result.describe()));
    }

    private static List<String> columns(String line) {
        return List.of(line.trim().split("\\s+"));
    }

    private static KafkaConsumer<String, String> consumer(IsolationLevel isolation) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static long endOffset(IsolationLevel isolation) {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
            return consumer.endOffsets(List.of(tp)).get(tp);
        }
    }

    private static List<String> readCommitted(int expected) {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
            }
            consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
        }
        return values;
    }
}
