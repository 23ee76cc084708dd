package io.krill.log;

/**
 * An aborted transaction as the transaction index stores it and a read_committed fetch returns it: the
 * producer, the offsets of its first data batch and of its abort marker, and the last stable offset right
 * after the marker (the first offset of the earliest other transaction still open then, or
 * {@code lastOffset + 1}).
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {
}
