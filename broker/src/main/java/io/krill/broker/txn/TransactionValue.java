package io.krill.broker.txn;

import io.krill.log.TopicPartition;
import io.krill.wire.record.RecordBatch;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * One transactional id's state as stored in {@code __transaction_state} and held by the coordinator:
 * replaced as a whole on every transition, so a reader never sees half of one. Immutable.
 *
 * @param producerId          the producer id in use
 * @param previousProducerId  the id before the last rotation (epoch exhausted), or -1: a producer that
 *                            missed the answer to the rotating InitProducerId may retry with it (KIP-360)
 * @param producerEpoch       the current epoch of {@code producerId}
 * @param lastProducerEpoch   the epoch before the last bump made at the producer's request, or -1: its
 *                            retry of that InitProducerId is recognised and answered the same
 * @param timeoutMs           the producer's transaction.timeout.ms
 * @param state               where the transaction is
 * @param partitions          the partitions (including {@code __consumer_offsets} ones) in the
 *                            transaction; empty when none is open
 * @param txnStartTimestamp   when the open transaction began (first partition added), or -1
 * @param lastUpdateTimestamp the last transition (expiry of the transactional id counts from here)
 * @param nextProducerId      while a version 2 end that exhausted the epoch is prepared: the producer id the
 *                            producer continues with (epoch 0) once it completes; -1 otherwise
 * @param transactionVersion  the transaction protocol of the open or last transaction: 2 when its partitions
 *                            were added implicitly or it was ended with EndTxn v5 (an epoch bump per
 *                            transaction, KIP-890 part 2), else 1; markers are written with it
 */
public record TransactionValue(long producerId, long previousProducerId, short producerEpoch, short lastProducerEpoch,
                               int timeoutMs, TransactionState state, Set<TopicPartition> partitions,
                               long txnStartTimestamp, long lastUpdateTimestamp, long nextProducerId,
                               byte transactionVersion) {
    /** Epochs at or above this cannot be bumped: the next InitProducerId rotates to a new producer id. */
    public static final short MAX_EPOCH = Short.MAX_VALUE - 1;

    public TransactionValue {
        partitions = Collections.unmodifiableSet(new TreeSet<>(partitions));
    }

    /** A value of transaction version 1 with no rotation pending. */
    public TransactionValue(long producerId, long previousProducerId, short producerEpoch, short lastProducerEpoch,
                            int timeoutMs, TransactionState state, Set<TopicPartition> partitions,
                            long txnStartTimestamp, long lastUpdateTimestamp) {
        this(producerId, previousProducerId, producerEpoch, lastProducerEpoch, timeoutMs, state, partitions,
                txnStartTimestamp, lastUpdateTimestamp, RecordBatch.NO_PRODUCER_ID, (byte) 1);
    }

    /** Whether the coordinator bumps the epoch to end this transaction (transaction version 2). */
    boolean bumpsEpochPerTransaction() {
        return transactionVersion >= 2;
    }

    boolean isEpochExhausted() {
        return producerEpoch >= MAX_EPOCH;
    }

    TransactionValue withState(TransactionState newState, long now) {
        return new TransactionValue(producerId, previousProducerId, producerEpoch, lastProducerEpoch, timeoutMs,
                newState, partitions, txnStartTimestamp, now, nextProducerId, transactionVersion);
    }
}
