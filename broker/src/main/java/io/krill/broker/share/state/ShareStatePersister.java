package io.krill.broker.share.state;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The durable state of share-partitions, as the partition leaders and the group coordinator use it. The
 * broker's implementation sends each call to the share coordinator of the key (this broker's own when it
 * leads that partition of {@code __share_group_state}, else Initialize/Read/Write/DeleteShareGroupState or
 * ReadShareGroupStateSummary to the broker that does) and retries NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS within its request timeout.
 *
 * <p>Futures fail with an {@link io.krill.wire.error.ApiException} carrying Kafka's error:
 * FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH, COORDINATOR_NOT_AVAILABLE (after the retries), ...
 * They complete on any thread; callers must not block it for long.
 *
 * <p>Implementations are thread-safe.
 */
public interface ShareStatePersister {

    /**
     * InitializeShareGroupState: sets the key's state to {@code startOffset} with no in-flight batches at
     * {@code stateEpoch} (which must not be below the current one, else FENCED_STATE_EPOCH; the same epoch
     * again is accepted, as Kafka 4.4 accepts it, so that a retried initialization succeeds). Used by the
     * group coordinator when a share group first consumes a partition and by AlterShareGroupOffsets. A topic
     * id or partition the metadata does not know is UNKNOWN_TOPIC_OR_PARTITION.
     */
    CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset);

    /**
     * ReadShareGroupState by the partition's leader at {@code leaderEpoch}, which becomes the key's leader
     * epoch (an older one is FENCED_LEADER_EPOCH; a newer one is committed before the answer, whose leader
     * epoch is therefore always {@code leaderEpoch}). A key never initialized answers a state with
     * {@link ShareState#UNINITIALIZED} start offset, state epoch 0 and no batches, so that the leader
     * applies {@code share.auto.offset.reset} and writes the result (a write to such a key creates it).
     */
    CompletableFuture<ShareState> read(SharePartitionKey key, int leaderEpoch);

    /**
     * WriteShareGroupState: merges {@code batches} into the key's state, as Kafka's share coordinator
     * does: a batch replaces what it overlaps, batches wholly below the new start offset are dropped;
     * {@code startOffset} -1 keeps the current one. Completes once the share coordinator's record is
     * committed to {@code __share_group_state} (every in-sync replica has it). A {@code stateEpoch} below
     * the key's is FENCED_STATE_EPOCH, a {@code leaderEpoch} below it FENCED_LEADER_EPOCH.
     */
    CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                                  List<StateBatch> batches);

    /**
     * ReadShareGroupStateSummary: the key's epochs, start offset and delivery-complete count (the writer's,
     * or counted from the batches when the writer gave none); a key never initialized answers start offset
     * -1, epochs 0 and count -1. {@code leaderEpoch} is not checked (Kafka 4.4 does not check it).
     */
    CompletableFuture<ShareStateSummary> readSummary(SharePartitionKey key, int leaderEpoch);

    /** DeleteShareGroupState: forgets the key (DeleteGroups, DeleteShareGroupOffsets). A missing key is fine. */
    CompletableFuture<Void> delete(SharePartitionKey key);
}
