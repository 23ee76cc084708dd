package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.Broker;
import io.krill.broker.config.BrokerConfig;
import io.krill.compat.support.Clients;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transactions on three in-process brokers sharing one ZooKeeper: the coordinator writes markers to
 * partition leaders on other brokers over the network, and when the coordinator's broker goes away right
 * after a commit was acknowledged, the broker that takes over its partition of
 * {@code __transaction_state} finishes the commit: every partition gets it, never some.
 */
class TransactionClusterTest {
    private static final String TOPIC = "cluster-txn";
    private static final String ID = "cluster-app";
    private Path dir;
    private EmbeddedZooKeeper zooKeeper;
    private final Map<Integer, Broker> brokers = new LinkedHashMap<>();

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("krill-txn-cluster");
        zooKeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 0);
        for (int id = 1; id <= 3; id++) {
            Map<String, String> props = new HashMap<>();
            props.put("node.id", Integer.toString(id));
            props.put("listeners", "PLAINTEXT://127.0.0.1:0");
            props.put("log.dirs", dir.resolve("broker-" + id).toString());
            props.put("zookeeper.connect", zooKeeper.connectString() + "/krill-txn");
            props.put("zookeeper.session.timeout.ms", "3000");
            props.put("num.io.threads", "2");
            props.put("num.network.threads", "2");
            props.put("default.replication.factor", "3");
            props.put("offsets.topic.replication.factor", "3");
            props.put("offsets.topic.num.partitions", "3");
            props.put("transaction.state.log.replication.factor", "3");
            props.put("transaction.state.log.num.partitions", "3");
            props.put("replica.lag.time.max.ms", "5000");
            props.put("group.initial.rebalance.delay.ms", "0");
            brokers.put(id, Broker.start(BrokerConfig.from(props)));
        }
    }

    @AfterEach
    void stop() {
        try {
            for (Broker broker : brokers.values()) {
                broker.close();
            }
            zooKeeper.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private String bootstrap() {
        return brokers.values().stream().map(b -> "127.0.0.1:" + b.boundAddresses().get(0).getPort())
                .collect(Collectors.joining(","));
    }

    @Test
    void markersCrossBrokersAndACommitSurvivesItsCoordinatorsBroker() throws Exception {
        Map<Integer, Integer> leaders = new HashMap<>();
        try (Admin admin = Admin.create(Clients.base(bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 3))).all().get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.describeTopics(List.of(TOPIC)).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get(TOPIC).partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == 3));
            for (TopicPartitionInfo p : admin.describeTopics(List.of(TOPIC)).allTopicNames().get(60, TimeUnit.SECONDS).get(TOPIC).partitions()) {
                leaders.put(p.partition(), p.leader().id());
            }
        }
        int expected = 0;
        KafkaProducer<String, String> producer = Clients.producer(bootstrap(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, ID,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000"));
        try {
            producer.initTransactions();
            for (int txn = 0; txn < 4; txn++) {
                producer.beginTransaction();
                send(producer, txn % 2 == 0 ? "committed-" + txn : "aborted-" + txn);
                if (txn % 2 == 0) {
                    producer.commitTransaction();
                    expected += 30;
                } else {
                    producer.abortTransaction();
                }
            }
            int coordinator = describe().coordinatorId();
            assertTrue(leaders.values().stream().anyMatch(l -> l != coordinator),
                    "some partition is led away from the coordinator " + coordinator + ": " + leaders);

            producer.beginTransaction();
            send(producer, "last");
            producer.commitTransaction();
            expected += 30;
            // Acknowledged once PrepareCommit is on the in-sync replicas; the markers may still be on their way.
            brokers.remove(coordinator).close();
        } finally {
            producer.close(Duration.ZERO);
        }

        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> describe().state() == TransactionState.COMPLETE_COMMIT);
        List<String> values = readCommitted(expected);
        assertEquals(expected, values.size(), "every committed record, from every partition");
        assertTrue(values.stream().noneMatch(v -> v.startsWith("aborted")), "no aborted record");
        assertEquals(30, values.stream().filter(v -> v.startsWith("last")).count(), "the last commit, whole");
        assertEquals(expected, new HashSet<>(values).size());
    }

    private static void send(KafkaProducer<String, String> producer, String prefix) {
        for (int p = 0; p < 3; p++) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(TOPIC, p, "k", prefix + "-" + p + "-" + i));
            }
        }
    }

    private TransactionDescription describe() throws Exception {
        try (Admin admin = Admin.create(Clients.base(bootstrap()))) {
            return admin.describeTransactions(List.of(ID)).description(ID).get(60, TimeUnit.SECONDS);
        }
    }

    private List<String> readCommitted(int expected) {
        Properties props = Clients.base(bootstrap());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            partitions.add(new TopicPartition(TOPIC, p));
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
            consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
        }
        return values;
    }
}
