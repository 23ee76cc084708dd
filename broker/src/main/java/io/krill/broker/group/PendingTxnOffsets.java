package io.krill.broker.group;

import java.util.HashMap;
import java.util.Map;

/**
 * A group's offsets committed inside transactions that have not ended yet (TxnOffsetCommit), per
 * producer id. They are in {@code __consumer_offsets} already, as records of a transactional batch, but
 * count only once the transaction coordinator's commit marker lands on the group's partition: then
 * {@link #complete} hands them over to become the group's committed offsets; an abort marker drops them.
 * While any is pending for a partition, OffsetFetch with {@code require_stable} answers
 * UNSTABLE_OFFSET_COMMIT for it.
 *
 * <p>Not thread-safe: guarded by the group's lock, like the rest of the group.
 */
final class PendingTxnOffsets {
    /** A topic partition as the group coordinator keys offsets. */
    record Key(String topic, int partition) {
    }

    private final Map<Long, Map<Key, OffsetAndMetadata>> byProducer = new HashMap<>();

    void add(long producerId, String topic, int partition, OffsetAndMetadata offset) {
        byProducer.computeIfAbsent(producerId, p -> new HashMap<>()).put(new Key(topic, partition), offset);
    }

    /** Removes and returns the producer's pending offsets (empty when it has none). */
    Map<Key, OffsetAndMetadata> complete(long producerId) {
        Map<Key, OffsetAndMetadata> pending = byProducer.remove(producerId);
        return pending == null ? Map.of() : pending;
    }

    boolean isPending(String topic, int partition) {
        Key key = new Key(topic, partition);
        for (Map<Key, OffsetAndMetadata> offsets : byProducer.values()) {
            if (offsets.containsKey(key)) {
                return true;
            }
        }
        return false;
    }

    boolean isEmpty() {
        return byProducer.isEmpty();
    }
}
