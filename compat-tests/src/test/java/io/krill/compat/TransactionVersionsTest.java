package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.FeatureCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transaction versions with the stock Kafka 4.4 client and tools: a new Krill finalizes
 * {@code transaction.version} 2, which the 4.4 producer takes up (KIP-890 part 2: the coordinator bumps
 * the epoch at every commit and abort, seen in DescribeTransactions); {@code kafka-features} describes,
 * downgrades and upgrades the level; and a cluster moved from version 1 to 2 while a transaction is open
 * finishes that transaction and runs the next ones on version 2, with read_committed readers seeing
 * exactly the committed records.
 */
class TransactionVersionsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "1")
            .with("transaction.state.log.num.partitions", "3")
            .with("offsets.topic.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    @AfterEach
    void backToVersionTwo() throws Exception {
        try (Admin admin = admin()) {
            admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 2,
                    FeatureUpdate.UpgradeType.UPGRADE)), new UpdateFeaturesOptions()).all().get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKafka44ProducerUsesVersionTwoEveryTransactionBumpsTheEpoch() throws Exception {
        try (Admin admin = admin()) {
            FinalizedVersionRange finalized = admin.describeFeatures().featureMetadata().get(60, TimeUnit.SECONDS)
                    .finalizedFeatures().get("transaction.version");
            assertEquals(2, finalized.maxVersionLevel(), "a new cluster runs transaction version 2");
        }
        String topic = "tv2-epochs";
        String id = "tv2-epochs-id";
        try (KafkaProducer<String, String> producer = transactional(id)) {
            producer.initTransactions();
            int initial = describe(id).producerEpoch();
            for (int txn = 0; txn < 4; txn++) {
                producer.beginTransaction();
                send(producer, topic, (txn == 2 ? "aborted-" : "committed-") + txn, 5);
                if (txn == 2) {
                    producer.flush();
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
            TransactionDescription after = describe(id);
            assertEquals(initial + 4, after.producerEpoch(), "one epoch bump per commit or abort (version 2)");
        }
        List<String> committed = readCommitted(topic, 15);
        assertEquals(15, committed.size(), committed.toString());
        assertTrue(committed.stream().allMatch(v -> v.startsWith("committed-")), committed.toString());
    }

    @Test
    void kafkaFeaturesDescribesDowngradesAndUpgrades() {
        Result described = features("describe").assertSuccess();
        String line = described.outLines().stream().filter(l -> l.contains("Feature: transaction.version"))
                .findFirst().orElseThrow(() -> new AssertionError(described.describe()));
        assertTrue(line.contains("SupportedMinVersion: 0") && line.contains("SupportedMaxVersion: 2")
                && line.contains("FinalizedVersionLevel: 2"), line);

        Result refusedDowngrade = features("upgrade", "--feature", "transaction.version=1");
        assertNotEquals(0, refusedDowngrade.exitCode(), "an upgrade to a lower level is refused: "
                + refusedDowngrade.describe());
        Result tooHigh = features("upgrade", "--feature", "transaction.version=3");
        assertNotEquals(0, tooHigh.exitCode(), tooHigh.describe());
        assertTrue(tooHigh.out().contains("only supports versions [0-2]") || tooHigh.err().contains("only supports"),
                tooHigh.describe());

        features("downgrade", "--feature", "transaction.version=1").assertSuccess();
        assertTrue(features("describe").outLines().stream().anyMatch(l -> l.contains("Feature: transaction.version")
                && l.contains("FinalizedVersionLevel: 1")), "downgraded");
        features("upgrade", "--feature", "transaction.version=2").assertSuccess();
        assertTrue(features("describe").outLines().stream().anyMatch(l -> l.contains("Feature: transaction.version")
                && l.contains("FinalizedVersionLevel: 2")), "upgraded back");
    }

    @Test
    void anUpgradeFromOneToTwoWithATransactionOpenLosesNothing() throws Exception {
        String topic = "tv-upgrade";
        setTransactionVersion(1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE);
        try (KafkaProducer<String, String> early = transactional("tv-upgrade-early")) {
            early.initTransactions();
            early.beginTransaction();
            send(early, topic, "committed-early-open", 5);
            early.flush();
            int openEpoch = describe("tv-upgrade-early").producerEpoch();

            setTransactionVersion(2, FeatureUpdate.UpgradeType.UPGRADE);
            early.commitTransaction();
            early.beginTransaction();
            send(early, topic, "aborted-early", 3);
            early.flush();
            early.abortTransaction();
            early.beginTransaction();
            send(early, topic, "committed-early-after", 4);
            early.commitTransaction();
            assertTrue(describe("tv-upgrade-early").producerEpoch() >= openEpoch, "the early producer is not fenced");

            try (KafkaProducer<String, String> late = transactional("tv-upgrade-late")) {
                late.initTransactions();
                int initial = describe("tv-upgrade-late").producerEpoch();
                for (int txn = 0; txn < 2; txn++) {
                    late.beginTransaction();
                    send(late, topic, "committed-late-" + txn, 3);
                    late.commitTransaction();
                }
                assertEquals(initial + 2, describe("tv-upgrade-late").producerEpoch(),
                        "a producer that starts after the upgrade runs version 2");
            }
        }
        List<String> committed = readCommitted(topic, 15);
        assertEquals(15, committed.size(), committed.toString());
        assertTrue(committed.stream().allMatch(v -> v.startsWith("committed-")), committed.toString());
        assertEquals(5, committed.stream().filter(v -> v.startsWith("committed-early-open")).count(),
                "the transaction open across the upgrade, whole");
    }

    private static void setTransactionVersion(int level, FeatureUpdate.UpgradeType type) throws Exception {
        try (Admin admin = admin()) {
            admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) level, type)),
                    new UpdateFeaturesOptions()).all().get(60, TimeUnit.SECONDS);
            await().atMost(TIMEOUT).until(() -> admin.describeFeatures().featureMetadata().get(60, TimeUnit.SECONDS)
                    .finalizedFeatures().get("transaction.version").maxVersionLevel() == level);
        }
    }

    private static Result features(String... command) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers()));
        args.addAll(List.of(command));
        return ToolRunner.run("kafka-features", FeatureCommand::main, TIMEOUT, args.toArray(String[]::new));
    }

    private static Admin admin() {
        return Admin.create(Clients.base(KRILL.bootstrapServers()));
    }

    private static TransactionDescription describe(String id) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeTransactions(List.of(id)).description(id).get(60, TimeUnit.SECONDS);
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

    /** Reads partition 0 with read_committed until {@code expected} records or 10 s without more; then a bit on. */
    private static List<String> readCommitted(String topic, int expected) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        TopicPartition tp = new TopicPartition(topic, 0);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
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
