package io.krill.log;

/**
 * Who appends to a leader's log, which decides the producer-state checks: {@link #CLIENT} (produce
 * requests: producer epoch and sequence checks, duplicate detection), {@link #COORDINATOR} (transaction
 * markers and coordinator-owned topics: epoch and coordinator-epoch checks only), {@link #REPLICATION}
 * (follower appends and log replay: no checks, the leader decided).
 */
public enum AppendOrigin {
    CLIENT,
    COORDINATOR,
    REPLICATION
}
