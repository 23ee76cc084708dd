package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in one JVM, each with its own store, Helix participant and controller candidate,
 * on one embedded ZooKeeper; each reaches ZooKeeper through its own {@link TcpProxy}, so that a
 * broker can be cut off the network and its sessions expire as after a real partition.
 */
class ClusterTest {
    // Short, so that the cut-off broker's session expires soon; not so short that the other brokers' sessions
    // expire too on a loaded 2-core machine (with 2 s, all three timed out together at load 5-7 and the
    // survivors' leaderships moved, which this test reads as a failure).
    private static final int SESSION_TIMEOUT_MS = 4_000;
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private EmbeddedZooKeeper zk;
    private final Map<Integer, TcpProxy> proxies = new HashMap<>();
    private final Map<Integer, ZooKeeperMetadataStore> stores = new TreeMap<>();

    @BeforeEach
    void startCluster(TestInfo test) throws Exception {
        // A cluster name per test: Helix keeps some state per cluster name in static maps.
        String cluster = "krill-" + test.getTestMethod().orElseThrow().getName().hashCode();
        zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
        for (int id = 1; id <= 3; id++) {
            proxies.put(id, new TcpProxy(zk.port()));
        }
        // All three start at once: the cluster set-up is serialised by its lock.
        ExecutorService starting = Executors.newFixedThreadPool(3);
        try {
            List<Future<ZooKeeperMetadataStore>> started = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                int nodeId = id;
                started.add(starting.submit(() -> {
                    ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(
                            ZooKeeperStoreConfig.of(proxies.get(nodeId).connectString() + "/krill", cluster, nodeId)
                                    .withClusterId("krill-test-cluster").withSessionTimeoutMs(SESSION_TIMEOUT_MS)
                                    .withOperationTimeoutMs(5_000));
                    store.registerBroker(broker(nodeId));
                    return store;
                }));
            }
            for (Future<ZooKeeperMetadataStore> future : started) {
                ZooKeeperMetadataStore store = future.get(60, TimeUnit.SECONDS);
                stores.put(store.nodeId(), store);
            }
        } finally {
            starting.shutdownNow();
        }
        await().atMost(PATIENCE).until(() -> stores.values().stream().allMatch(s -> s.image().brokers().size() == 3
                && s.image().controllerId() > 0 && !s.isFenced()));
    }

    @AfterEach
    void stopCluster() throws IOException {
        for (ZooKeeperMetadataStore store : stores.values()) {
            store.close();
        }
        for (TcpProxy proxy : proxies.values()) {
            proxy.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private static BrokerInfo broker(int id) {
        return new BrokerInfo(id, "rack-" + id,
                Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "broker" + id, 9090 + id)));
    }

    @Test
    void leadersSpreadImagesConvergeAndStaleWritesFail() throws Exception {
        ZooKeeperMetadataStore any = stores.get(2);
        TopicImage created = any.createTopic(NewTopic.of("orders", 6, 3));
        assertEquals(6, created.partitionCount());
        awaitLeaders("orders");

        // Leaders spread over the three brokers: each is the preferred (first) replica of two.
        Map<Integer, Integer> led = new TreeMap<>();
        for (PartitionState p : any.image().topic("orders").partitions()) {
            led.merge(p.leader(), 1, Integer::sum);
            assertEquals(p.replicas().get(0), p.leader(), "the preferred replica leads " + p);
            assertEquals(3, p.isr().size());
        }
        assertEquals(Map.of(1, 2, 2, 2, 3, 2), led);
        awaitSameImages();
        assertEquals("krill-test-cluster", any.image().clusterId());
        assertEquals(new BrokerInfo.Endpoint("PLAINTEXT", "broker3", 9093), any.image().broker(3).endpoint("PLAINTEXT"));
        assertEquals("rack-3", any.image().broker(3).rack());

        // RF above the live brokers, explicit assignments, configs, growth.
        assertEquals(Errors.INVALID_REPLICATION_FACTOR,
                assertThrows(ApiException.class, () -> any.createTopic(NewTopic.of("wide", 1, 4))).error());
        TopicImage placed = stores.get(3).createTopic(new NewTopic("placed", -1, -1,
                Map.of(0, List.of(3, 1), 1, List.of(1, 2)), Map.of("cleanup.policy", "compact"), false));
        assertEquals(List.of(3, 1), placed.partition(0).replicas());
        assertEquals(List.of(1, 2), placed.partition(1).replicas());
        TopicImage grown = stores.get(1).createPartitions("placed", 3, List.of());
        assertEquals(3, grown.partitionCount());
        assertEquals(2, grown.partition(2).replicas().size());
        ZooKeeperMetadataStoreTest.done(stores.get(1).alterTopicConfigsAsync("placed",
                current -> Map.of("retention.ms", "1000")));
        awaitLeaders("placed");
        awaitSameImages();
        assertEquals(Map.of("retention.ms", "1000"), stores.get(2).image().topic("placed").configs());
        stores.get(2).deleteTopic("placed");
        awaitSameImages();
        assertTrue(stores.values().stream().allMatch(s -> s.image().topic("placed") == null));

        // The ISR changes only by compare-and-set on the partition epoch.
        PartitionState before = any.image().topic("orders").partition(0);
        ZooKeeperMetadataStore leader = stores.get(before.leader());
        List<Integer> shrunk = new ArrayList<>(before.isr());
        shrunk.remove(Integer.valueOf(before.replicas().get(2)));
        PartitionState after = leader.alterPartition("orders", before, before.withIsr(shrunk));
        assertEquals(before.partitionEpoch() + 1, after.partitionEpoch());
        assertEquals(shrunk, after.isr());
        assertEquals(Errors.INVALID_UPDATE_VERSION, assertThrows(ApiException.class,
                () -> leader.alterPartition("orders", before, before.withIsr(before.isr()))).error(),
                "a stale partition epoch loses");
        PartitionState oldEpoch = new PartitionState(0, before.leader(), before.leaderEpoch() - 1, before.replicas(),
                before.isr(), after.partitionEpoch());
        assertEquals(Errors.FENCED_LEADER_EPOCH, assertThrows(ApiException.class,
                () -> leader.alterPartition("orders", oldEpoch, oldEpoch.withIsr(before.isr()))).error(),
                "a stale leader epoch is fenced");
        PartitionState expanded = leader.alterPartition("orders", after, after.withIsr(before.isr()));
        assertEquals(before.isr(), expanded.isr());
        awaitSameImages();
        assertEquals(expanded, stores.get(1).image().topic("orders").partition(0));

        // Producer-id blocks are unique across brokers and threads.
        ConcurrentLinkedQueue<Long> firsts = new ConcurrentLinkedQueue<>();
        ExecutorService allocating = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (ZooKeeperMetadataStore store : stores.values()) {
                for (int t = 0; t < 2; t++) {
                    done.add(allocating.submit(() -> {
                        for (int i = 0; i < 20; i++) {
                            firsts.add(store.allocateProducerIds(10));
                        }
                    }));
                }
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            allocating.shutdownNow();
        }
        List<Long> sorted = new ArrayList<>(firsts);
        sorted.sort(Comparator.naturalOrder());
        assertEquals(120, sorted.size());
        for (int i = 1; i < sorted.size(); i++) {
            assertTrue(sorted.get(i) >= sorted.get(i - 1) + 10, "blocks overlap: " + sorted);
        }
    }

    @Test
    void aCutOffBrokerIsFencedItsLeadershipsMoveAndItRegainsNothing() throws Exception {
        ZooKeeperMetadataStore any = stores.get(1);
        any.createTopic(NewTopic.of("orders", 6, 3));
        int victim = any.image().controllerId(); // the controller: its job moves too
        any.createTopic(new NewTopic("solo", -1, -1, Map.of(0, List.of(victim)), Map.of(), false));
        awaitLeaders("orders");
        awaitLeaders("solo");
        awaitSameImages();
        List<ZooKeeperMetadataStore> others = new ArrayList<>();
        for (ZooKeeperMetadataStore store : stores.values()) {
            if (store.nodeId() != victim) {
                others.add(store);
            }
        }
        ZooKeeperMetadataStore cutOff = stores.get(victim);
        List<Boolean> fencing = new CopyOnWriteArrayList<>();
        cutOff.addFencingListener(fencing::add);
        TopicImage ordersBefore = any.image().topic("orders");
        PartitionState soloBefore = any.image().topic("solo").partition(0);
        assertTrue(ordersBefore.partitions().stream().anyMatch(p -> p.leader() == victim));
        // Every image of another broker that shows one of the victim's partitions led elsewhere must
        // find the victim fenced already: it fences at the disconnect, before ZooKeeper expires its
        // session, and only that expiry lets the controller elect another leader.
        AtomicBoolean cutOffPeriod = new AtomicBoolean(true); // until the heal, after which it may lead again
        AtomicInteger takeoversSeen = new AtomicInteger();
        List<String> unfencedTakeovers = new CopyOnWriteArrayList<>();
        for (ZooKeeperMetadataStore store : others) {
            store.addListener((previous, current) -> {
                if (!cutOffPeriod.get()) {
                    return;
                }
                TopicImage orders = current.topic("orders");
                for (PartitionState was : ordersBefore.partitions()) {
                    PartitionState now = orders == null ? null : orders.partition(was.partition());
                    if (was.leader() == victim && now != null && now.hasLeader() && now.leader() != victim) {
                        takeoversSeen.incrementAndGet();
                        if (!cutOff.isFenced()) {
                            unfencedTakeovers.add("broker " + store.nodeId() + " saw " + now);
                        }
                    }
                }
            });
        }

        proxies.get(victim).cut();

        // Its leaderships move to ISR members with a higher epoch; live ISR leaders stay; the
        // partition whose only replica it is has no leader; another broker becomes controller.
        // PATIENCE is a liveness bound on the whole failover (expiry, election), not a speed requirement.
        await("failover after broker " + victim + " was cut off").atMost(PATIENCE).untilAsserted(() -> {
            for (ZooKeeperMetadataStore store : others) {
                MetadataImage image = store.image();
                assertNotEquals(victim, image.controllerId());
                assertEquals(2, image.brokers().size());
                for (PartitionState was : ordersBefore.partitions()) {
                    PartitionState now = image.topic("orders").partition(was.partition());
                    if (was.leader() == victim) {
                        assertNotEquals(victim, now.leader());
                        assertTrue(was.isr().contains(now.leader()), "elected from the ISR: " + now);
                        assertTrue(now.leaderEpoch() > was.leaderEpoch(), "a new epoch: " + now);
                    } else {
                        assertEquals(was.leader(), now.leader(), "a live ISR leader stays");
                        assertEquals(was.leaderEpoch(), now.leaderEpoch());
                    }
                }
                PartitionState solo = image.topic("solo").partition(0);
                assertEquals(PartitionState.NO_LEADER, solo.leader());
                assertTrue(solo.leaderEpoch() > soloBefore.leaderEpoch());
            }
        });
        assertTrue(takeoversSeen.get() > 0, "the other brokers' listeners saw the new leaders");
        assertEquals(List.of(), unfencedTakeovers, "new leaders while broker " + victim + " was not fenced");
        assertTrue(cutOff.isFenced(), "still fenced while cut off");
        TopicImage ordersAfterFailover = others.get(0).image().topic("orders");

        // It comes back with a new session: it resigns, leaves the ISRs, and leads nothing it lost;
        // only the partition of which it is the last ISR member comes back to it.
        cutOffPeriod.set(false);
        proxies.get(victim).heal();
        await("broker " + victim + " rejoins").atMost(PATIENCE).until(() -> !cutOff.isFenced());
        await().atMost(PATIENCE).untilAsserted(() -> {
            for (ZooKeeperMetadataStore store : stores.values()) {
                MetadataImage image = store.image();
                assertEquals(3, image.brokers().size());
                for (PartitionState was : ordersAfterFailover.partitions()) {
                    PartitionState now = image.topic("orders").partition(was.partition());
                    assertEquals(was.leader(), now.leader(), "leaders stay where they moved");
                    assertEquals(was.leaderEpoch(), now.leaderEpoch());
                    assertFalse(now.isr().contains(victim), "a restarted replica leaves the ISR: " + now);
                }
                PartitionState solo = image.topic("solo").partition(0);
                assertEquals(victim, solo.leader());
                assertTrue(solo.leaderEpoch() > soloBefore.leaderEpoch() + 1);
            }
        });
        awaitSameImages();
        assertEquals(List.of(true, false), fencing, "fenced once, unfenced once");
        assertEquals(0, cutOff.listenerFailures() + others.stream().mapToLong(ZooKeeperMetadataStore::listenerFailures)
                .sum(), "listener failures");
    }

    /**
     * Incremental config changes of one entity and of one topic through two brokers, from many threads
     * at once, each adding its own key: every change survives (each write is version-checked and a
     * loser applies its change again to what the winner left), and each broker's future completes with
     * its change in its own image.
     */
    @Test
    void concurrentConfigChangesThroughTwoBrokersAllSurvive() throws Exception {
        stores.get(1).createTopic(NewTopic.of("shared", 1, 3));
        List<ZooKeeperMetadataStore> writers = List.of(stores.get(1), stores.get(2));
        int threadsPerBroker = 4;
        int changesPerThread = 10;
        ExecutorService threads = Executors.newFixedThreadPool(writers.size() * threadsPerBroker);
        ConcurrentLinkedQueue<String> keys = new ConcurrentLinkedQueue<>();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (ZooKeeperMetadataStore store : writers) {
                for (int t = 0; t < threadsPerBroker; t++) {
                    String prefix = "b" + store.nodeId() + "-t" + t + "-";
                    running.add(threads.submit(() -> {
                        for (int i = 0; i < changesPerThread; i++) {
                            String key = prefix + i;
                            Map<String, String> entity = ZooKeeperMetadataStoreTest.done(
                                    store.updateEntityConfigsAsync("users/shared", current -> with(current, key)));
                            assertTrue(entity.containsKey(key), "what was written holds the change");
                            assertTrue(store.image().entityConfigs("users/shared").containsKey(key),
                                    "the writer's own image shows it when the future completes");
                            TopicImage topic = ZooKeeperMetadataStoreTest.done(
                                    store.alterTopicConfigsAsync("shared", current -> with(current, key)));
                            assertTrue(topic.configs().containsKey(key));
                            keys.add(key);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : running) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(writers.size() * threadsPerBroker * changesPerThread, keys.size());
        await().atMost(PATIENCE).untilAsserted(() -> {
            for (ZooKeeperMetadataStore store : stores.values()) {
                assertEquals(new java.util.TreeSet<>(keys), new java.util.TreeSet<>(
                        store.image().entityConfigs("users/shared").keySet()), "broker " + store.nodeId());
                assertEquals(new java.util.TreeSet<>(keys), new java.util.TreeSet<>(
                        store.image().topic("shared").configs().keySet()), "broker " + store.nodeId());
            }
        });
    }

    /**
     * A lost race is retried on fresh data: broker 2 changes the topic's configs between broker 1's read
     * and its write (from inside broker 1's change, the first time it runs), so broker 1's version-checked
     * write fails, it reads again and applies its change a second time, to what broker 2 left.
     */
    @Test
    void aLostRaceIsDecidedAgainOnWhatTheWinnerLeft() {
        stores.get(1).createTopic(new NewTopic("raced", 1, 3, Map.of(), Map.of("retention.ms", "1"), false));
        awaitSameImages();
        AtomicInteger runs = new AtomicInteger();
        List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
        TopicImage after = ZooKeeperMetadataStoreTest.done(stores.get(1).alterTopicConfigsAsync("raced", current -> {
            seen.add(current);
            if (runs.incrementAndGet() == 1) {
                // Blocks a ZooKeeper thread of broker 1 for broker 2's round trips: a test may, a store must not.
                ZooKeeperMetadataStoreTest.done(stores.get(2).alterTopicConfigsAsync("raced",
                        other -> with(other, "segment.ms")));
            }
            return with(current, "cleanup.policy");
        }));
        assertEquals(2, runs.get(), "decided once, lost the race, decided again: " + seen);
        assertEquals(Map.of("retention.ms", "1"), seen.get(0));
        assertEquals(Map.of("retention.ms", "1", "segment.ms", "v"), seen.get(1), "the second run saw the winner's write");
        assertEquals(Map.of("retention.ms", "1", "segment.ms", "v", "cleanup.policy", "v"), after.configs());
        awaitSameImages();
        assertEquals(after.configs(), stores.get(3).image().topic("raced").configs());

        // the same for an entity whose node does not exist yet: two creations race, the loser updates
        AtomicInteger entityRuns = new AtomicInteger();
        Map<String, String> entity = ZooKeeperMetadataStoreTest.done(stores.get(1).updateEntityConfigsAsync(
                "clients/raced", current -> {
                    if (entityRuns.incrementAndGet() == 1) {
                        ZooKeeperMetadataStoreTest.done(stores.get(2).updateEntityConfigsAsync("clients/raced",
                                other -> with(other, "request_percentage")));
                    }
                    return with(current, "producer_byte_rate");
                }));
        assertEquals(2, entityRuns.get());
        assertEquals(Map.of("request_percentage", "v", "producer_byte_rate", "v"), entity);
    }

    private static Map<String, String> with(Map<String, String> configs, String key) {
        Map<String, String> next = new HashMap<>(configs);
        next.put(key, "v");
        return next;
    }

    private void awaitLeaders(String topic) {
        await().atMost(PATIENCE).until(() -> stores.values().stream().allMatch(s -> {
            TopicImage image = s.image().topic(topic);
            return image != null && image.partitions().stream().allMatch(PartitionState::hasLeader);
        }));
    }

    private void awaitSameImages() {
        await().atMost(PATIENCE).untilAsserted(() -> {
            String first = null;
            for (ZooKeeperMetadataStore store : stores.values()) {
                String described = describe(store.image());
                if (first == null) {
                    first = described;
                } else {
                    assertEquals(first, described);
                }
            }
        });
    }

    private static String describe(MetadataImage image) {
        List<String> brokers = image.brokers().stream().map(BrokerInfo::toString).sorted().toList();
        List<String> topics = image.topics().stream().map(TopicImage::toString).sorted().toList();
        return image.clusterId() + " controller " + image.controllerId() + " " + brokers + " " + topics;
    }
}
