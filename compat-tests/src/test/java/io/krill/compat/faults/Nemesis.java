package io.krill.compat.faults;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seeded fault schedule. Faults come in rounds: each round is every {@link FaultKind} once, in an order
 * the seed shuffles, so even a short campaign meets most kinds; the victim, the hold time and the quiet time
 * before each fault come from the same seed. (The faults themselves land on a cluster whose timing is not
 * seeded, so the same seed replays the same schedule, not the same interleaving.)
 *
 * <p>Each fault is recorded in the {@link History} when it starts and when it is healed. After healing, the
 * nemesis waits (bounded) until every broker is back and every partition of the campaign's topics has its
 * full ISR, so each fault hits a whole cluster; a recovery that takes longer is recorded
 * ({@code slow-recovery}) and the campaign goes on. A broker process found dead that the nemesis did not
 * kill is recorded as a {@code crash} (the checker fails the run on it) and started again; a controlled
 * shutdown that does not finish is recorded as {@code stuck} (the checker fails the run on it too) and the
 * broker killed, so that the campaign goes on.
 */
final class Nemesis {
    private static final Logger LOG = LoggerFactory.getLogger(Nemesis.class);
    private static final String PROC = "nemesis";
    /** The ISR shrink of a silent follower (replica.lag.time.max.ms, 6 s) and retries, with room to spare. */
    private static final Duration OTHERS_SERVE = Duration.ofSeconds(30);

    private final FaultCluster cluster;
    private final History history;
    private final List<String> topics;
    private final Random random;
    private final List<FaultKind> kinds;
    private int faults;

    /** {@code topics}: the campaign's, the idempotent producers' first. */
    Nemesis(FaultCluster cluster, History history, List<String> topics, long seed, List<FaultKind> kinds) {
        this.cluster = cluster;
        this.history = history;
        this.topics = List.copyOf(topics);
        this.random = new Random(seed);
        this.kinds = List.copyOf(kinds);
    }

    /** Runs faults until {@code deadlineNanos} (System.nanoTime); returns how many it caused. */
    int runUntil(long deadlineNanos) throws InterruptedException {
        List<FaultKind> round = new ArrayList<>();
        while (System.nanoTime() < deadlineNanos) {
            if (round.isEmpty()) {
                round.addAll(kinds);
                Collections.shuffle(round, random);
            }
            FaultKind kind = round.remove(0);
            pause(2_000 + random.nextInt(5_000));
            if (System.nanoTime() >= deadlineNanos) {
                break;
            }
            apply(kind);
            faults++;
            awaitRecovery();
        }
        return faults;
    }

    private void apply(FaultKind kind) throws InterruptedException {
        int hold = 5_000 + random.nextInt(10_000);
        switch (kind) {
            case KILL -> {
                int victim = leaderPreferred(0.8);
                start(kind, "broker " + victim);
                cluster.broker(victim).kill9();
                pause(2_000 + random.nextInt(8_000));
                cluster.startBroker(victim);
            }
            case PAUSE -> {
                int victim = leaderPreferred(0.5);
                int frozen = FaultCluster.SESSION_TIMEOUT_MS + 1_000 + random.nextInt(6_000);
                start(kind, "broker " + victim + " for " + frozen + " ms");
                cluster.broker(victim).pause();
                pause(frozen);
                cluster.broker(victim).resume();
            }
            case ISOLATE -> {
                int victim = leaderPreferred(0.5);
                start(kind, "broker " + victim);
                cluster.network().isolate(victim);
                pause(hold);
                cluster.network().heal(victim);
            }
            case LEADER_FROM_ZOOKEEPER -> {
                int victim = leaderPreferred(1.0);
                start(kind, "broker " + victim);
                cluster.network().cutFromBridgePort(victim, cluster.zooKeeper().port());
                pause(hold);
                cluster.network().heal(victim);
            }
            case MINORITY_SPLIT -> {
                List<Integer> all = new ArrayList<>(cluster.brokerIds());
                Collections.shuffle(all, random);
                List<Integer> minority = all.subList(0, (all.size() - 1) / 2);
                List<Integer> majority = all.subList(minority.size(), all.size());
                start(kind, "minority " + minority + " | majority " + majority + " with ZooKeeper");
                for (int m : minority) {
                    cluster.network().cut(m, majority);
                    cluster.network().cutFromBridgePort(m, cluster.zooKeeper().port());
                }
                pause(hold);
                minority.forEach(cluster.network()::heal);
            }
            case ZOOKEEPER_RESTART -> {
                int down = 1_000 + random.nextInt(8_000);
                start(kind, "down " + down + " ms");
                cluster.zooKeeper().kill9();
                pause(down);
                cluster.zooKeeper().start();
            }
            case DISK_FULL -> {
                int victim = cluster.smallDiskBroker();
                start(kind, "broker " + victim);
                Map<String, Integer> leaders = cluster.leaders(topics);
                long filled = cluster.smallDisk().fill();
                history.record("disk-filled", PROC, "bytes", filled);
                awaitOthersServe(victim, leaders);
                pause(hold);
                boolean halted = !cluster.broker(victim).isRunning();
                cluster.smallDisk().free();
                if (halted) {
                    // Its only log dir went offline: it halts, as Kafka does. A crash is any other exit.
                    boolean asExpected = cluster.broker(victim).tail(200).contains("Halting: every log dir is offline");
                    history.record(asExpected ? "halted" : "crash", PROC, "broker", victim, "during", kind.name());
                    if (!asExpected) {
                        LOG.error("broker {} died when its disk filled up:\n{}", victim, cluster.broker(victim).tail(80));
                    }
                } else {
                    restartAfterDiskFull(victim);
                }
                if (!cluster.broker(victim).isRunning()) {
                    cluster.startBroker(victim);
                }
            }
            case KILL_ALL -> {
                start(kind, "brokers " + cluster.brokerIds());
                cluster.brokerIds().forEach(id -> cluster.broker(id).kill9());
                pause(1_000 + random.nextInt(5_000));
                cluster.startBrokers(cluster.brokerIds());
            }
            case FOLLOWERS_BEHIND -> {
                int victim = leaderPreferred(1.0);
                List<Integer> others = cluster.brokerIds().stream().filter(id -> id != victim).toList();
                int frozen = 1_000 + random.nextInt(1_500);
                start(kind, "brokers " + others + " frozen " + frozen + " ms, then broker " + victim + " killed");
                others.forEach(id -> cluster.broker(id).pause());
                pause(frozen);
                cluster.broker(victim).kill9();
                others.forEach(id -> cluster.broker(id).resume());
                pause(2_000 + random.nextInt(6_000));
                cluster.startBroker(victim);
            }
            default -> throw new IllegalStateException("unknown fault " + kind);
        }
        history.record("fault", PROC, "kind", kind.name(), "phase", "end");
    }

    /**
     * While one broker's disk is full, the partitions that other brokers lead keep taking writes (after at
     * most an ISR shrink, when the full broker was their follower): each acknowledges something new within
     * {@link #OTHERS_SERVE}, or the fault is recorded as {@code collateral}, which fails the run.
     */
    private void awaitOthersServe(int victim, Map<String, Integer> leaders) {
        Map<String, Long> before = new HashMap<>();
        // the idempotent producers' topic: the transactional one also waits on its coordinator, which may be
        // on the full broker
        String probed = topics.get(0) + "-";
        leaders.forEach((tp, leader) -> {
            if (tp.startsWith(probed) && leader >= 0 && leader != victim) {
                before.put(tp, history.count("ack " + tp));
            }
        });
        try {
            await("partitions led by brokers other than " + victim + " take writes").atMost(OTHERS_SERVE)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> before.entrySet().stream().allMatch(e -> history.count("ack " + e.getKey()) > e.getValue()));
        } catch (ConditionTimeoutException e) {
            List<String> stalled = before.entrySet().stream()
                    .filter(b -> history.count("ack " + b.getKey()) == b.getValue()).map(Map.Entry::getKey).sorted().toList();
            history.record("collateral", PROC, "broker", victim, "stalled", stalled);
            LOG.error("disk of broker {} full: partitions led elsewhere stalled {}", victim, stalled);
        }
    }

    /** A broker whose log dir went offline needs a restart to use it again (as Kafka): controlled, else kill. */
    private void restartAfterDiskFull(int victim) {
        try {
            cluster.stopBroker(victim);
        } catch (AssertionError stuck) {
            history.record("stuck", PROC, "broker", victim, "during", "controlled shutdown after disk full");
            cluster.broker(victim).kill9();
        }
        cluster.startBroker(victim);
    }

    private void start(FaultKind kind, String target) {
        LOG.info("fault {}: {} {}", faults + 1, kind, target);
        history.record("fault", PROC, "kind", kind.name(), "target", target, "phase", "start");
    }

    /**
     * With probability {@code p}, the broker leading most of the campaign's partitions (when the cluster can
     * tell), else any broker.
     */
    private int leaderPreferred(double p) {
        List<Integer> ids = new ArrayList<>(cluster.brokerIds());
        int any = ids.get(random.nextInt(ids.size()));
        if (random.nextDouble() >= p) {
            return any;
        }
        Map<Integer, Long> led = cluster.leaders(topics).values().stream().filter(id -> id >= 0)
                .collect(Collectors.groupingBy(id -> id, HashMap::new, Collectors.counting()));
        return led.entrySet().stream().max(Comparator.comparingLong(Map.Entry<Integer, Long>::getValue)
                        .thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey).orElse(any);
    }

    /** Every broker back (a dead one that nobody killed is a crash), then the full ISR, both bounded. */
    private void awaitRecovery() {
        for (int id : cluster.brokerIds()) {
            if (!cluster.broker(id).isRunning()) {
                history.record("crash", PROC, "broker", id, "during", "recovery");
                LOG.error("broker {} is dead though the nemesis did not kill it:\n{}", id,
                        cluster.broker(id).tail(80));
                cluster.startBroker(id);
            }
        }
        long start = System.currentTimeMillis();
        try {
            cluster.awaitAllBrokersSeeEachOther();
            cluster.awaitFullIsr(topics, Duration.ofSeconds(120));
            history.record("recovered", PROC, "millis", System.currentTimeMillis() - start);
        } catch (ConditionTimeoutException e) {
            history.record("slow-recovery", PROC, "millis", System.currentTimeMillis() - start, "err", e.getMessage());
            LOG.warn("cluster not recovered after {} ms: {}", System.currentTimeMillis() - start, e.getMessage());
        }
    }

    private static void pause(long millis) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(millis);
    }
}
