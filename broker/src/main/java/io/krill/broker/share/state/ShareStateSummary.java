package io.krill.broker.share.state;

/**
 * What ReadShareGroupStateSummary answers for one share-partition (DescribeShareGroupOffsets).
 * Immutable.
 *
 * @param stateEpoch   as in {@link ShareState}
 * @param startOffset  as in {@link ShareState}; {@link ShareState#UNINITIALIZED} when not initialized
 * @param leaderEpoch  as in {@link ShareState}
 * @param deliveryCompleteCount records at or above the start offset already acknowledged or archived
 *                     (ReadShareGroupStateSummary v1; Kafka uses it to compute the group's lag)
 */
public record ShareStateSummary(int stateEpoch, long startOffset, int leaderEpoch, long deliveryCompleteCount) {
}
