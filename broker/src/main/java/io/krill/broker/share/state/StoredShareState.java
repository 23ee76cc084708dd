package io.krill.broker.share.state;

import java.util.List;

/**
 * A share-partition's state as the share coordinator holds it: what {@link ShareState} shows, plus the
 * bookkeeping of its records (the snapshot epoch its update records refer to and how many were written
 * since that snapshot) and the count of delivered records Kafka's v1 RPCs carry. Immutable.
 *
 * @param snapshotEpoch         bumped by every snapshot record of the key; update records name the snapshot
 *                              they apply to
 * @param deliveryCompleteCount as WriteShareGroupState v1 reports it, -1 when no leader told
 * @param updatesSinceSnapshot  update records written (or replayed) since the snapshot
 */
record StoredShareState(int snapshotEpoch, int stateEpoch, int leaderEpoch, long startOffset,
                        int deliveryCompleteCount, long createTimestamp, long writeTimestamp,
                        List<StateBatch> batches, int updatesSinceSnapshot) {
    StoredShareState {
        batches = List.copyOf(batches);
    }

    ShareState toShareState() {
        return new ShareState(stateEpoch, startOffset, leaderEpoch, batches);
    }

    /** This state after an update record (written now or replayed): the one function both use. */
    StoredShareState apply(ShareStateRecords.Update update, int updateIndex, long now) {
        return new StoredShareState(snapshotEpoch, stateEpoch, update.leaderEpoch(), update.startOffset(),
                update.deliveryCompleteCount(), createTimestamp, now,
                StateBatches.merge(batches, update.batches(), update.startOffset()),
                Math.max(updatesSinceSnapshot, updateIndex));
    }
}
