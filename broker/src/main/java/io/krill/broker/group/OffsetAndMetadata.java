package io.krill.broker.group;

/**
 * One committed offset of a group for one partition, as stored in {@code __consumer_offsets}. Immutable.
 *
 * @param offset          the next offset the group will consume
 * @param leaderEpoch     the leader epoch of the last consumed record, or -1
 * @param metadata        the client's metadata string (may be null)
 * @param commitTimestamp when the coordinator accepted the commit (ms since the epoch)
 * @param expireTimestamp when it expires regardless of the group's state (OffsetCommit v2-4 retention), or -1
 */
public record OffsetAndMetadata(long offset, int leaderEpoch, String metadata, long commitTimestamp,
                                long expireTimestamp) {
    public static final long NO_EXPIRY = -1L;
}
