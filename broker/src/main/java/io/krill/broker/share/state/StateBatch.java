package io.krill.broker.share.state;

/**
 * A persisted range of in-flight records of a share-partition, all in one state with one delivery count.
 * Immutable.
 *
 * @param firstOffset   first offset of the range
 * @param lastOffset    last offset of the range, inclusive
 * @param deliveryState Kafka's record state id: {@link #AVAILABLE}, {@link #ACKNOWLEDGED}, {@link #ARCHIVING} or
 *                      {@link #ARCHIVED}
 *                      (acquired records are persisted as available: a lock does not survive its leader)
 * @param deliveryCount how many times the records were delivered (acquired)
 */
public record StateBatch(long firstOffset, long lastOffset, byte deliveryState, short deliveryCount) {
    public static final byte AVAILABLE = 0;
    public static final byte ACQUIRED = 1;
    public static final byte ACKNOWLEDGED = 2;
    /** Archived, its dead-letter record not yet written (KIP-1191); resumed by the next leader. */
    public static final byte ARCHIVING = 3;
    public static final byte ARCHIVED = 4;

    public StateBatch {
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("empty batch " + firstOffset + ".." + lastOffset);
        }
    }
}
