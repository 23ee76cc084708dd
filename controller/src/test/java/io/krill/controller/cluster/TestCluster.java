package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Brokers in one JVM, each with its own store (Helix participant and controller candidate), on one
 * embedded ZooKeeper: for tests that need a cluster but no network faults (ClusterTest has those).
 * Brokers can be stopped (a controlled shutdown) and started again. Closing stops every broker, then
 * ZooKeeper.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class TestCluster implements AutoCloseable {
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private final EmbeddedZooKeeper zk;
    private final String clusterName;
    private final UnaryOperator<ZooKeeperStoreConfig> configure;
    private final Map<Integer, ZooKeeperMetadataStore> stores = new TreeMap<>();

    private TestCluster(EmbeddedZooKeeper zk, String clusterName, UnaryOperator<ZooKeeperStoreConfig> configure) {
        this.zk = zk;
        this.clusterName = clusterName;
        this.configure = configure;
    }

    /** Starts brokers 1..{@code brokers} at once and waits until every one sees all of them, unfenced. */
    static TestCluster start(Path dir, String clusterName, int brokers, UnaryOperator<ZooKeeperStoreConfig> configure)
            throws Exception {
        TestCluster cluster = new TestCluster(EmbeddedZooKeeper.start(dir.resolve("zk"), 0), clusterName, configure);
        try {
            ExecutorService starting = Executors.newFixedThreadPool(brokers);
            try {
                List<Future<ZooKeeperMetadataStore>> started = new ArrayList<>();
                for (int id = 1; id <= brokers; id++) {
                    int nodeId = id;
                    started.add(starting.submit(() -> cluster.newStore(nodeId)));
                }
                for (Future<ZooKeeperMetadataStore> future : started) {
                    ZooKeeperMetadataStore store = future.get(60, TimeUnit.SECONDS);
                    cluster.stores.put(store.nodeId(), store);
                }
            } finally {
                starting.shutdownNow();
            }
            cluster.awaitAllSeeEachOther();
            return cluster;
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }

    private ZooKeeperMetadataStore newStore(int nodeId) {
        return newStore(nodeId, false);
    }

    private ZooKeeperMetadataStore newStore(int nodeId, boolean restartedUncleanly) {
        ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(configure.apply(
                ZooKeeperStoreConfig.of(zk.connectString() + "/krill", clusterName, nodeId)
                        .withSessionTimeoutMs(4_000).withOperationTimeoutMs(5_000)));
        store.registerBroker(broker(nodeId), restartedUncleanly);
        return store;
    }

    static BrokerInfo broker(int id) {
        return new BrokerInfo(id, null, Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "broker" + id, 9090 + id)));
    }

    ZooKeeperMetadataStore store(int nodeId) {
        ZooKeeperMetadataStore store = stores.get(nodeId);
        if (store == null) {
            throw new IllegalStateException("broker " + nodeId + " is not running");
        }
        return store;
    }

    /** A controlled shutdown of one broker: it resigns its leaderships and leaves the ISRs. */
    void stop(int nodeId) {
        stores.remove(nodeId).close();
        await().atMost(PATIENCE).until(() -> stores.values().stream()
                .allMatch(s -> s.image().broker(nodeId) == null));
    }

    /** A crash of one broker: no resignation; the others notice when its session expires. */
    void crash(int nodeId) {
        stores.remove(nodeId).abandon();
    }

    /** The running brokers. */
    java.util.Set<Integer> running() {
        return java.util.Set.copyOf(stores.keySet());
    }

    void restart(int nodeId) {
        restart(nodeId, false);
    }

    /** Starts broker {@code nodeId} again, telling its store whether its previous run ended uncleanly. */
    void restart(int nodeId, boolean uncleanly) {
        stores.put(nodeId, newStore(nodeId, uncleanly));
        awaitAllSeeEachOther();
    }

    private void awaitAllSeeEachOther() {
        await().atMost(PATIENCE).until(() -> stores.values().stream().allMatch(s -> !s.isFenced()
                && s.image().brokers().size() == stores.size() && s.image().controllerId() > 0));
    }

    /** The partition as every running broker sees it, once all agree and {@code condition} holds. */
    PartitionState awaitPartition(String topic, int partition, Predicate<PartitionState> condition) {
        PartitionState[] agreed = new PartitionState[1];
        await().atMost(PATIENCE).until(() -> {
            PartitionState first = null;
            for (ZooKeeperMetadataStore store : stores.values()) {
                TopicImage image = store.image().topic(topic);
                PartitionState state = image == null ? null : image.partition(partition);
                if (state == null || !condition.test(state) || (first != null && !first.equals(state))) {
                    return false;
                }
                first = state;
            }
            agreed[0] = first;
            return true;
        });
        return agreed[0];
    }

    /**
     * Waits until broker {@code nodeId}'s own image gives it {@code role} in the partition: LEADER,
     * FOLLOWER (a replica that does not lead), or null (not a replica).
     */
    void awaitRole(int nodeId, String topic, int partition, String role) {
        await().atMost(PATIENCE).until(() -> Objects.equals(role, roleOf(nodeId, topic, partition)));
    }

    private String roleOf(int nodeId, String topic, int partition) {
        TopicImage image = store(nodeId).image().topic(topic);
        PartitionState state = image == null ? null : image.partition(partition);
        if (state == null || !state.replicas().contains(nodeId)) {
            return null;
        }
        return state.leader() == nodeId ? "LEADER" : "FOLLOWER";
    }

    @Override
    public void close() {
        for (ZooKeeperMetadataStore store : stores.values()) {
            store.close();
        }
        stores.clear();
        zk.close();
    }
}
