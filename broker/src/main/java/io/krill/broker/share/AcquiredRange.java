package io.krill.broker.share;

/** A range of records handed to a member, with their delivery count, as ShareFetch reports them. Immutable. */
public record AcquiredRange(long firstOffset, long lastOffset, short deliveryCount) {
}
