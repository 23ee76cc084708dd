package io.krill.log;

/**
 * Who appends to a leader's log, which decides the producer-state checks: {@link #CLIENT} (produce
 * requests: producer epoch and sequence checks, duplicate detection), {@link #COORDINATOR} (transaction
 * markers and coordinator-owned topics: epoch and coordinator-epoch checks only),
 * {@link #COORDINATOR_BUMPED_EPOCH} (a transaction marker of transaction version 2, KIP-890/KIP-1228: the
 * coordinator bumped the producer's epoch to end the transaction, so the marker must carry an epoch above
 * the transaction's), {@link #REPLICATION} (follower appends and log replay: no checks, the leader decided).
 */
public enum AppendOrigin {
    CLIENT,
    COORDINATOR,
    COORDINATOR_BUMPED_EPOCH,
    REPLICATION
}
