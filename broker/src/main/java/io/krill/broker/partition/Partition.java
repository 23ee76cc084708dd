package io.krill.broker.partition;

import io.krill.broker.config.TopicConfig;
import io.krill.controller.metadata.PartitionState;
import io.krill.log.AppendInfo;
import io.krill.log.AppendOrigin;
import io.krill.log.LogReadResult;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One partition hosted on this broker: its log, its replication state (leader, leader epoch, ISR), the
 * followers' progress when this broker leads it, and its high watermark.
 *
 * <p>As leader the high watermark is the smallest log end offset over the ISR, counting replicas whose
 * addition to the ISR is in flight (Kafka's "maximal ISR": a replica may be elected as soon as the
 * write lands, so nothing it lacks may be acknowledged meanwhile). It grows only while this broker is
 * not fenced from the cluster. As follower it is the leader's high watermark, capped by the local log
 * end offset.
 *
 * <p>With eligible leader replicas on ({@code eligible.leader.replicas.version} >= 1, KIP-966) the strict
 * min-ISR rule holds too: the leader's high watermark moves only while the ISR as committed (not counting
 * additions in flight) has at least {@code min.insync.replicas} members. Replicas that leave an ISR below
 * the minimum then hold everything below the high watermark, which is what lets the controller elect
 * them (its ELR) once the ISR is empty. The price is Kafka's: acks=0/1 records are not visible to
 * consumers while the ISR is below the minimum.
 *
 * <p>Thread-safety: two locks, always taken in this order. {@link #appendLock} serialises what changes
 * the log (leader and follower appends, truncation) and the state changes that decide who may append;
 * {@link #lock} guards the followers' progress, the ISR additions in flight and the high watermark, and
 * is held only briefly. So a follower's fetch, which moves the high watermark, never waits behind an
 * append's segment roll, snapshot or {@code flush.messages} fsync, as in Kafka, where appends and
 * high-watermark moves share only a read lock. State and config are replaced under both by the metadata
 * thread and read through volatile fields; reads of the log take neither and see whole appended batches
 * only.
 */
public final class Partition {
    private final TopicPartition topicPartition;
    private final UUID topicId;
    private final int localNodeId;
    private final PartitionLog log;
    private final BooleanSupplier fenced;
    /** Whether the strict min-ISR rule applies (the ELR feature is on); read on every high watermark move. */
    private final BooleanSupplier strictMinIsr;
    /**
     * Told after every leader append and every move of a follower's high watermark, outside the lock:
     * wakes the fetches waiting on this replica (followers' and consumers', KIP-392 reads from a follower too).
     */
    private final Consumer<TopicPartition> appended;
    /** Taken before {@link #lock}, never after it. */
    private final Object appendLock = new Object();
    private final Object lock = new Object();
    /** Progress of each other replica, while this broker leads; guarded by {@link #lock}. */
    private final Map<Integer, FollowerProgress> followers = new HashMap<>();
    /** One ISR change at a time goes to the controller. */
    private final AtomicBoolean isrChangeInFlight = new AtomicBoolean();
    /** Replicas being added to the ISR right now: counted in the high watermark already. */
    private volatile Set<Integer> pendingIsrAdditions = Set.of();
    private volatile PartitionState state;
    private volatile TopicConfig config;
    /** Offsets below it are on every ISR member; consumers read only below it. Owned here, handed to the log. */
    private volatile long highWatermark;
    /** The log end offset when this broker became leader at the current epoch. */
    private volatile long leaderEpochStartOffset;

    /** What the leader knows of one follower from its fetches (Kafka's replica state). */
    private static final class FollowerProgress {
        long logEndOffset = -1;
        long lastCaughtUpTimeMs;
        long lastFetchLeaderLogEndOffset = -1;
        long lastFetchTimeMs;

        FollowerProgress(long lastCaughtUpTimeMs) {
            this.lastCaughtUpTimeMs = lastCaughtUpTimeMs;
        }
    }

    /** What a follower's fetch changed: the high watermark, and whether the follower should join the ISR. */
    public record FollowerFetchOutcome(boolean highWatermarkMoved, boolean shouldJoinIsr) {
        static final FollowerFetchOutcome NOTHING = new FollowerFetchOutcome(false, false);
    }

    public Partition(TopicPartition topicPartition, UUID topicId, int localNodeId, PartitionLog log,
                     PartitionState state, TopicConfig config, BooleanSupplier fenced) {
        this(topicPartition, topicId, localNodeId, log, state, config, fenced, tp -> { });
    }

    /**
     * @param appended told after each leader append (by any writer: producers, coordinators, markers) and
     *                 each move of the high watermark of this replica as a follower, so that fetches waiting
     *                 for data, followers' and consumers' reading from this follower included, wake at once
     */
    public Partition(TopicPartition topicPartition, UUID topicId, int localNodeId, PartitionLog log,
                     PartitionState state, TopicConfig config, BooleanSupplier fenced,
                     Consumer<TopicPartition> appended) {
        this(topicPartition, topicId, localNodeId, log, state, config, fenced, () -> false, appended);
    }

    /**
     * @param strictMinIsr whether the high watermark moves only while the ISR is at least
     *                     {@code min.insync.replicas} (the ELR feature is on); read at every move
     * @param appended     as above
     */
    public Partition(TopicPartition topicPartition, UUID topicId, int localNodeId, PartitionLog log,
                     PartitionState state, TopicConfig config, BooleanSupplier fenced, BooleanSupplier strictMinIsr,
                     Consumer<TopicPartition> appended) {
        this.strictMinIsr = strictMinIsr;
        this.appended = appended;
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.localNodeId = localNodeId;
        this.log = log;
        this.fenced = fenced;
        this.config = config;
        long handedOver = log.highWatermark();
        this.highWatermark = handedOver == Long.MAX_VALUE ? log.logStartOffset()
                : Math.max(log.logStartOffset(), Math.min(handedOver, log.logEndOffset()));
        synchronized (appendLock) {
            synchronized (lock) {
                this.state = state;
                if (state.leader() == localNodeId) {
                    becomeLeaderLocked(state, System.currentTimeMillis());
                }
                incrementHighWatermarkLocked();
            }
        }
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public UUID topicId() {
        return topicId;
    }

    public PartitionLog log() {
        return log;
    }

    public PartitionState state() {
        return state;
    }

    public TopicConfig config() {
        return config;
    }

    public boolean isLeader() {
        return state.leader() == localNodeId;
    }

    public int leaderEpoch() {
        return state.leaderEpoch();
    }

    /** Applies a new state from the metadata image; a new leader epoch here resets follower progress. */
    void update(PartitionState newState, TopicConfig newConfig) {
        synchronized (appendLock) { // no append runs under an epoch that is being replaced
            applyUpdate(newState, newConfig);
        }
    }

    private void applyUpdate(PartitionState newState, TopicConfig newConfig) {
        synchronized (lock) {
            PartitionState old = state;
            this.state = newState;
            this.config = newConfig;
            boolean leadsNow = newState.leader() == localNodeId;
            if (leadsNow && (old.leader() != localNodeId || old.leaderEpoch() != newState.leaderEpoch())) {
                becomeLeaderLocked(newState, System.currentTimeMillis());
            } else if (!leadsNow) {
                followers.clear();
                pendingIsrAdditions = Set.of();
            } else {
                for (int replica : newState.replicas()) {
                    if (replica != localNodeId) {
                        followers.computeIfAbsent(replica, r -> new FollowerProgress(0));
                    }
                }
                followers.keySet().retainAll(newState.replicas());
            }
            incrementHighWatermarkLocked();
        }
    }

    private void becomeLeaderLocked(PartitionState newState, long nowMs) {
        log.assignLeaderEpochStart(newState.leaderEpoch());
        leaderEpochStartOffset = log.logEndOffset();
        followers.clear();
        pendingIsrAdditions = Set.of();
        for (int replica : newState.replicas()) {
            if (replica != localNodeId) {
                followers.put(replica, new FollowerProgress(newState.isr().contains(replica) ? nowMs : 0));
            }
        }
    }

    /**
     * Appends a client's (already validated) batch as leader. With acks=all the ISR must be at least
     * {@code min.insync.replicas} before anything is written.
     */
    public AppendInfo appendRecordsToLeader(ByteBuf records, int requiredAcks, AppendOrigin origin) {
        PartitionState current = state;
        if (current.leader() != localNodeId) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + localNodeId + " is not the leader of "
                    + topicPartition + " (leader " + current.leader() + ")");
        }
        int minIsr = config.minInsyncReplicas();
        if (requiredAcks == -1 && current.isr().size() < minIsr) {
            throw new ApiException(Errors.NOT_ENOUGH_REPLICAS, "The size of the current ISR " + current.isr()
                    + " is insufficient to satisfy the min.isr requirement of " + minIsr + " for " + topicPartition);
        }
        AppendInfo info;
        synchronized (appendLock) {
            if (state.leaderEpoch() != current.leaderEpoch()) {
                throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Leadership of " + topicPartition
                        + " changed during the append");
            }
            info = log.appendAsLeader(records, current.leaderEpoch(), origin);
            synchronized (lock) {
                incrementHighWatermarkLocked();
            }
        }
        if (!info.duplicate()) {
            appended.accept(topicPartition);
        }
        return info;
    }

    /**
     * Reads for a consumer (bounded by the high watermark) or a follower (bounded by the log end).
     * Checks leadership and, when the client sent one, its view of the leader epoch.
     */
    public LogReadResult read(long fetchOffset, int maxBytes, boolean uncommitted, int currentLeaderEpoch,
                              boolean minOneBatch) {
        PartitionState current = state;
        if (current.leader() != localNodeId) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + localNodeId + " is not the leader of "
                    + topicPartition);
        }
        checkLeaderEpoch(currentLeaderEpoch, current);
        long maxOffset = uncommitted ? log.logEndOffset() : highWatermark();
        return log.read(fetchOffset, maxBytes, maxOffset, minOneBatch);
    }

    /**
     * A consumer's read from this replica whether it leads or follows (KIP-392 fetch from follower): up
     * to this replica's high watermark, which on a follower is the leader's as last fetched, so a
     * consumer never sees a record the ISR has not acknowledged.
     */
    public LogReadResult readFromReplica(long fetchOffset, int maxBytes, int currentLeaderEpoch, boolean minOneBatch) {
        checkLeaderEpoch(currentLeaderEpoch, state);
        return log.read(fetchOffset, maxBytes, highWatermark(), minOneBatch);
    }

    /** KIP-320: a client that knows a newer epoch talks to a stale leader; an older one must refresh. */
    public static void checkLeaderEpoch(int requested, PartitionState current) {
        if (requested < 0) {
            return;
        }
        if (requested > current.leaderEpoch()) {
            throw new ApiException(Errors.UNKNOWN_LEADER_EPOCH, "Leader epoch " + requested + " is newer than "
                    + current.leaderEpoch());
        }
        if (requested < current.leaderEpoch()) {
            throw new ApiException(Errors.FENCED_LEADER_EPOCH, "Leader epoch " + requested + " is older than "
                    + current.leaderEpoch());
        }
    }

    // ------------------------------------------------------------------ leader side of replication

    /**
     * Records a follower's fetch at {@code fetchOffset}: its log end offset, and when it was last caught
     * up (Kafka's rule: caught up now if it fetched from the leader's end; caught up as of its previous
     * fetch if it fetched from where the leader's end was then).
     *
     * @throws ApiException NOT_LEADER_OR_FOLLOWER if this broker does not lead, or the replica is not
     *                      one of the partition's
     */
    public FollowerFetchOutcome recordFollowerFetch(int replicaId, long fetchOffset, long nowMs) {
        synchronized (lock) {
            PartitionState current = state;
            if (current.leader() != localNodeId) {
                throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + localNodeId
                        + " is not the leader of " + topicPartition);
            }
            FollowerProgress progress = followers.get(replicaId);
            if (progress == null) {
                throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + replicaId
                        + " is not a replica of " + topicPartition);
            }
            long leaderEnd = log.logEndOffset();
            if (fetchOffset >= leaderEnd) {
                progress.lastCaughtUpTimeMs = Math.max(progress.lastCaughtUpTimeMs, nowMs);
            } else if (fetchOffset >= progress.lastFetchLeaderLogEndOffset) {
                progress.lastCaughtUpTimeMs = Math.max(progress.lastCaughtUpTimeMs, progress.lastFetchTimeMs);
            }
            progress.logEndOffset = fetchOffset;
            progress.lastFetchLeaderLogEndOffset = leaderEnd;
            progress.lastFetchTimeMs = nowMs;
            boolean moved = incrementHighWatermarkLocked();
            boolean join = !current.isr().contains(replicaId) && !pendingIsrAdditions.contains(replicaId)
                    && fetchOffset >= highWatermark && fetchOffset >= leaderEpochStartOffset;
            return moved || join ? new FollowerFetchOutcome(moved, join) : FollowerFetchOutcome.NOTHING;
        }
    }

    /** ISR members other than the leader that have not been caught up for {@code maxLagMs}. */
    public List<Integer> laggingIsrMembers(long nowMs, long maxLagMs) {
        synchronized (lock) {
            PartitionState current = state;
            List<Integer> lagging = new ArrayList<>();
            if (current.leader() != localNodeId) {
                return lagging;
            }
            for (int replica : current.isr()) {
                FollowerProgress progress = followers.get(replica);
                if (replica != localNodeId && progress != null && nowMs - progress.lastCaughtUpTimeMs > maxLagMs) {
                    lagging.add(replica);
                }
            }
            return lagging;
        }
    }

    /**
     * Claims the right to send one ISR change: false while another is in flight. A claimed addition is
     * counted in the high watermark at once; {@link #finishIsrChange} releases the claim.
     */
    public boolean beginIsrChange(Set<Integer> additions) {
        if (!isrChangeInFlight.compareAndSet(false, true)) {
            return false;
        }
        synchronized (lock) {
            pendingIsrAdditions = Set.copyOf(additions);
        }
        return true;
    }

    public void finishIsrChange() {
        synchronized (lock) {
            pendingIsrAdditions = Set.of();
            incrementHighWatermarkLocked();
        }
        isrChangeInFlight.set(false);
    }

    /** The current ISR plus {@code replica}, in replica-assignment order. */
    public List<Integer> isrWith(int replica) {
        PartitionState current = state;
        Set<Integer> members = new LinkedHashSet<>(current.isr());
        members.add(replica);
        List<Integer> ordered = new ArrayList<>();
        for (int r : current.replicas()) {
            if (members.contains(r)) {
                ordered.add(r);
            }
        }
        return ordered;
    }

    /** The follower's log end offset as last reported, or -1. */
    public long followerEndOffset(int replicaId) {
        synchronized (lock) {
            FollowerProgress progress = followers.get(replicaId);
            return progress == null ? -1 : progress.logEndOffset;
        }
    }

    // ------------------------------------------------------------------ follower side of replication

    /** Appends batches fetched from the leader, offsets and epochs as they are. */
    public AppendInfo appendRecordsAsFollower(ByteBuf records) {
        synchronized (appendLock) {
            return log.appendAsFollower(records);
        }
    }

    /**
     * Takes the leader's high watermark, capped by what this replica has; never moves it back. A move wakes
     * the fetches waiting on this replica (consumers reading from a follower, KIP-392).
     */
    public void updateFollowerHighWatermark(long leaderHighWatermark) {
        boolean moved = false;
        synchronized (lock) {
            long candidate = Math.min(leaderHighWatermark, log.logEndOffset());
            if (candidate > highWatermark) {
                highWatermark = candidate;
                log.updateHighWatermark(candidate);
                moved = true;
            }
        }
        if (moved) {
            appended.accept(topicPartition);
        }
    }

    /** Drops records from {@code offset} on (they diverge from the leader's log). */
    public void truncateTo(long offset) {
        synchronized (appendLock) {
            log.truncateTo(offset);
            synchronized (lock) {
                capHighWatermarkLocked();
            }
        }
    }

    /** Empties the log and restarts it at {@code offset} (the leader no longer has what this replica lacks). */
    public void truncateFullyAndStartAt(long offset) {
        synchronized (appendLock) {
            log.truncateFullyAndStartAt(offset);
            synchronized (lock) {
                highWatermark = offset;
                log.updateHighWatermark(offset);
            }
        }
    }

    private void capHighWatermarkLocked() {
        long end = log.logEndOffset();
        if (highWatermark > end) {
            highWatermark = end;
            log.updateHighWatermark(end);
        }
    }

    // ------------------------------------------------------------------ offsets

    public long highWatermark() {
        return highWatermark;
    }

    public long logEndOffset() {
        return log.logEndOffset();
    }

    public long logStartOffset() {
        return log.logStartOffset();
    }

    /** Last stable offset: below the first unfinished transaction, never above the high watermark. */
    public long lastStableOffset() {
        long hw = highWatermark();
        var firstUnstable = log.firstUnstableOffset();
        return firstUnstable.isPresent() ? Math.min(hw, firstUnstable.getAsLong()) : hw;
    }

    /**
     * Moves the high watermark to the smallest log end offset in the ISR, if that is higher (and, under the
     * strict min-ISR rule, only while the ISR is at least {@code min.insync.replicas}).
     */
    public boolean maybeIncrementHighWatermark() {
        synchronized (lock) {
            return incrementHighWatermarkLocked();
        }
    }

    private boolean incrementHighWatermarkLocked() {
        PartitionState current = state;
        if (current.leader() != localNodeId || fenced.getAsBoolean()) {
            return false;
        }
        if (current.isr().size() < config.minInsyncReplicas() && strictMinIsr.getAsBoolean()) {
            // Not counting additions in flight: ELR members must hold everything below the high watermark,
            // and an addition is not in the ISR (nor clears the ELR) until its write lands.
            return false;
        }
        long candidate = log.logEndOffset();
        for (int replica : current.isr()) {
            candidate = Math.min(candidate, replicaEndOffsetLocked(replica));
        }
        for (int replica : pendingIsrAdditions) {
            candidate = Math.min(candidate, replicaEndOffsetLocked(replica));
        }
        if (candidate > highWatermark) {
            highWatermark = candidate;
            log.updateHighWatermark(candidate);
            return true;
        }
        return false;
    }

    private long replicaEndOffsetLocked(int replica) {
        if (replica == localNodeId) {
            return log.logEndOffset();
        }
        FollowerProgress progress = followers.get(replica);
        return progress == null ? -1 : progress.logEndOffset;
    }

    @Override
    public String toString() {
        return topicPartition + "(" + state + ")";
    }
}
