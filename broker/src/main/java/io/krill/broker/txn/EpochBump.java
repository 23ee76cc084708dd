package io.krill.broker.txn;

import io.krill.wire.error.Errors;
import io.krill.wire.record.RecordBatch;

/**
 * The rules of transaction version 2 (KIP-890 part 2) for ending a transaction: the coordinator ends it at
 * the producer's epoch + 1 (the markers carry that epoch, so every late write of the ended transaction is
 * fenced where a marker landed), hands the producer that epoch, and recognises a retry of the EndTxn by
 * the epoch before the bump, which the ended state keeps as its last epoch.
 *
 * <p>Stateless; thread-safe.
 */
final class EpochBump {
    private EpochBump() {
    }

    /** Whether ending {@code v}'s transaction uses the last epoch, so the producer needs a new id. */
    static boolean exhausts(TransactionValue v) {
        return v.producerEpoch() + 1 >= Short.MAX_VALUE;
    }

    /**
     * The Prepare* state ending {@code v}'s transaction at the next epoch; {@code nextProducerId} (or -1) is
     * the id the producer continues with at epoch 0 once it completes.
     */
    static TransactionValue prepared(TransactionValue v, TransactionState prepare, long nextProducerId, long now) {
        long start = v.state() == TransactionState.ONGOING ? v.txnStartTimestamp() : now;
        return new TransactionValue(v.producerId(), v.previousProducerId(), (short) (v.producerEpoch() + 1),
                v.producerEpoch(), v.timeoutMs(), prepare, v.partitions(), start, now, nextProducerId, (byte) 2);
    }

    /**
     * Whether {@code producerId}/{@code producerEpoch} are those a version 2 end was asked with before its
     * bump: the Prepare* or Complete* state keeps the epoch before the bump as the last epoch, with either
     * the same producer id at the bumped epoch or, after a rotation, the old id as the previous one and
     * the new id at epoch 0.
     */
    static boolean isRetry(TransactionValue v, long producerId, short producerEpoch) {
        if (!v.bumpsEpochPerTransaction() || producerEpoch != v.lastProducerEpoch()
                || !(v.state().isPreparing() || v.state() == TransactionState.COMPLETE_COMMIT
                || v.state() == TransactionState.COMPLETE_ABORT)) {
            return false;
        }
        boolean sameId = producerId == v.producerId() && v.producerEpoch() == producerEpoch + 1;
        boolean rotated = producerId == v.previousProducerId() && v.producerEpoch() == 0 && !v.state().isPreparing();
        return sameId || rotated;
    }

    /**
     * The answer to a retried end ({@link #isRetry}): as the first time once the transaction is complete,
     * CONCURRENT_TRANSACTIONS while its markers are still being written, INVALID_TXN_STATE if the retry asks
     * for the other outcome.
     */
    static TransactionCoordinator.EndResult retriedAnswer(TransactionValue v, boolean transitionPending,
                                                          boolean commit) {
        boolean committing = v.state() == TransactionState.PREPARE_COMMIT
                || v.state() == TransactionState.COMPLETE_COMMIT;
        if (committing != commit) {
            return new TransactionCoordinator.EndResult(Errors.INVALID_TXN_STATE, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH);
        }
        if (v.state().isPreparing() || transitionPending) {
            return new TransactionCoordinator.EndResult(Errors.CONCURRENT_TRANSACTIONS, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH);
        }
        return new TransactionCoordinator.EndResult(Errors.NONE, v.producerId(), v.producerEpoch());
    }
}
