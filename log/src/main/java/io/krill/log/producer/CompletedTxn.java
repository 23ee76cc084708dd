package io.krill.log.producer;

/** A transaction ended by a marker at {@code lastOffset}; {@code firstOffset} is its first data batch's. */
public record CompletedTxn(long producerId, long firstOffset, long lastOffset, boolean aborted) {
}
