package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One broker on an embedded ZooKeeper: the MetadataStore contract, and what survives a crash of the node. */
class ZooKeeperMetadataStoreTest {
    private static final BrokerInfo SELF = new BrokerInfo(1, null,
            Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "localhost", 9092)));
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private static Errors errorOf(Runnable action) {
        return assertThrows(ApiException.class, action::run).error();
    }

    /** The value of a store's future, bounded (a future that never completes fails the test). */
    static <T> T done(CompletableFuture<T> future) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("the store's future failed or did not complete", e);
        }
    }

    /** The error of a store's future that must fail with an ApiException, bounded like {@link #done}. */
    static Errors failure(CompletableFuture<?> future) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> future.get(60, TimeUnit.SECONDS));
        return assertInstanceOf(ApiException.class, failed.getCause()).error();
    }

    private static final String CHROOT = "/krill/one";
    private static final String CLUSTER = "single";
    /** Broker 1's live-instance node (ephemeral, owned by its Helix session). */
    private static final String LIVE_INSTANCE = new ZkPaths(CLUSTER).liveInstances() + "/" + ZkPaths.instanceName(1);

    private static ZooKeeperStoreConfig config(EmbeddedZooKeeper zk) {
        return ZooKeeperStoreConfig.of(zk.connectString() + CHROOT, CLUSTER, 1).withSessionTimeoutMs(10_000);
    }

    /** A session of the test's own, to look at ZooKeeper's nodes directly. */
    private static ZkSession probe(EmbeddedZooKeeper zk) {
        return new ZkSession(zk.connectString() + CHROOT, 10_000, 10_000, new QuietZkListener());
    }

    @Test
    void topicsPartitionsAndConfigsFollowKafkasRules() {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(config(zk))) {
            assertTrue(store.isFenced(), "fenced until it joins");
            List<MetadataImage> images = new CopyOnWriteArrayList<>();
            store.addListener((previous, current) -> images.add(current));
            store.registerBroker(SELF);
            await().atMost(PATIENCE).until(() -> !store.isFenced());
            assertEquals(1, store.image().controllerId());
            assertEquals(SELF, store.image().broker(1));
            BrokerInfo moved = new BrokerInfo(1, "rack-a",
                    Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "localhost", 19092)));
            store.registerBroker(moved);
            assertEquals(moved, store.image().broker(1), "re-registered with new endpoints");

            store.checkCreateTopic(NewTopic.of("orders", 3, 1));
            assertNull(store.image().topic("orders"), "validation only");
            TopicImage orders = store.createTopic(new NewTopic("orders", 3, 1, Map.of(), Map.of("retention.ms", "5"), false));
            assertEquals(orders, store.image().topic("orders"), "visible when the call returns");
            assertEquals(Errors.TOPIC_ALREADY_EXISTS, errorOf(() -> store.createTopic(NewTopic.of("orders", 1, 1))));
            assertEquals(Errors.INVALID_TOPIC_EXCEPTION, errorOf(() -> store.createTopic(NewTopic.of("bad name", 1, 1))));
            assertEquals(Errors.INVALID_REPLICATION_FACTOR, errorOf(() -> store.createTopic(NewTopic.of("two", 1, 2))));
            assertEquals(Errors.INVALID_PARTITIONS, errorOf(() -> store.createTopic(NewTopic.of("none", 0, 1))));
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, errorOf(() -> store.createTopic(
                    new NewTopic("elsewhere", -1, -1, Map.of(0, List.of(7)), Map.of(), false))));
            assertEquals(Errors.INVALID_PARTITIONS, errorOf(() -> store.createPartitions("orders", 2, List.of())));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, errorOf(() -> store.createPartitions("nope", 2, List.of())));
            TopicImage defaults = store.createTopic(NewTopic.of("defaults", -1, -1));
            assertEquals(1, defaults.partitionCount());

            assertTrue(orders.partitions().stream().allMatch(p -> p.leader() == 1 && p.leaderEpoch() == 0),
                    "the first live replica leads from creation, as with Kafka's controller");
            assertEquals(0, store.controllerPass(), "the controller finds nothing to change in a new topic");
            assertTrue(store.image().topic("orders").partitions().stream().allMatch(p -> p.leaderEpoch() == 0),
                    "nothing rewrote the records after their creation");
            TopicImage grown = store.createPartitions("orders", 5, List.of(List.of(1), List.of(1)));
            assertEquals(5, grown.partitionCount());
            await().atMost(PATIENCE).until(() -> store.image().topic("orders").partition(4).leader() == 1);
            TopicImage compacted = done(store.alterTopicConfigsAsync("orders", current -> Map.of("cleanup.policy", "compact")));
            assertEquals(Map.of("cleanup.policy", "compact"), compacted.configs());
            assertEquals(compacted, store.image().topic("orders"), "visible when the future completes");
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, failure(store.alterTopicConfigsAsync("nope", current -> current)));

            // ISR changes that break the rules are refused before any write.
            PartitionState p0 = store.image().topic("orders").partition(0);
            assertEquals(Errors.INVALID_REQUEST, errorOf(() -> store.alterPartition("orders", p0, p0.withIsr(List.of()))));
            assertEquals(Errors.INVALID_REQUEST, errorOf(() -> store.alterPartition("orders", p0, p0.withLeader(1, List.of(1)))));

            store.deleteTopic("orders");
            assertNull(store.image().topic("orders"));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, errorOf(() -> store.deleteTopic("orders")));
            assertTrue(images.size() > 5, "listeners saw the changes: " + images.size());
            assertEquals(0, store.listenerFailures());
        }
    }

    @Test
    void metadataSurvivesACrashOfTheWholeNodeAndTheRestartFindsNoStaleLiveInstance() throws Exception {
        Path zkData = dir.resolve("zk");
        TopicImage kept;
        long firstIds;
        String clusterId;
        long crashedOwner;
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(zkData, 0);
        try (ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(config(zk))) {
            store.registerBroker(SELF);
            kept = store.createTopic(new NewTopic("kept", 2, 1, Map.of(), Map.of("retention.ms", "7"), false));
            // Leaders from creation.
            assertTrue(store.image().topic("kept").partitions().stream().allMatch(PartitionState::hasLeader));
            kept = store.image().topic("kept");
            firstIds = store.allocateProducerIds(100);
            // the first entity config of the cluster: its node's parent is created with it
            done(store.updateEntityConfigsAsync("", current -> Map.of("log.retention.ms", "5")));
            done(store.updateEntityConfigsAsync("1", current -> Map.of("log.segment.bytes", "2000000")));
            assertEquals(Map.of("log.retention.ms", "5"), store.image().entityConfigs(""),
                    "visible when the future completes");
            clusterId = store.image().clusterId();
            try (ZkSession probe = probe(zk)) {
                Stat live = probe.call(z -> z.exists(LIVE_INSTANCE, false));
                assertNotNull(live, "the registered broker's live instance");
                crashedOwner = live.getEphemeralOwner();
            }
            zk.close(); // the node dies: ZooKeeper first, the store finds it gone (fenced, no resignation)
            await().atMost(PATIENCE).until(store::isFenced);
        }

        try (EmbeddedZooKeeper restarted = EmbeddedZooKeeper.start(zkData, 0);
             ZkSession probe = probe(restarted)) {
            assertEquals(2, restarted.closedStaleSessions(), "the store's and Helix's sessions");
            // Helix makes a joining participant wait (session timeout + 5 s) for a live instance of the
            // same name to go: the crashed broker's went with its session before any client connected.
            assertNull(probe.call(z -> z.exists(LIVE_INSTANCE, false)),
                    "the crashed broker's live instance is gone when the restarted ZooKeeper accepts clients");
            try (ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(config(restarted).withClusterId(clusterId))) {
                store.registerBroker(SELF);
                Stat live = probe.call(z -> z.exists(LIVE_INSTANCE, false));
                assertNotNull(live, "registered: the live instance is back");
                assertNotEquals(crashedOwner, live.getEphemeralOwner(), "owned by the new Helix session");
                await().atMost(PATIENCE).until(() -> !store.isFenced());
                TopicImage again = store.image().topic("kept");
                assertEquals(kept.id(), again.id());
                assertEquals(kept.configs(), again.configs());
                assertTrue(store.allocateProducerIds(100) >= firstIds + 100, "producer ids are never reused");
                assertEquals(Map.of("log.retention.ms", "5"), store.image().entityConfigs(""));
                assertEquals(Map.of("log.segment.bytes", "2000000"), store.image().entityConfigs("1"));
                // The restarted broker resigned (it stayed in the ISR as its last member) and leads again, later.
                TopicImage before = kept;
                await().atMost(PATIENCE).untilAsserted(() -> {
                    for (PartitionState p : store.image().topic("kept").partitions()) {
                        assertEquals(1, p.leader());
                        assertTrue(p.leaderEpoch() > before.partition(p.partition()).leaderEpoch() + 1);
                    }
                });
                assertThrows(IllegalStateException.class,
                        () -> new ZooKeeperMetadataStore(config(restarted).withClusterId("another-cluster")));
            }
        }
    }

    @Test
    @Timeout(120)
    void configChangesFailWithRequestTimedOutWhenZooKeeperIsGoneRatherThanHang() {
        long operationTimeoutMs = 2_000;
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
        boolean zkClosed = false;
        try (ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(config(zk).withOperationTimeoutMs(operationTimeoutMs))) {
            store.registerBroker(SELF);
            store.createTopic(NewTopic.of("t", 1, 1));
            zk.close();
            zkClosed = true;
            await().atMost(PATIENCE).until(store::isFenced); // the store's connection is gone
            CompletableFuture<Map<String, String>> entity = store.updateEntityConfigsAsync("users/alice",
                    current -> Map.of("producer_byte_rate", "1"));
            CompletableFuture<TopicImage> topic = store.alterTopicConfigsAsync("t", current -> Map.of("retention.ms", "1"));
            assertFalse(entity.isDone() || topic.isDone(), "nothing answered without ZooKeeper");
            // Bounded by the operation timeout (plus ZooKeeper's reconnection pause); the get's bound only
            // turns a hang into a failure.
            for (CompletableFuture<?> future : List.of(entity, topic)) {
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> future.get(4 * operationTimeoutMs, TimeUnit.MILLISECONDS));
                ApiException error = assertInstanceOf(ApiException.class, failed.getCause());
                assertEquals(Errors.REQUEST_TIMED_OUT, error.error(), error.getMessage());
                assertTrue(error.error().isRetriable(), "clients retry");
            }
        } finally {
            if (!zkClosed) {
                zk.close();
            }
        }
    }
}
