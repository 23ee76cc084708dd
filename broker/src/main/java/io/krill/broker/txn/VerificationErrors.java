package io.krill.broker.txn;

import io.krill.wire.error.Errors;

/**
 * How a failed KIP-890 verification reaches the client, per API and version, as Apache Kafka 4.4 tells
 * it. The coordinator's answer ({@link TransactionCoordinator#verify}) is first read as a partition
 * leader reads it ({@link #asLeaderReadsIt}); Produce and TxnOffsetCommit then translate it further, each
 * so that the clients of that version retry or abort as they should.
 *
 * <p>Stateless; thread-safe.
 */
public final class VerificationErrors {
    /** The first Produce version whose clients know TRANSACTION_ABORTABLE (KIP-890). */
    static final short PRODUCE_ABORTABLE_VERSION = 11;
    /** The first TxnOffsetCommit version whose clients know TRANSACTION_ABORTABLE (KIP-890). */
    static final short TXN_OFFSET_COMMIT_ABORTABLE_VERSION = 4;

    private VerificationErrors() {
    }

    /**
     * The coordinator's answer for one partition as the verifying broker reads it: PRODUCER_FENCED is
     * INVALID_PRODUCER_EPOCH (what producers expect from a write), and TRANSACTION_ABORTABLE is
     * INVALID_TXN_STATE for clients that predate it ({@code abortableKnown} false).
     */
    static Errors asLeaderReadsIt(Errors coordinatorError, boolean abortableKnown) {
        return switch (coordinatorError) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case TRANSACTION_ABORTABLE -> abortableKnown ? Errors.TRANSACTION_ABORTABLE : Errors.INVALID_TXN_STATE;
            default -> coordinatorError;
        };
    }

    /**
     * The error a Produce of {@code version} answers for a batch whose verification ended with
     * {@code coordinatorError}: a coordinator that cannot answer now (moving, loading, unreachable, ending
     * the previous transaction, or failing to write an implicit add of transaction version 2) becomes
     * NOT_ENOUGH_REPLICAS, a retriable error every producer retries without refreshing its metadata.
     */
    public static Errors forProduce(Errors coordinatorError, short version) {
        Errors error = asLeaderReadsIt(coordinatorError, version >= PRODUCE_ABORTABLE_VERSION);
        return switch (error) {
            case NETWORK_EXCEPTION, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR,
                    CONCURRENT_TRANSACTIONS, REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                    KAFKA_STORAGE_ERROR -> Errors.NOT_ENOUGH_REPLICAS;
            default -> error;
        };
    }

    /**
     * The error a TxnOffsetCommit of {@code version} answers when the verification of its producer ended
     * with {@code coordinatorError}: as the group coordinator maps its own failures (an unreachable
     * transaction coordinator is COORDINATOR_LOAD_IN_PROGRESS, which clients retry without a lookup).
     */
    public static Errors forTxnOffsetCommit(Errors coordinatorError, short version) {
        Errors error = asLeaderReadsIt(coordinatorError, version >= TXN_OFFSET_COMMIT_ABORTABLE_VERSION);
        return switch (error) {
            case NETWORK_EXCEPTION -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT -> Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            default -> error;
        };
    }
}
