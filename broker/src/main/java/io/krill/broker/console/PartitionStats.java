package io.krill.broker.console;

import io.krill.log.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * What the cluster's brokers told about every partition at one moment: log start and end (high
 * watermark) offsets from the leaders, and each replica's log size from DescribeLogDirs. A partition whose
 * leader did not answer has no offsets here, one whose replica did not answer no size for it; the
 * brokers that did not answer are in {@code unavailable}. Immutable.
 *
 * @param sizes per partition, broker id to that replica's log size in bytes
 */
record PartitionStats(Map<TopicPartition, Long> startOffsets, Map<TopicPartition, Long> endOffsets,
                      Map<TopicPartition, Map<Integer, Long>> sizes, Set<Integer> unavailable, long takenAtMs) {

    PartitionStats {
        startOffsets = Map.copyOf(startOffsets);
        endOffsets = Map.copyOf(endOffsets);
        sizes = Map.copyOf(sizes);
        unavailable = Set.copyOf(unavailable);
    }

    /** The size of {@code broker}'s replica of the partition, or null when not known. */
    Long size(TopicPartition partition, int broker) {
        Map<Integer, Long> replicas = sizes.get(partition);
        return replicas == null ? null : replicas.get(broker);
    }
}
