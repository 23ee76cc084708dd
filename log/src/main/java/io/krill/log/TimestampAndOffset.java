package io.krill.log;

import java.util.OptionalInt;

/**
 * A ListOffsets answer: a record's timestamp and offset, and the leader epoch of its batch when known.
 * For the log end offset the timestamp is -1.
 */
public record TimestampAndOffset(long timestamp, long offset, OptionalInt leaderEpoch) {
}
