package io.krill.controller.metadata;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A topic as the cluster knows it: name, id, partitions (index = position) and the topic-level config
 * overrides (only what was set; defaults come from the broker config). Immutable.
 */
public record TopicImage(String name, UUID id, List<PartitionState> partitions, Map<String, String> configs,
                         boolean internal) {

    public TopicImage {
        partitions = List.copyOf(partitions);
        configs = Map.copyOf(configs);
        for (int i = 0; i < partitions.size(); i++) {
            if (partitions.get(i).partition() != i) {
                throw new IllegalArgumentException("partition " + i + " of " + name + " is out of place");
            }
        }
    }

    public int partitionCount() {
        return partitions.size();
    }

    /** The state of partition {@code index}, or null when the topic has no such partition. */
    public PartitionState partition(int index) {
        return index >= 0 && index < partitions.size() ? partitions.get(index) : null;
    }

    public TopicImage withPartition(PartitionState state) {
        List<PartitionState> updated = new java.util.ArrayList<>(partitions);
        updated.set(state.partition(), state);
        return new TopicImage(name, id, updated, configs, internal);
    }
}
