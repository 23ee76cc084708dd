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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One partition hosted on this broker: its log, its replication state (leader, leader epoch, ISR)
 * and its high watermark. Cluster-shaped from the start: the high watermark is the smallest log end
 * offset over the ISR, which on one node is the leader's own.
 *
 * <p>Thread-safety: appends are serialised by {@link #appendLock} (offsets are assigned under it);
 * state and config are swapped through volatile fields by the metadata thread; reads run concurrently
 * and see whole appended batches only (the log publishes its end offset after the write).
 */
public final class Partition {
    private final TopicPartition topicPartition;
    private final UUID topicId;
    private final int localNodeId;
    private final PartitionLog log;
    private final Object appendLock = new Object();
    /** Log end offsets of the followers, as their fetches report them (empty on one node). */
    private final Map<Integer, Long> followerEndOffsets = new ConcurrentHashMap<>();
    private volatile PartitionState state;
    private volatile TopicConfig config;

    public Partition(TopicPartition topicPartition, UUID topicId, int localNodeId, PartitionLog log,
                     PartitionState state, TopicConfig config) {
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.localNodeId = localNodeId;
        this.log = log;
        this.state = state;
        this.config = config;
        maybeIncrementHighWatermark();
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

    void update(PartitionState newState, TopicConfig newConfig) {
        this.state = newState;
        this.config = newConfig;
        maybeIncrementHighWatermark();
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
        synchronized (appendLock) {
            AppendInfo info = log.appendAsLeader(records, current.leaderEpoch(), origin);
            maybeIncrementHighWatermark();
            return info;
        }
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

    public long highWatermark() {
        return log.highWatermark();
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

    /** Moves the high watermark to the smallest log end offset in the ISR, if that is higher. */
    boolean maybeIncrementHighWatermark() {
        PartitionState current = state;
        if (current.leader() != localNodeId) {
            return false;
        }
        long candidate = log.logEndOffset();
        for (int replica : current.isr()) {
            if (replica != localNodeId) {
                Long followerEnd = followerEndOffsets.get(replica);
                candidate = Math.min(candidate, followerEnd == null ? 0 : followerEnd);
            }
        }
        if (candidate > log.highWatermark()) {
            log.updateHighWatermark(candidate);
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return topicPartition + "(" + state + ")";
    }
}
