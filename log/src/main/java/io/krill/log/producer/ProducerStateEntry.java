package io.krill.log.producer;

import io.krill.wire.record.RecordBatch;
import java.util.List;
import java.util.Optional;

/**
 * The state of one producer id in one partition: its epoch, its last (up to 5) batches, the
 * coordinator epoch of its last transaction marker, the first offset of its open transaction (-1 if
 * none) and the max timestamp of its last batch (for expiry). Immutable: appends replace the entry, so
 * readers on other threads always see a consistent one.
 */
public final class ProducerStateEntry {
    /** Kafka keeps the last five batches per producer: at most five in-flight requests are allowed. */
    public static final int MAX_BATCHES = 5;

    private final long producerId;
    private final short producerEpoch;
    private final int coordinatorEpoch;
    private final long currentTxnFirstOffset;
    private final long lastTimestamp;
    private final List<BatchMetadata> batches;

    public ProducerStateEntry(long producerId, short producerEpoch, int coordinatorEpoch, long currentTxnFirstOffset,
            long lastTimestamp, List<BatchMetadata> batches) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.coordinatorEpoch = coordinatorEpoch;
        this.currentTxnFirstOffset = currentTxnFirstOffset;
        this.lastTimestamp = lastTimestamp;
        this.batches = List.copyOf(batches);
    }

    /** A producer seen for the first time. */
    public static ProducerStateEntry empty(long producerId) {
        return new ProducerStateEntry(producerId, RecordBatch.NO_PRODUCER_EPOCH, -1, -1, RecordBatch.NO_TIMESTAMP,
                List.of());
    }

    public long producerId() {
        return producerId;
    }

    public short producerEpoch() {
        return producerEpoch;
    }

    public int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    /** First offset of the producer's open transaction, or -1. */
    public long currentTxnFirstOffset() {
        return currentTxnFirstOffset;
    }

    public boolean hasOngoingTxn() {
        return currentTxnFirstOffset >= 0;
    }

    public long lastTimestamp() {
        return lastTimestamp;
    }

    /** The last batches, oldest first (at most {@link #MAX_BATCHES}). */
    public List<BatchMetadata> batches() {
        return batches;
    }

    public boolean isEmpty() {
        return batches.isEmpty();
    }

    /** Sequence of the first record of the oldest kept batch, or -1. */
    public int firstSeq() {
        return batches.isEmpty() ? RecordBatch.NO_SEQUENCE : batches.get(0).firstSeq();
    }

    /** Sequence of the last record of the last batch, or -1. */
    public int lastSeq() {
        return batches.isEmpty() ? RecordBatch.NO_SEQUENCE : batches.get(batches.size() - 1).lastSeq();
    }

    public long lastDataOffset() {
        return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastOffset();
    }

    /**
     * A kept batch with exactly this epoch and sequence range: the incoming batch is a retry of it, and
     * the broker answers with the kept batch's offsets without appending.
     */
    public Optional<BatchMetadata> findDuplicateBatch(short epoch, int firstSeq, int lastSeq) {
        if (epoch != producerEpoch) {
            return Optional.empty();
        }
        for (BatchMetadata b : batches) {
            if (b.firstSeq() == firstSeq && b.lastSeq() == lastSeq) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProducerStateEntry e && producerId == e.producerId && producerEpoch == e.producerEpoch
                && coordinatorEpoch == e.coordinatorEpoch && currentTxnFirstOffset == e.currentTxnFirstOffset
                && lastTimestamp == e.lastTimestamp && batches.equals(e.batches);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(producerId) * 31 + batches.hashCode();
    }

    @Override
    public String toString() {
        return "ProducerStateEntry(pid=" + producerId + ", epoch=" + producerEpoch + ", coordinatorEpoch="
                + coordinatorEpoch + ", txnFirstOffset=" + currentTxnFirstOffset + ", lastTimestamp=" + lastTimestamp
                + ", batches=" + batches + ")";
    }
}
