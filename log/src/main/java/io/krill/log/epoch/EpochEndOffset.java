package io.krill.log.epoch;

/**
 * The answer to OffsetForLeaderEpoch: the largest epoch at most the requested one and the offset where it
 * ended (the next epoch's start offset, or the log end offset for the latest epoch), or
 * {@link #UNDEFINED} (epoch -1, offset -1) when the requested epoch is unknown.
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(LeaderEpochCache.UNDEFINED_EPOCH,
            LeaderEpochCache.UNDEFINED_OFFSET);
}
