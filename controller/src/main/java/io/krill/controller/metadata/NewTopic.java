package io.krill.controller.metadata;

import java.util.List;
import java.util.Map;

/**
 * A request to create a topic: either a partition count and replication factor, or an explicit
 * replica assignment (partition index -> broker ids), plus topic config overrides. Immutable.
 *
 * @param numPartitions -1 for the broker's {@code num.partitions}, ignored when assignments are given
 * @param replicationFactor -1 for the broker's {@code default.replication.factor}
 */
public record NewTopic(String name, int numPartitions, int replicationFactor, Map<Integer, List<Integer>> assignments,
                       Map<String, String> configs, boolean internal) {

    public NewTopic {
        assignments = Map.copyOf(assignments);
        configs = Map.copyOf(configs);
    }

    public static NewTopic of(String name, int numPartitions, int replicationFactor) {
        return new NewTopic(name, numPartitions, replicationFactor, Map.of(), Map.of(), false);
    }
}
