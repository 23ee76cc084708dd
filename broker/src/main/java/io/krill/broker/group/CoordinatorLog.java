package io.krill.broker.group;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where the coordinator's records go: the partitions of {@code __consumer_offsets}. The broker's
 * implementation is {@link PartitionCoordinatorLog}; tests use an in-memory one.
 *
 * <p>Implementations are thread-safe.
 */
public interface CoordinatorLog {

    /** One record: a key and a value, or a null value (a tombstone). */
    record Entry(byte[] key, byte[] value) {
    }

    /** Receives the records of a partition in log order during a replay. */
    @FunctionalInterface
    interface Replayer {
        void replay(byte[] key, byte[] value);
    }

    /**
     * Appends {@code entries} to partition {@code partition} as one batch. The future completes when
     * the batch is committed (acks=all: every in-sync replica has it), or fails with an
     * {@link io.krill.wire.error.ApiException} whose error is already the coordinator's (NOT_COORDINATOR,
     * COORDINATOR_NOT_AVAILABLE, ...). It completes either before this method returns, on the caller's
     * thread, or later on the coordinator's thread, never on another request's thread.
     */
    CompletableFuture<Void> append(int partition, List<Entry> entries);

    /** Reads partition {@code partition} from its start to its end, in order. Blocks (disk reads). */
    void replay(int partition, Replayer replayer);
}
