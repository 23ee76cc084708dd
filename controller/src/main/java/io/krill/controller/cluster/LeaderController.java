package io.krill.controller.cluster;

import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller's elections: one pass over the partitions computes, for each, what
 * {@link LeaderElection#elect} says given the live brokers (dead brokers out of the ISR, a leader that
 * is gone replaced from the ISR, or nobody), and writes every change in a few pipelined multi-ops
 * ({@link PartitionRecords#updateAll}), each a compare-and-set on the record re-checked on the fresh
 * read. Helix only tracks liveness (live instances) and elects this controller; it no longer moves
 * replicas one transition at a time (docs/coordination.md has the numbers that decided it).
 *
 * <p>A pass looks at every partition when this broker starts acting as controller, when the live
 * brokers change, every {@link #SWEEP_MS} as a safety net, and after a failed pass (ZooKeeper
 * unavailable: again {@link #RETRY_MS} later); otherwise only at topics whose image changed (a new
 * topic, a record written by a leader, an operator or a resignation). The pass is in memory, O(partitions);
 * ZooKeeper sees only the partitions that change.
 *
 * <p>Live means in Helix's live instances and not {@link CrashProbe#crashed}: a broker that refuses
 * connections is dead before its session expires, and a change in that set is a full pass too.
 *
 * <p>Thread-safety: {@link #onChange} runs on the metadata notification thread and only records what
 * to look at (the pending fields are guarded by {@code this}); passes run on the controller thread.
 */
final class LeaderController {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderController.class);
    static final long RETRY_MS = 1_000;
    static final long SWEEP_MS = 10_000;

    private final StoreContext context;
    private final Executor controllerWork;
    private final BooleanSupplier active;
    private final CrashProbe probe; // null when crash detection is off
    private boolean actedOnLastImage; // confined to the notification thread
    // guarded by this
    private boolean pendingAll;
    private final Set<String> pendingTopics = new HashSet<>();
    /** Topics whose ELRs the next pass clears (their min.insync.replicas changed). */
    private final Set<String> elrClears = new HashSet<>();
    private boolean scheduled;

    /** @param active whether this broker may act as the controller now (joined, open, unfenced, elected) */
    LeaderController(StoreContext context, Executor controllerWork, BooleanSupplier active) {
        this.context = context;
        this.controllerWork = controllerWork;
        this.active = active;
        String probed = context.config().crashProbeListener();
        CrashProbe started = null;
        if (probed != null) {
            try {
                started = new CrashProbe(context.nodeId(), probed, this::requestFullPass);
            } catch (java.io.IOException e) {
                LOG.warn("broker {}: no crash probe ({}); dead brokers are noticed when their sessions expire",
                        context.nodeId(), e.toString());
            }
        }
        this.probe = started;
    }

    /** Stops the crash probe. */
    void close() {
        if (probe != null) {
            probe.close();
        }
    }

    /** A metadata listener: notes what changed and schedules a pass. */
    void onChange(MetadataImage previous, MetadataImage current) {
        boolean acting = current.controllerId() == context.nodeId() && active.getAsBoolean();
        boolean startedActing = acting && !actedOnLastImage;
        boolean stoppedActing = !acting && actedOnLastImage;
        actedOnLastImage = acting;
        if (probe != null && (startedActing || stoppedActing
                || (acting && (previous == null
                || !new HashSet<>(previous.brokers()).equals(new HashSet<>(current.brokers())))))) {
            probe.update(acting ? current.brokers() : List.of());
        }
        if (!acting) {
            return;
        }
        if (previous != null) {
            noteMinIsrChanges(previous, current);
        }
        if (startedActing || previous == null || !liveIds(previous).equals(liveIds(current))
                || !previous.finalizedFeatures().equals(current.finalizedFeatures())) {
            schedule(true, List.of());
            return;
        }
        List<String> changed = new ArrayList<>();
        for (TopicImage topic : current.topics()) {
            if (previous.topic(topic.name()) != topic) {
                changed.add(topic.name());
            }
        }
        if (!changed.isEmpty()) {
            schedule(false, changed);
        }
    }

    /**
     * A topic whose effective {@code min.insync.replicas} changed (its own, or the cluster-wide default) has
     * its ELR cleared by the next pass, as Kafka clears it: the ELR was kept against the old minimum.
     */
    private void noteMinIsrChanges(MetadataImage previous, MetadataImage current) {
        if (current.finalizedFeatures().level(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION) < 1) {
            return;
        }
        // A change of the cluster-wide default clears every ELR, as in Kafka, overridden topics included.
        boolean clusterDefault = !java.util.Objects.equals(
                previous.entityConfigs("").get(StoreContext.MIN_ISR_CONFIG),
                current.entityConfigs("").get(StoreContext.MIN_ISR_CONFIG));
        List<String> changed = new ArrayList<>();
        for (TopicImage topic : current.topics()) {
            TopicImage before = previous.topic(topic.name());
            if (before != null && before.id().equals(topic.id()) && (clusterDefault
                    || context.minInsyncReplicas(previous, before) != context.minInsyncReplicas(current, topic))) {
                changed.add(topic.name());
            }
        }
        if (!changed.isEmpty()) {
            LOG.info("controller {}: min.insync.replicas changed for {} topic(s); their ELRs are cleared",
                    context.nodeId(), changed.size());
            synchronized (this) {
                elrClears.addAll(changed);
            }
            schedule(false, changed);
        }
    }

    /**
     * A full pass as soon as possible: when this broker has just joined or been unfenced, no image
     * change may follow (it can be the controller already, e.g. a single node whose partitions it
     * resigned before going live).
     */
    void requestFullPass() {
        schedule(true, List.of());
    }

    /** Starts the periodic full pass (called once, when the broker joins), with a first pass now. */
    void start() {
        requestFullPass();
        sweepLater();
    }

    private void sweepLater() {
        CompletableFuture.delayedExecutor(SWEEP_MS, TimeUnit.MILLISECONDS, controllerWork).execute(() -> {
            if (context.isClosed()) {
                return;
            }
            schedule(true, List.of());
            sweepLater();
        });
    }

    private synchronized void schedule(boolean all, List<String> topics) {
        pendingAll |= all;
        if (!pendingAll) {
            pendingTopics.addAll(topics);
        }
        if (!scheduled) {
            scheduled = true;
            controllerWork.execute(this::run);
        }
    }

    private void run() {
        boolean all;
        Set<String> topics;
        synchronized (this) {
            scheduled = false;
            all = pendingAll;
            topics = all ? Set.of() : new HashSet<>(pendingTopics);
            pendingAll = false;
            pendingTopics.clear();
        }
        if (context.isClosed() || !active.getAsBoolean()) {
            return;
        }
        Set<String> clearing;
        synchronized (this) {
            clearing = new HashSet<>(elrClears);
            elrClears.clear();
        }
        try {
            pass(all, topics, clearing);
        } catch (ZkUnavailableException | IllegalStateException e) {
            synchronized (this) {
                elrClears.addAll(clearing); // the retry's full pass clears them
            }
            LOG.warn("controller {}: election pass failed ({}); again in {} ms", context.nodeId(), e.toString(),
                    RETRY_MS);
            CompletableFuture.delayedExecutor(RETRY_MS, TimeUnit.MILLISECONDS, controllerWork)
                    .execute(() -> schedule(true, List.of()));
        }
    }

    /** One election pass; returns how many partitions it changed. */
    int pass(boolean all, Set<String> topics) {
        return pass(all, topics, Set.of());
    }

    /** One election pass that also clears the ELRs of {@code clearing}; returns how many partitions it changed. */
    private int pass(boolean all, Set<String> topics, Set<String> clearing) {
        MetadataImage image = context.image();
        Set<Integer> live = liveIds(image);
        if (probe != null) {
            live.removeAll(probe.crashed());
        }
        IntPredicate isLive = live::contains;
        List<TopicPartitionKey> changing = new ArrayList<>();
        for (TopicImage topic : image.topics()) {
            if (!all && !topics.contains(topic.name()) && !clearing.contains(topic.name())) {
                continue;
            }
            boolean unclean = context.uncleanElection(topic);
            ElrSettings elr = context.elrSettings(image, topic);
            boolean clear = clearing.contains(topic.name());
            for (PartitionState state : topic.partitions()) {
                if (decide(state, isLive, unclean, elr, clear) != null) {
                    changing.add(new TopicPartitionKey(topic.name(), state.partition()));
                }
            }
        }
        if (changing.isEmpty()) {
            return 0;
        }
        long started = System.nanoTime();
        // Leaders first: a partition without a live leader is unavailable, one with a dead follower in its
        // ISR is not. The second round only takes dead followers out of ISRs.
        List<TopicPartitionKey> leaderChanges = new ArrayList<>();
        List<TopicPartitionKey> isrChanges = new ArrayList<>();
        for (TopicPartitionKey key : changing) {
            TopicImage topic = image.topic(key.topic());
            PartitionState state = topic.partition(key.partition());
            PartitionState next = decide(state, isLive, context.uncleanElection(topic),
                    context.elrSettings(image, topic), clearing.contains(topic.name()));
            (next.leader() != state.leader() ? leaderChanges : isrChanges).add(key);
        }
        java.util.function.BiFunction<String, PartitionState, PartitionState> rule = (name, fresh) -> {
            MetadataImage now = context.image();
            TopicImage topic = now.topic(name);
            return topic == null ? LeaderElection.elect(fresh, isLive, false)
                    : decide(fresh, isLive, context.uncleanElection(topic), context.elrSettings(now, topic),
                            clearing.contains(name));
        };
        // The image is what the pass decided on: its records stand for the first round of reads.
        Map<TopicPartitionKey, PartitionState> written = new java.util.LinkedHashMap<>(
                context.records().updateAll(leaderChanges, rule, PartitionRecords.asIn(image)));
        long leadersMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (!isrChanges.isEmpty()) {
            // Other brokers read the new leaders from the digests of the multis above; ISR multis sent now
            // would queue ahead of those reads in ZooKeeper. This broker's own read comes after theirs.
            context.watcher().imageAfterOwnWrites(context.config().operationTimeoutMs());
        }
        written.putAll(context.records().updateAll(isrChanges, rule, PartitionRecords.asIn(image)));
        if (!written.isEmpty()) {
            // The next pass decides from the image: one that does not show this pass's writes yet would
            // decide them again, and every such write would fail its version check and cost a read.
            context.watcher().imageAfterOwnWrites(context.config().operationTimeoutMs());
        }
        int leaderless = 0;
        for (PartitionState state : written.values()) {
            if (!state.hasLeader()) {
                leaderless++;
            }
        }
        LOG.info("controller {}: {} partition(s) changed for live brokers {} in {} ms ({} new leaders in the first {} ms;"
                        + " {} without an eligible leader)", context.nodeId(), written.size(), live,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), leaderChanges.size(), leadersMs, leaderless);
        if (LOG.isDebugEnabled()) {
            written.forEach((key, state) -> LOG.debug("{}: leader {} epoch {}, ISR {}, ELR {}, last known ELR {}", key,
                    state.leader(), state.leaderEpoch(), state.isr(), state.eligibleLeaderReplicas(),
                    state.lastKnownElr()));
        }
        return written.size();
    }

    /**
     * What {@link LeaderElection#elect} writes for {@code state} under its topic's settings; an ELR being
     * cleared (the topic's {@code min.insync.replicas} changed) counts as a change.
     */
    private static PartitionState decide(PartitionState state, IntPredicate live, boolean unclean, ElrSettings elr,
                                         boolean clearElr) {
        PartitionState base = clearElr ? EligibleLeaderReplicas.cleared(state) : state;
        PartitionState next = LeaderElection.elect(base, live, unclean, elr);
        if (base == state || next != null) {
            return next; // built on base, whose epochs are state's
        }
        return base.withIsr(base.isr());
    }

    private static Set<Integer> liveIds(MetadataImage image) {
        Set<Integer> ids = new HashSet<>();
        image.brokers().forEach(b -> ids.add(b.nodeId()));
        return ids;
    }
}
