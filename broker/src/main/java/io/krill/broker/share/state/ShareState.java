package io.krill.broker.share.state;

import java.util.List;

/**
 * The durable state of one share-partition as the share coordinator keeps it (ReadShareGroupState).
 * Immutable.
 *
 * @param stateEpoch  bumped by every initialization (InitializeShareGroupState: a new group, an offsets
 *                    reset); a write at an older state epoch is FENCED_STATE_EPOCH
 * @param startOffset the share-partition start offset: every record below it is acknowledged or archived;
 *                    {@link #UNINITIALIZED} when the leader must apply {@code share.auto.offset.reset}
 * @param leaderEpoch the partition leader epoch of the last write; a read or write with an older one is
 *                    FENCED_LEADER_EPOCH
 * @param batches     the in-flight ranges at and above {@code startOffset}, in offset order, not overlapping
 */
public record ShareState(int stateEpoch, long startOffset, int leaderEpoch, List<StateBatch> batches) {
    public static final long UNINITIALIZED = -1L;

    public ShareState {
        batches = List.copyOf(batches);
    }
}
