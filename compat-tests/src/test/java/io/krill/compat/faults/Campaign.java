package io.krill.compat.faults;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.TestFiles;
import io.krill.compat.support.BrokerApis;
import io.krill.compat.support.TransactionApis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fault campaign (docs/faults.md), whatever its size: the cluster, the topics (the idempotent
 * producers', the transactional producers', and {@link CampaignSettings#ballastPartitions()} idle ones), the
 * workload, the {@link Nemesis}, the heal, the final read and the {@link HistoryChecker}'s verdict, asserted
 * clean. {@link FaultCampaignTest} and {@link ManyPartitionsCampaignTest} are this with different settings.
 *
 * <p>One summary line per run goes to the log and to {@code target/faults/summaries.log}; the history (and
 * the processes' logs) stay under {@code target/faults/<seed>/} when the run is not clean, for a replay
 * with {@code -D<prefix>seed}.
 *
 * <p>The broker must advertise the transaction APIs and ConsumerGroupHeartbeat (KIP-848): the campaign fails
 * at once otherwise, rather than run without its transactional producers or its KIP-848 group. A controlled
 * shutdown that gets stuck fails the run ({@code stuck shutdowns} in the verdict).
 *
 * <p>Bounded by {@link CampaignSettings#budget()}: a {@link Watchdog} interrupts the campaign once it overruns
 * it, after which the test fails saying so (the cluster is still torn down, on the caller's thread, which
 * must be the test's own: {@code @Timeout(threadMode = SAME_THREAD)}).
 *
 * <p>Needs root (namespaces, iptables, a tmpfs mount): skipped without it, except under CI, where it fails.
 */
final class Campaign {
    private static final Logger LOG = LoggerFactory.getLogger(Campaign.class);
    static final String IDEMPOTENT_TOPIC = "faults-idempotent";
    static final String TXN_TOPIC = "faults-transactional";
    static final int TXN_PARTITIONS = 3;
    static final String BALLAST_TOPIC_PREFIX = "faults-ballast-";
    private static final int SMALL_DISK_MB = 512;

    private final CampaignSettings settings;

    private Campaign(CampaignSettings settings) {
        this.settings = settings;
    }

    /** Runs a campaign with these settings and fails the calling test unless its verdict is clean. */
    static HistoryChecker.Verdict runAndAssertClean(CampaignSettings settings) throws Exception {
        boolean canRun = NetworkLab.available();
        if (System.getenv("CI") != null) {
            assertTrue(canRun, "the fault campaign needs root, iproute2 (ip netns) and iptables");
        }
        Assumptions.assumeTrue(canRun, "needs root, ip netns and iptables");
        return new Campaign(settings).run();
    }

    /** The ballast topics' names and sizes: topics of 20 partitions, the last one taking the remainder. */
    static Map<String, Integer> ballastTopics(int ballastPartitions) {
        Map<String, Integer> topics = new LinkedHashMap<>();
        int per = CampaignSettings.BALLAST_TOPIC_PARTITIONS;
        for (int i = 0, left = ballastPartitions; left > 0; i++, left -= per) {
            topics.put(String.format("%s%04d", BALLAST_TOPIC_PREFIX, i), Math.min(per, left));
        }
        return topics;
    }

    private HistoryChecker.Verdict run() throws Exception {
        String replayProperty = "-D" + settings.prefix() + "seed=" + settings.seed();
        LOG.info("fault campaign: {} (replay with {})", settings, replayProperty);
        long started = System.nanoTime();
        Path runDir = Path.of(System.getProperty("user.dir"), "target", "faults", Long.toString(settings.seed()));
        TestFiles.deleteRecursively(runDir);
        Path historyFile = runDir.resolve("history.jsonl");

        HistoryChecker.Verdict verdict;
        short transactionVersion;
        Watchdog watchdog = new Watchdog(settings);
        try (FaultCluster cluster = FaultCluster.start(settings.brokers(), SMALL_DISK_MB)) {
            // The transactions run on the protocol the cluster finalizes (version 2 unless changed).
            transactionVersion = cluster.admin().describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get("transaction.version").maxVersionLevel();
            LOG.info("transactions run at transaction.version {}", transactionVersion);
            try (History history = new History(historyFile)) {
                try {
                    runCampaign(cluster, history);
                } finally {
                    watchdog.disarm(); // what follows (history, logs, teardown) runs whole, uninterrupted
                }
            } finally {
                cluster.keepLogs(runDir.resolve("logs"));
            }
            verdict = HistoryChecker.check(historyFile);
        } catch (Exception | AssertionError e) {
            watchdog.disarm();
            watchdog.failIfFired(e);
            throw e;
        }
        watchdog.failIfFired(null);
        String summary = verdict.summary();
        double wallMinutes = (System.nanoTime() - started) / 60e9;
        LOG.info("seed {}: {}; {} min in all", settings.seed(), summary, String.format("%.1f", wallMinutes));
        Files.writeString(runDir.getParent().resolve("summaries.log"),
                LocalDateTime.now() + " seed " + settings.seed() + ", " + settings.brokers() + " brokers, "
                        + settings.partitions() + "+" + settings.ballastPartitions() + " partitions, "
                        + settings.kinds() + ", transaction.version " + transactionVersion + ", "
                        + settings.minutes() + " min (" + String.format("%.1f", wallMinutes)
                        + " in all): " + summary + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        if (verdict.clean() && !settings.keep()) {
            TestFiles.deleteRecursively(runDir);
        }
        String replay = "\nexamples: " + verdict.examples() + "\nhistory and logs kept in " + runDir
                + "; replay with " + replayProperty;
        assertEquals(0, verdict.stuckShutdowns(), () -> "seed " + settings.seed() + ": a controlled shutdown got "
                + "stuck: " + summary + replay);
        assertTrue(verdict.clean(), () -> "seed " + settings.seed() + ": " + summary + replay);
        return verdict;
    }

    private void runCampaign(FaultCluster cluster, History history) throws Exception {
        String[] broker1 = cluster.broker(1).address().split(":");
        BrokerApis apis = BrokerApis.probe(broker1[0], Integer.parseInt(broker1[1]));
        TransactionApis.assertServed(apis);
        apis.assertServes("the campaign's KIP-848 group", ApiKeys.CONSUMER_GROUP_HEARTBEAT);
        // written and read: the final read, the checks and availability are about these
        Map<String, Integer> topics = new LinkedHashMap<>();
        topics.put(IDEMPOTENT_TOPIC, settings.partitions());
        topics.put(TXN_TOPIC, TXN_PARTITIONS);
        Map<String, Integer> ballast = ballastTopics(settings.ballastPartitions());
        Map<String, Integer> all = new LinkedHashMap<>(topics);
        all.putAll(ballast);
        long createStart = System.nanoTime();
        cluster.createTopics(all, Map.of("min.insync.replicas", "2", "unclean.leader.election.enable", "false"));
        long createMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - createStart);
        LOG.info("{} topics of {} partitions created, all led with a full ISR, in {} ms", all.size(),
                settings.totalPartitions(TXN_PARTITIONS), createMillis);
        List<String> topicNames = List.copyOf(topics.keySet());
        // the nemesis waits for every partition's full ISR after each fault, the ballast's too
        List<String> allTopicNames = List.copyOf(all.keySet());
        history.record("campaign", "test", "phase", "start", "seed", settings.seed(), "brokers", settings.brokers(),
                "minutes", settings.minutes(), "partitions", settings.partitions(), "ballastPartitions",
                settings.ballastPartitions(), "createMillis", createMillis);

        List<AutoCloseable> workload = new ArrayList<>();
        List<IdempotentWriter> writers = new ArrayList<>();
        List<TransactionalWriter> txnWriters = new ArrayList<>();
        List<GroupReader> readers = new ArrayList<>();
        List<ShareReader> shareReaders = new ArrayList<>();
        try {
            for (int i = 1; i <= 3; i++) {
                writers.add(new IdempotentWriter(history, cluster.clientProperties(), "i" + i, IDEMPOTENT_TOPIC,
                        settings.partitions(), settings.rate()));
            }
            for (int i = 1; i <= 2; i++) {
                txnWriters.add(new TransactionalWriter(history, cluster.clientProperties(), "t" + i, TXN_TOPIC,
                        TXN_PARTITIONS, settings.seed() + i, 5));
            }
            for (int i = 1; i <= 2; i++) {
                readers.add(new GroupReader(history, cluster.clientProperties(), "classic-" + i, "faults-classic",
                        "classic", topicNames));
                readers.add(new GroupReader(history, cluster.clientProperties(), "consumer-" + i,
                        "faults-consumer", "consumer", topicNames));
            }
            if (settings.shareReaders() > 0) {
                cluster.setGroupConfigs(ShareReader.GROUP, Map.of("share.auto.offset.reset", "earliest",
                        "share.isolation.level", "read_committed"));
                for (int i = 1; i <= settings.shareReaders(); i++) {
                    shareReaders.add(new ShareReader(history, cluster.clientProperties(), "share-" + i, topicNames));
                }
            }
            workload.addAll(writers);
            workload.addAll(txnWriters);
            workload.addAll(readers);
            workload.addAll(shareReaders);
            awaitProgress(history, "ack", 500);
            awaitProgress(history, "poll", 10);
            if (!shareReaders.isEmpty()) {
                awaitProgress(history, "share-accept", 5);
            }

            history.record("campaign", "test", "phase", "faults-start", "availabilityWindowMs",
                    settings.availabilityWindowMillis());
            long deadline = System.nanoTime() + (long) (settings.minutes() * TimeUnit.MINUTES.toNanos(1));
            int faults = new Nemesis(cluster, history, allTopicNames, settings.seed(), settings.kinds())
                    .runUntil(deadline);
            history.record("campaign", "test", "phase", "faults-end", "faults", faults);

            long healStart = System.nanoTime();
            healEverything(cluster, allTopicNames);
            history.record("healed", "test", "millis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healStart));
            // the healed cluster serves writers and both groups again before the workload stops
            awaitProgress(history, "ack", 300);
            awaitProgress(history, "poll", 5);
            if (!shareReaders.isEmpty()) {
                awaitProgress(history, "share-accept", 3);
            }
            for (IdempotentWriter w : writers) {
                w.stop();
            }
            for (TransactionalWriter w : txnWriters) {
                w.stop();
            }
            for (GroupReader r : readers) {
                r.stop();
            }
            for (ShareReader r : shareReaders) {
                r.stop();
            }
            closeAll(workload);
            workload.clear();
            long readStart = System.nanoTime();
            FinalRead.readAll(history, cluster.clientProperties(), topics);
            LOG.info("final read of {} partitions in {} ms", settings.partitions() + TXN_PARTITIONS,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readStart));
            history.record("campaign", "test", "phase", "end");
        } finally {
            closeAll(workload);
        }
    }

    /** Whatever the nemesis left: links restored, ZooKeeper and every broker running, all ISRs full. */
    private static void healEverything(FaultCluster cluster, List<String> topics) {
        cluster.network().healAll();
        if (!cluster.zooKeeper().isRunning()) {
            cluster.zooKeeper().start();
        }
        cluster.smallDisk().free();
        for (int id : cluster.brokerIds()) {
            if (cluster.broker(id).isPaused()) {
                cluster.broker(id).resume();
            }
            if (!cluster.broker(id).isRunning()) {
                cluster.startBroker(id);
            }
        }
        cluster.awaitAllBrokersSeeEachOther();
        cluster.awaitFullIsr(topics, Duration.ofSeconds(300));
    }

    private static void awaitProgress(History history, String type, long more) {
        long target = history.count(type) + more;
        await(more + " more " + type + " events").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200))
                .until(() -> history.count(type) >= target);
    }

    private static void closeAll(List<AutoCloseable> workload) {
        for (AutoCloseable c : workload) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed: {}", c, e.toString());
            }
        }
    }

    /**
     * Interrupts the thread that made it once {@code budget} has passed, unless disarmed first: the
     * campaign's waits end on the interrupt; {@link #disarm} (before the teardown, so that it runs whole)
     * clears it again, and {@link #failIfFired} turns whatever came of it into a failure that says the
     * campaign overran its budget.
     */
    private static final class Watchdog {
        private final Duration budget;
        private final CampaignSettings settings;
        private final Object lock = new Object();
        private boolean armed = true;
        private volatile boolean fired;
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fault-campaign-watchdog");
            t.setDaemon(true);
            return t;
        });

        Watchdog(CampaignSettings settings) {
            this.budget = settings.budget();
            this.settings = settings;
            Thread campaign = Thread.currentThread();
            timer.schedule(() -> {
                synchronized (lock) {
                    if (armed) {
                        fired = true;
                        LOG.error("the fault campaign overran its budget of {}: interrupting it", minutes(budget));
                        campaign.interrupt();
                    }
                }
            }, budget.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** No interrupt from now on; one already delivered is cleared. Idempotent. */
        void disarm() {
            synchronized (lock) {
                armed = false;
            }
            timer.shutdownNow();
            if (fired) {
                Thread.interrupted();
            }
        }

        void failIfFired(Throwable cause) {
            if (fired) {
                throw new AssertionError("the fault campaign did not finish within its budget of "
                        + minutes(budget) + " (-D" + settings.prefix() + "minutes plus " + minutes(settings.overhead())
                        + "): it hung", cause);
            }
        }

        private static String minutes(Duration d) {
            return String.format("%.1f min", d.toMillis() / 60_000.0);
        }
    }
}
