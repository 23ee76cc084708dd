package io.krill.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.partition.LogConfigs;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.partition.ReplicaFollowing;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.IsrChange;
import io.krill.controller.metadata.IsrChangeResult;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.LogManager;
import io.krill.log.LogManagerConfig;
import io.krill.log.Time;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ISR changer against a store that only records its alterPartitions calls: many partitions' changes
 * go out in few calls, and an item the store refuses does not hold back the others.
 */
class IsrChangerTest {
    private static final int PARTITIONS = 60;

    @TempDir
    Path dir;
    private LogManager logs;
    private PartitionManager partitions;
    private IsrChanger isr;
    private final AtomicReference<MetadataImage> image = new AtomicReference<>();
    /** Every alterPartitions call, as the list of its changes. */
    private final List<List<IsrChange>> calls = new CopyOnWriteArrayList<>();
    /** Topics whose changes the store refuses. */
    private final Set<String> refused = ConcurrentHashMap.newKeySet();
    /** When set, the first alterPartitions call waits for it. */
    private volatile CountDownLatch holdFirstCall;
    private final CountDownLatch firstCallStarted = new CountDownLatch(1);
    private volatile RuntimeException failNextCall;
    private final Map<TopicPartition, Integer> changedCallbacks = new ConcurrentHashMap<>();

    private final MetadataStore store = (MetadataStore) Proxy.newProxyInstance(MetadataStore.class.getClassLoader(),
            new Class<?>[] {MetadataStore.class}, (proxy, method, args) -> switch (method.getName()) {
                case "image" -> image.get();
                case "alterPartitions" -> alterPartitions(castChanges(args[0]));
                case "addListener", "close" -> null;
                case "isFenced" -> false;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                case "toString" -> "recording store";
                default -> throw new UnsupportedOperationException(method.getName());
            });

    @SuppressWarnings("unchecked")
    private static List<IsrChange> castChanges(Object changes) {
        return (List<IsrChange>) changes;
    }

    private List<IsrChangeResult> alterPartitions(List<IsrChange> changes) throws InterruptedException {
        calls.add(List.copyOf(changes));
        firstCallStarted.countDown();
        CountDownLatch hold = holdFirstCall;
        if (hold != null && calls.size() == 1) {
            assertTrue(hold.await(30, TimeUnit.SECONDS));
        }
        RuntimeException failure = failNextCall;
        if (failure != null) {
            failNextCall = null;
            throw failure;
        }
        List<IsrChangeResult> results = new ArrayList<>();
        for (IsrChange change : changes) {
            results.add(refused.contains(change.topic())
                    ? new IsrChangeResult(change, null, new ApiError(Errors.FENCED_LEADER_EPOCH, "refused by the test"))
                    : new IsrChangeResult(change, change.proposed(), ApiError.NONE));
        }
        return results;
    }

    @BeforeEach
    void start() {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:9092");
        props.put("log.dirs", dir.toString());
        BrokerConfig config = BrokerConfig.from(props);
        logs = new LogManager(LogManagerConfig.builder(List.of(dir))
                .defaultLogConfig(LogConfigs.from(TopicConfig.resolve(Map.of(), config))).build(), Time.SYSTEM,
                topic -> LogConfigs.from(TopicConfig.resolve(Map.of(), config)));
        logs.startup();
        partitions = new PartitionManager(1, logs, () -> config, () -> false, ReplicaFollowing.NONE, tp -> { });
    }

    @AfterEach
    void stop() {
        if (isr != null) {
            isr.close();
        }
        logs.close();
    }

    /** Topics "good" and "refused", PARTITIONS partitions between them, led by broker 1 with this ISR. */
    private void host(List<Integer> isrOf, int... liveBrokers) {
        List<TopicImage> topics = new ArrayList<>();
        for (String name : List.of("good", "refused")) {
            List<PartitionState> states = new ArrayList<>();
            for (int p = 0; p < PARTITIONS / 2; p++) {
                states.add(new PartitionState(p, 1, 0, List.of(1, 2, 3), isrOf, 0));
            }
            topics.add(new TopicImage(name, UUID.randomUUID(), states, Map.of(), false));
        }
        image.set(new MetadataImage("c", 1, brokers(liveBrokers), topics));
        partitions.startup(image.get());
        isr = new IsrChanger(1, store, partitions, 60_000, tp -> changedCallbacks.merge(tp, 1, Integer::sum));
    }

    private static List<BrokerInfo> brokers(int... ids) {
        List<BrokerInfo> brokers = new ArrayList<>();
        for (int id : ids) {
            brokers.add(new BrokerInfo(id, null, Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "127.0.0.1",
                    9090 + id))));
        }
        return brokers;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private int changesSent() {
        return calls.stream().mapToInt(List::size).sum();
    }

    /** Whether every partition's claim was released (a new change could be claimed), releasing it again. */
    private boolean allReleased() {
        for (Partition p : partitions.partitions()) {
            if (!p.beginIsrChange(Set.of())) {
                return false;
            }
            p.finishIsrChange();
        }
        return true;
    }

    @Test
    void aLostBrokerShrinksEveryIsrInOneCall() throws InterruptedException {
        refused.add("refused");
        host(List.of(1, 2, 3), 1, 2, 3);
        MetadataImage before = image.get();
        MetadataImage after = before.withBrokers(1, brokers(1, 2));
        image.set(after);
        isr.onChange(before, after);
        await(() -> changedCallbacks.size() == PARTITIONS, "every partition's outcome");
        assertEquals(1, calls.size(), "one alterPartitions call for " + PARTITIONS + " shrinks");
        assertEquals(PARTITIONS, changesSent());
        for (IsrChange change : calls.get(0)) {
            assertEquals(List.of(1, 2), change.proposed().isr());
            assertEquals(change.expected().partitionEpoch() + 1, change.proposed().partitionEpoch());
        }
        assertEquals(PARTITIONS / 2, isr.isrShrinks(), "the refused half is not counted and not retried");
        assertEquals(0, isr.isrExpands());
        assertTrue(allReleased(), "refused or not, every claim is released");
        Thread.sleep(200);
        assertEquals(1, calls.size(), "a lost compare-and-set is not retried");
    }

    @Test
    void joinsArrivingDuringABatchGoOutTogetherInTheNext() throws InterruptedException {
        refused.add("refused");
        host(List.of(1, 2), 1, 2, 3);
        holdFirstCall = new CountDownLatch(1);
        List<Partition> all = new ArrayList<>(partitions.partitions());
        isr.requestJoin(all.get(0), 3);
        assertTrue(firstCallStarted.await(30, TimeUnit.SECONDS));
        for (Partition p : all) {
            isr.requestJoin(p, 3); // the first is still in flight: dropped, one change per partition
            isr.requestJoin(p, 3); // already queued: dropped
        }
        holdFirstCall.countDown();
        await(() -> calls.size() == 2 && changedCallbacks.size() == PARTITIONS, "the second batch");
        assertEquals(1, calls.get(0).size());
        assertEquals(PARTITIONS - 1, calls.get(1).size(), "everything queued meanwhile, once each, in one call");
        assertEquals(List.of(1, 2, 3), calls.get(1).get(0).proposed().isr());
        long good = all.stream().filter(p -> p.topicPartition().topic().equals("good")).count();
        assertEquals(good, isr.isrExpands());
        assertEquals(0, isr.isrShrinks());
        assertTrue(allReleased());
    }

    @Test
    void aFailedCallReleasesItsPartitionsAndTheNextCallGoesOut() throws InterruptedException {
        host(List.of(1, 2), 1, 2, 3);
        List<Partition> all = new ArrayList<>(partitions.partitions());
        failNextCall = new IllegalStateException("ZooKeeper unavailable (test)");
        isr.requestJoin(all.get(0), 3);
        await(() -> changedCallbacks.containsKey(all.get(0).topicPartition()), "the failed change's outcome");
        assertEquals(0, isr.isrExpands());
        assertTrue(allReleased());
        isr.requestJoin(all.get(0), 3);
        isr.requestJoin(all.get(1), 3);
        await(() -> isr.isrExpands() == 2, "both joins");
        assertFalse(calls.isEmpty());
    }

    @Test
    void aJoinOfABrokerThatIsNotLiveIsNotSent() throws InterruptedException {
        host(List.of(1, 2), 1, 2);
        for (Partition p : partitions.partitions()) {
            isr.requestJoin(p, 3);
        }
        Thread.sleep(200);
        assertTrue(calls.isEmpty());
        assertTrue(allReleased());
    }
}
