package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stock Java AdminClient (kafka-clients 4.4) administers topics against Krill: create (with configs,
 * validate-only, and Kafka's errors), list and describe (DescribeCluster + DescribeTopicPartitions, by
 * name and by id, paged), grow, delete records, describe the cluster and log dirs, delete topics; and
 * a consumer's offsetsForTimes and position validation (OffsetForLeaderEpoch). Each test uses its own
 * topics. Configs are in {@link AdminConfigsTest}.
 */
class AdminApiTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        return Admin.create(props);
    }

    /** The cause of the failure of {@code future}, which must be a {@code type}. */
    static <T extends Throwable> T failure(Class<T> type, KafkaFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(type, e.getCause());
    }

    /**
     * OffsetCommit for a topic that does not exist is answered UNKNOWN_TOPIC_OR_PARTITION for each of its
     * partitions, as Kafka answers it, while the offsets of an existing topic in the same request commit.
     */
    @Test
    void offsetsOfATopicThatDoesNotExistAreNotCommitted() throws Exception {
        String group = "commits-to-nowhere";
        TopicPartition real = new TopicPartition("commit-target", 0);
        TopicPartition missing = new TopicPartition("no-such-topic-for-commits", 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(real.topic(), 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            var result = admin.alterConsumerGroupOffsets(group, Map.of(real, new OffsetAndMetadata(3),
                    missing, new OffsetAndMetadata(5)));
            result.partitionResult(real).get(30, TimeUnit.SECONDS);
            failure(UnknownTopicOrPartitionException.class, result.partitionResult(missing));
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertEquals(Map.of(real, new OffsetAndMetadata(3)), committed, "only the existing topic's offset");
        }
    }

    @Test
    void createsTopicsAndAnswersWithTheirShapeAndConfigs() throws Exception {
        try (Admin admin = admin()) {
            CreateTopicsResult created = admin.createTopics(List.of(new NewTopic("admin-created", 3, (short) 1)
                    .configs(Map.of("retention.ms", "3600000"))));
            created.all().get(60, TimeUnit.SECONDS);
            assertNotEquals(Uuid.ZERO_UUID, created.topicId("admin-created").get(60, TimeUnit.SECONDS));
            assertEquals(3, created.numPartitions("admin-created").get(60, TimeUnit.SECONDS));
            assertEquals(1, created.replicationFactor("admin-created").get(60, TimeUnit.SECONDS));
            assertEquals("3600000", created.config("admin-created").get(60, TimeUnit.SECONDS).get("retention.ms").value());
            assertEquals("delete", created.config("admin-created").get(60, TimeUnit.SECONDS).get("cleanup.policy").value());

            CreateTopicsResult defaults = admin.createTopics(List.of(new NewTopic("admin-defaults", Optional.empty(),
                    Optional.empty())));
            assertEquals(1, defaults.numPartitions("admin-defaults").get(60, TimeUnit.SECONDS), "num.partitions");
            assertTrue(admin.listTopics().names().get(60, TimeUnit.SECONDS).containsAll(Set.of("admin-created", "admin-defaults")));

            failure(TopicExistsException.class, admin.createTopics(List.of(new NewTopic("admin-created", 1, (short) 1))).all());
            InvalidConfigurationException bad = failure(InvalidConfigurationException.class, admin.createTopics(List.of(
                    new NewTopic("admin-bad-config", 1, (short) 1).configs(Map.of("retention.ms", "soon")))).all());
            assertTrue(bad.getMessage().contains("retention.ms"), bad.getMessage());
            failure(InvalidConfigurationException.class, admin.createTopics(List.of(
                    new NewTopic("admin-bad-config", 1, (short) 1).configs(Map.of("no.such.config", "1")))).all());
            failure(InvalidReplicationFactorException.class, admin.createTopics(List.of(
                    new NewTopic("admin-three-replicas", 1, (short) 3))).all());
            failure(InvalidPartitionsException.class, admin.createTopics(List.of(
                    new NewTopic("admin-no-partitions", 0, (short) 1))).all());
            assertFalse(admin.listTopics().names().get(60, TimeUnit.SECONDS).contains("admin-bad-config"));
        }
    }

    @Test
    void validateOnlyCreatesNothing() throws Exception {
        try (Admin admin = admin()) {
            CreateTopicsResult checked = admin.createTopics(List.of(new NewTopic("admin-validate-only", 2, (short) 1)),
                    new CreateTopicsOptions().validateOnly(true));
            checked.all().get(60, TimeUnit.SECONDS);
            assertEquals(2, checked.numPartitions("admin-validate-only").get(60, TimeUnit.SECONDS));
            assertFalse(admin.listTopics().names().get(60, TimeUnit.SECONDS).contains("admin-validate-only"));
            failure(InvalidConfigurationException.class, admin.createTopics(List.of(new NewTopic("admin-validate-only", 2,
                    (short) 1).configs(Map.of("cleanup.policy", "shred"))), new CreateTopicsOptions().validateOnly(true)).all());
        }
    }

    @Test
    void describesTopicsByNameAndIdAcrossPages() throws Exception {
        try (Admin admin = admin()) {
            Uuid id = admin.createTopics(List.of(new NewTopic("admin-described", 3, (short) 1))).topicId("admin-described").get(60, TimeUnit.SECONDS);
            TopicDescription byName = admin.describeTopics(List.of("admin-described"),
                    new DescribeTopicsOptions().partitionSizeLimitPerResponse(1)).allTopicNames().get(60, TimeUnit.SECONDS).get("admin-described");
            assertEquals(id, byName.topicId());
            assertFalse(byName.isInternal());
            assertEquals(3, byName.partitions().size(), "every partition, one page each");
            for (int p = 0; p < 3; p++) {
                TopicPartitionInfo info = byName.partitions().get(p);
                assertEquals(p, info.partition());
                assertEquals(1, info.leader().id());
                assertEquals(List.of(1), info.replicas().stream().map(Node::id).toList());
                assertEquals(List.of(1), info.isr().stream().map(Node::id).toList());
            }
            TopicDescription byId = admin.describeTopics(TopicCollection.ofTopicIds(List.of(id))).allTopicIds().get(60, TimeUnit.SECONDS).get(id);
            assertEquals("admin-described", byId.name());
            assertEquals(3, byId.partitions().size());

            failure(UnknownTopicOrPartitionException.class, admin.describeTopics(List.of("admin-never-created")).allTopicNames());
        }
    }

    @Test
    void growsTopics() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("admin-grown", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            admin.createPartitions(Map.of("admin-grown", NewPartitions.increaseTo(3))).all().get(60, TimeUnit.SECONDS);
            admin.createPartitions(Map.of("admin-grown", NewPartitions.increaseTo(5)),
                    new CreatePartitionsOptions().validateOnly(true)).all().get(60, TimeUnit.SECONDS);
            failure(InvalidPartitionsException.class,
                    admin.createPartitions(Map.of("admin-grown", NewPartitions.increaseTo(2))).all());
            failure(UnknownTopicOrPartitionException.class,
                    admin.createPartitions(Map.of("admin-not-there", NewPartitions.increaseTo(2))).all());
            assertEquals(3, admin.describeTopics(List.of("admin-grown")).allTopicNames().get(60, TimeUnit.SECONDS).get("admin-grown")
                    .partitions().size());
        }
        produce("admin-grown", 2, 3);
    }

    @Test
    void deleteRecordsMovesTheEarliestOffset() throws Exception {
        TopicPartition tp = new TopicPartition("admin-delete-records", 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(tp.topic(), 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            produce(tp.topic(), 0, 10);
            long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp).get(60, TimeUnit.SECONDS)
                    .lowWatermark();
            assertEquals(4, low);
            assertEquals(4, admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get(60, TimeUnit.SECONDS).offset());
            failure(OffsetOutOfRangeException.class, admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(11)))
                    .lowWatermarks().get(tp));
            try (KafkaConsumer<String, String> consumer = consumer("earliest")) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                List<ConsumerRecord<String, String>> records = poll(consumer, 6);
                assertEquals(4, records.get(0).offset());
                assertEquals("value-4", records.get(0).value());
            }
            assertEquals(10, admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1))).lowWatermarks().get(tp).get(60, TimeUnit.SECONDS)
                    .lowWatermark(), "-1 deletes up to the high watermark");
        }
    }

    @Test
    void describesTheCluster() throws Exception {
        try (Admin admin = admin()) {
            DescribeClusterResult cluster = admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));
            assertEquals(KRILL.broker().metadata().image().clusterId(), cluster.clusterId().get(60, TimeUnit.SECONDS));
            List<Node> nodes = new ArrayList<>(cluster.nodes().get(60, TimeUnit.SECONDS));
            assertEquals(1, nodes.size());
            assertEquals(1, nodes.get(0).id());
            assertEquals(KRILL.broker().boundAddresses().get(0).getPort(), nodes.get(0).port());
            assertEquals(1, cluster.controller().get(60, TimeUnit.SECONDS).id());
            assertTrue(cluster.authorizedOperations().get(60, TimeUnit.SECONDS).contains(AclOperation.DESCRIBE));
        }
    }

    @Test
    void describesLogDirs() throws Exception {
        TopicPartition tp = new TopicPartition("admin-log-dirs", 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(tp.topic(), 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            produce(tp.topic(), 0, 5);
            Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(1)).allDescriptions().get(60, TimeUnit.SECONDS).get(1);
            Path dataDir = Path.of(KRILL.broker().config().logDirs().get(0)).toAbsolutePath().normalize();
            LogDirDescription dir = dirs.get(dataDir.toString());
            assertNotNull(dir, "described: " + dirs.keySet());
            assertEquals(null, dir.error());
            ReplicaInfo replica = dir.replicaInfos().get(tp);
            assertTrue(replica.size() > 0, "size of " + tp);
            assertEquals(0, replica.offsetLag());
            assertFalse(replica.isFuture());
            assertTrue(dir.totalBytes().orElse(-1) > 0);
            assertTrue(dir.usableBytes().orElse(-1) > 0);
        }
    }

    @Test
    void deletesTopicsByNameAndIdAndTheirData() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("admin-deleted", 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            Uuid byId = admin.createTopics(List.of(new NewTopic("admin-deleted-by-id", 1, (short) 1)))
                    .topicId("admin-deleted-by-id").get(60, TimeUnit.SECONDS);
            produce("admin-deleted", 0, 3);
            Path dataDir = Path.of(KRILL.broker().config().logDirs().get(0));
            assertTrue(Files.isDirectory(dataDir.resolve("admin-deleted-0")));

            admin.deleteTopics(List.of("admin-deleted")).all().get(60, TimeUnit.SECONDS);
            admin.deleteTopics(TopicCollection.ofTopicIds(List.of(byId))).all().get(60, TimeUnit.SECONDS);
            Set<String> names = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            assertFalse(names.contains("admin-deleted"));
            assertFalse(names.contains("admin-deleted-by-id"));
            assertFalse(Files.exists(dataDir.resolve("admin-deleted-0")), "renamed for deletion at once");
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> dirsStartingWith(dataDir, "admin-deleted").isEmpty());

            failure(UnknownTopicOrPartitionException.class, admin.deleteTopics(List.of("admin-deleted")).all());
            failure(UnknownTopicIdException.class, admin.deleteTopics(TopicCollection.ofTopicIds(List.of(byId))).all());
        }
    }

    @Test
    void consumerLooksUpOffsetsByTimeAndValidatesItsPosition() throws Exception {
        TopicPartition tp = new TopicPartition("admin-times", 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(tp.topic(), 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        long base = System.currentTimeMillis() - 60_000;
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(tp.topic(), 0, base + i * 1000L, "key", "value-" + i)).get(60, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<String, String> consumer = consumer("none")) {
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(tp, base + 3500L));
            assertEquals(4, found.get(tp).offset());
            assertEquals(base + 4000L, found.get(tp).timestamp());

            // A position with a leader epoch is validated with OffsetForLeaderEpoch before fetching.
            consumer.assign(List.of(tp));
            consumer.seek(tp, new OffsetAndMetadata(6, Optional.of(0), ""));
            assertEquals(6, poll(consumer, 1).get(0).offset());
            consumer.seek(tp, new OffsetAndMetadata(50, Optional.of(0), ""));
            long deadline = System.currentTimeMillis() + 30_000;
            LogTruncationException truncation = null;
            while (truncation == null && System.currentTimeMillis() < deadline) {
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (LogTruncationException e) {
                    truncation = e;
                }
            }
            assertNotNull(truncation, "epoch 0 ends at offset 10, before the position 50");
            assertEquals(10, truncation.divergentOffsets().get(tp).offset());
        }
    }

    private static List<Path> dirsStartingWith(Path dataDir, String prefix) throws IOException {
        try (Stream<Path> entries = Files.list(dataDir)) {
            return entries.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    static KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put("bootstrap.servers", KRILL.bootstrapServers());
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Writes {@code count} records "value-i" to one partition and waits for every acknowledgement. */
    static void produce(String topic, int partition, int count) throws Exception {
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, "key", "value-" + i)).get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(String autoOffsetReset) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, autoOffsetReset);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static List<ConsumerRecord<String, String>> poll(KafkaConsumer<String, String> consumer, int atLeast) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 30_000;
        while (records.size() < atLeast && System.currentTimeMillis() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        assertTrue(records.size() >= atLeast, "read " + records.size() + " of " + atLeast);
        return records;
    }
}
