package io.krill.log.producer;

import io.krill.log.AppendOrigin;
import io.krill.log.InvalidProducerEpochException;
import io.krill.log.OutOfOrderSequenceException;
import io.krill.log.TransactionCoordinatorFencedException;
import io.krill.wire.record.RecordBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The staged change to one producer's state while an append is validated: batches are checked and
 * applied here, and the result is committed with {@link ProducerStateManager#update} only after the bytes
 * are written, so a failed append leaves the state untouched. Not thread-safe (one append).
 *
 * <p>Checks for {@link AppendOrigin#CLIENT} data batches (kept simple; the exactly-once work refines):
 * an epoch older than the current one is fenced ({@link InvalidProducerEpochException}); a newer epoch
 * must start at sequence 0 (unless the producer had no state), and so must an epoch a marker set; the same
 * epoch must continue at last sequence + 1 (wrapping after Integer.MAX_VALUE), else
 * {@link OutOfOrderSequenceException}. A producer
 * without state (new, or expired) may start at any sequence. Markers ({@link AppendOrigin#COORDINATOR}
 * and replication alike) are checked for an older producer epoch or an older coordinator epoch
 * ({@link TransactionCoordinatorFencedException}) unless the origin is {@link AppendOrigin#REPLICATION}.
 * A marker of transaction version 2 ({@link AppendOrigin#COORDINATOR_BUMPED_EPOCH}) must carry an epoch above
 * the producer's, since the coordinator bumps it to end every transaction; the same epoch is accepted only
 * when no transaction is open here (the marker was already applied: a retry), never to end a transaction
 * of that epoch, which would be the next transaction's (KIP-1228).
 */
public final class ProducerAppendInfo {
    private final long producerId;
    private final ProducerStateEntry current;
    private final AppendOrigin origin;
    private short epoch;
    private int coordinatorEpoch;
    private long txnFirstOffset;
    private long lastTimestamp;
    private final List<BatchMetadata> batches;
    private final List<Long> startedTxns = new ArrayList<>();

    ProducerAppendInfo(long producerId, ProducerStateEntry current, AppendOrigin origin) {
        this.producerId = producerId;
        this.current = current == null ? ProducerStateEntry.empty(producerId) : current;
        this.origin = origin;
        this.epoch = this.current.producerEpoch();
        this.coordinatorEpoch = this.current.coordinatorEpoch();
        this.txnFirstOffset = this.current.currentTxnFirstOffset();
        this.lastTimestamp = this.current.lastTimestamp();
        this.batches = new ArrayList<>(this.current.batches());
    }

    public long producerId() {
        return producerId;
    }

    /** The state before this append. */
    public ProducerStateEntry currentEntry() {
        return current;
    }

    /** Applies a data batch (header fields only). */
    public void appendDataBatch(short batchEpoch, int firstSeq, int lastSeq, long maxTimestamp, long firstOffset,
            long lastOffset, boolean transactional) {
        if (origin != AppendOrigin.REPLICATION) {
            // Coordinator writes (transactional offset commits) are fenced by epoch too, but carry no sequence.
            checkEpoch(batchEpoch);
        }
        if (origin == AppendOrigin.CLIENT) {
            checkSequence(batchEpoch, firstSeq);
        }
        if (batchEpoch != epoch) {
            batches.clear();
            epoch = batchEpoch;
        }
        batches.add(new BatchMetadata(firstSeq, lastSeq, firstOffset, lastOffset, maxTimestamp));
        while (batches.size() > ProducerStateEntry.MAX_BATCHES) {
            batches.remove(0);
        }
        lastTimestamp = maxTimestamp;
        if (transactional && txnFirstOffset < 0) {
            txnFirstOffset = firstOffset;
            startedTxns.add(firstOffset);
        }
    }

    /**
     * Applies a commit/abort marker at {@code offset}: ends the producer's open transaction.
     *
     * @return the completed transaction (first offset = the marker's when no data was written)
     */
    public CompletedTxn appendEndTxnMarker(boolean abort, short markerEpoch, int markerCoordinatorEpoch, long offset,
            long timestamp) {
        if (origin != AppendOrigin.REPLICATION) {
            checkEpoch(markerEpoch);
            if (origin == AppendOrigin.COORDINATOR_BUMPED_EPOCH && markerEpoch == epoch && txnFirstOffset >= 0) {
                throw new InvalidProducerEpochException("transaction version 2 marker for producer " + producerId
                        + " at epoch " + markerEpoch + " cannot end the transaction open at that same epoch");
            }
            if (markerCoordinatorEpoch < coordinatorEpoch) {
                throw new TransactionCoordinatorFencedException("marker for producer " + producerId
                        + " from coordinator epoch " + markerCoordinatorEpoch + " older than " + coordinatorEpoch);
            }
        }
        if (markerEpoch != epoch) {
            batches.clear();
            epoch = markerEpoch;
        }
        coordinatorEpoch = markerCoordinatorEpoch;
        long first = txnFirstOffset >= 0 ? txnFirstOffset : offset;
        txnFirstOffset = -1;
        lastTimestamp = timestamp;
        return new CompletedTxn(producerId, first, offset, abort);
    }

    private void checkEpoch(short batchEpoch) {
        if (batchEpoch < epoch) {
            throw new InvalidProducerEpochException("producer " + producerId + " epoch " + batchEpoch
                    + " is older than the current epoch " + epoch);
        }
    }

    private void checkSequence(short batchEpoch, int firstSeq) {
        if (batchEpoch != epoch) {
            if (firstSeq != 0 && epoch != RecordBatch.NO_PRODUCER_EPOCH) {
                throw new OutOfOrderSequenceException("producer " + producerId + " new epoch " + batchEpoch
                        + " must start at sequence 0, not " + firstSeq);
            }
            return;
        }
        if (batches.isEmpty()) {
            // The epoch is known but no batch of it is (a marker bumped it, transaction version 2): the
            // producer starts that epoch at 0, as Kafka requires; a later batch first would be a gap.
            if (firstSeq != 0 && epoch != RecordBatch.NO_PRODUCER_EPOCH) {
                throw new OutOfOrderSequenceException("producer " + producerId + " epoch " + batchEpoch
                        + " has no batch yet: sequence " + firstSeq + " is not 0");
            }
            return;
        }
        int last = batches.get(batches.size() - 1).lastSeq();
        int expected = last == Integer.MAX_VALUE ? 0 : last + 1;
        if (firstSeq != expected) {
            throw new OutOfOrderSequenceException("producer " + producerId + " epoch " + batchEpoch + ": sequence "
                    + firstSeq + " does not follow " + last);
        }
    }

    /** First offsets of transactions this append opened. */
    List<Long> startedTxns() {
        return startedTxns;
    }

    /** The entry after this append. */
    public ProducerStateEntry toEntry() {
        return new ProducerStateEntry(producerId, epoch, coordinatorEpoch, txnFirstOffset, lastTimestamp, batches);
    }
}
