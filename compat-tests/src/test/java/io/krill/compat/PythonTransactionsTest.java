package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.compat.support.Clients;
import io.krill.compat.support.GroupOffsetsTool;
import io.krill.compat.support.IsolatedRead;
import io.krill.compat.support.Python;
import io.krill.compat.support.TransactionApis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * confluent-kafka-python's transactional producer (init, begin, commit, abort) and its read_committed
 * consumer, each judged by the other client: the stock Java consumer reads what python committed, the
 * python consumer reads what a Java transactional producer committed and aborted; and a python
 * consume-transform-produce loop that commits its group's offsets in its transactions
 * (send_offsets_to_transaction). Skipped only without confluent_kafka; a broker that does not advertise the
 * transaction APIs fails it.
 */
class PythonTransactionsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("offsets.topic.num.partitions", "3")
            .with("transaction.state.log.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final List<String> COMMITTED = Stream.concat(values("committed-a"), values("committed-b")).toList();
    private static final List<String> ALL = Stream.of(values("committed-a"), values("aborted"), values("committed-b"))
            .flatMap(s -> s).toList();

    @TempDir
    static Path tmp;
    static Python python;

    @BeforeAll
    static void confluentKafka() {
        python = Python.withScript("confluent_txn.py", tmp);
    }

    /** Per test: each one fails, naming the missing APIs, if the broker does not advertise transactions. */
    @BeforeEach
    void transactionsAdvertised() {
        TransactionApis.assertServed(KRILL.apis());
    }

    @Test
    void pythonCommitsAndAbortsJavaReadCommittedSeesTheCommittedOnly() {
        String topic = "py-txn";
        List<String> ends = python.run(TIMEOUT, "produce", KRILL.bootstrapServers(), topic, "py-txn-id").outLines();
        assertEquals(List.of("committed 10", "aborted 10", "committed 10"), ends);

        assertEquals(COMMITTED, javaRead(topic, "read_committed"));
        assertEquals(ALL, javaRead(topic, "read_uncommitted"));
        assertEquals(withEnd(COMMITTED), pythonRead(topic, "read_committed"));
        assertEquals(withEnd(ALL), pythonRead(topic, "read_uncommitted"));
    }

    @Test
    void pythonReadCommittedSkipsWhatAJavaProducerAborted() throws Exception {
        String topic = "java-txn";
        Map<String, String> config = Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "java-txn-id");
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), config)) {
            producer.initTransactions();
            for (String prefix : List.of("committed-a", "aborted", "committed-b")) {
                producer.beginTransaction();
                values(prefix).forEach(v -> producer.send(new ProducerRecord<>(topic, 0, "k", v)));
                if (prefix.equals("aborted")) {
                    producer.flush();
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        assertEquals(withEnd(COMMITTED), pythonRead(topic, "read_committed"));
        assertEquals(withEnd(ALL), pythonRead(topic, "read_uncommitted"));
    }

    @Test
    void consumeTransformProduceCommitsOutputAndOffsetsTogether() {
        String source = "py-ctp-in";
        String target = "py-ctp-out";
        String group = "py-ctp-group";
        List<String> lines = IntStream.range(0, 50).mapToObj(i -> "line-" + i).toList();
        Clients.produce(KRILL.bootstrapServers(), source, 0, lines);
        Clients.autoCreate(KRILL.bootstrapServers(), target);

        List<String> commits = python.run(TIMEOUT, "transform", KRILL.bootstrapServers(), source, target, group,
                "py-ctp-id", String.valueOf(lines.size())).outLines();
        assertEquals(lines.size(), commits.stream().mapToInt(l -> Integer.parseInt(l.substring("committed ".length())))
                .sum(), commits.toString());

        assertEquals(lines.stream().map(l -> l.toUpperCase(Locale.ROOT)).toList(), javaRead(target, "read_committed"));
        assertEquals(new GroupOffsetsTool.Row(50, 50, 0),
                GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, source).get(0),
                "the group's offsets committed by the transactions");
    }

    private static Stream<String> values(String prefix) {
        return IntStream.range(0, 10).mapToObj(i -> prefix + "-" + i);
    }

    private static List<String> withEnd(List<String> values) {
        List<String> lines = new ArrayList<>(values);
        lines.add("end");
        return lines;
    }

    private static List<String> pythonRead(String topic, String isolation) {
        return python.run(TIMEOUT, "read", KRILL.bootstrapServers(), topic, isolation).outLines();
    }

    private static List<String> javaRead(String topic, String isolation) {
        return IsolatedRead.values(KRILL.bootstrapServers(), topic, 0, isolation);
    }
}
