package io.krill.broker.coordinator;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where a coordinator's records go: the partitions of its internal topic ({@code __consumer_offsets} for
 * the group coordinator, {@code __transaction_state} for the transaction coordinator). The broker's
 * implementation is {@link PartitionCoordinatorLog}; tests use in-memory ones.
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
        /** A record written by {@link #append}. */
        void replay(byte[] key, byte[] value);

        /**
         * A record written by {@link #appendTransactional} for {@code producerId}: it takes effect only if
         * a commit marker of that producer follows. By default a plain record, for coordinators that never
         * write transactionally.
         */
        default void replayTransactional(long producerId, byte[] key, byte[] value) {
            replay(key, value);
        }

        /** A transaction marker (commit or abort) of {@code producerId}. */
        default void replayMarker(long producerId, boolean commit) {
        }
    }

    /**
     * Appends {@code entries} to partition {@code partition} as one batch. The future completes when
     * the batch is committed (acks=all: every in-sync replica has it), or fails with an
     * {@link io.krill.wire.error.ApiException} whose error is already the coordinator's (NOT_COORDINATOR,
     * COORDINATOR_NOT_AVAILABLE, ...). It completes either before this method returns, on the caller's
     * thread, or later on the coordinator's thread, never on another request's thread.
     */
    CompletableFuture<Void> append(int partition, List<Entry> entries);

    /**
     * Appends {@code entries} as one transactional batch of producer {@code producerId} at
     * {@code producerEpoch} (TxnOffsetCommit): the records count only once the transaction coordinator's
     * commit marker lands on the partition. Completes as {@link #append} does; a producer epoch older
     * than the partition's last one for this producer fails with INVALID_PRODUCER_EPOCH.
     */
    CompletableFuture<Void> appendTransactional(int partition, long producerId, short producerEpoch,
                                                List<Entry> entries);

    /**
     * Whether this broker lost (or may have lost) its coordination session: another broker may meanwhile
     * lead the coordinator's partitions and hold newer state, so a coordinator must not answer from its
     * memory (it answers NOT_COORDINATOR, and clients look it up again). False by default.
     */
    default boolean isFenced() {
        return false;
    }

    /**
     * Whether producer {@code producerId} has a transaction open in partition {@code partition} at
     * {@code producerEpoch}: it wrote there with {@link #appendTransactional} at that epoch since its last
     * marker. Such a producer was verified (or added) when it first wrote in this transaction. The epoch
     * matters for transaction version 2, where the next transaction runs at the next epoch and its write
     * must not join the previous one before that one's marker. By default false, for coordinators that
     * never write transactionally.
     */
    default boolean hasOngoingTransaction(int partition, long producerId, short producerEpoch) {
        return false;
    }

    /** Reads partition {@code partition} from its start to its end, in order. Blocks (disk reads). */
    void replay(int partition, Replayer replayer);
}
