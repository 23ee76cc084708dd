package io.krill.broker.txn;

import io.krill.log.TopicPartition;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Writes one transaction's commit or abort markers to the leaders of its partitions. The broker's is
 * {@link TransactionMarkerSender}; unit tests use a fake.
 *
 * <p>Implementations are thread-safe.
 */
interface MarkerWriter {

    /**
     * What to write: a marker of {@code producerId} at {@code producerEpoch} and {@code coordinatorEpoch}
     * to each of {@code partitions}, as long as {@code wanted} says so (it turns false when this broker
     * stops coordinating the transaction). {@code transactionVersion} 2 tells the leaders the epoch was
     * bumped for this marker (WriteTxnMarkers v2, KIP-1228), which they check.
     */
    record Markers(String transactionalId, long producerId, short producerEpoch, boolean commit, int coordinatorEpoch,
                   Set<TopicPartition> partitions, BooleanSupplier wanted, byte transactionVersion) {
        public Markers {
            partitions = Set.copyOf(partitions);
        }
    }

    /**
     * Writes {@code markers}, retrying each partition until its leader acknowledged the marker with
     * acks=all semantics (or the partition's topic is gone), then runs {@code onWritten} once, on a thread
     * of the writer's. A partition whose leader refuses the marker as fenced (a newer producer epoch or
     * coordinator epoch) stops the whole job: {@code onWritten} never runs, as in Kafka, and the
     * transaction stays prepared until a coordinator with a newer epoch loads it.
     */
    void write(Markers markers, Runnable onWritten);
}
