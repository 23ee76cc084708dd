package io.krill.controller.metadata;

import java.util.List;

/**
 * A reassignment in progress, as ListPartitionReassignments reports it: the partition's replicas
 * (target first, then those being removed) and which of them are being added and removed. Immutable.
 */
public record PartitionReassignment(List<Integer> replicas, List<Integer> addingReplicas,
                                    List<Integer> removingReplicas) {

    public PartitionReassignment {
        replicas = List.copyOf(replicas);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }

    /** The reassignment of {@code state}, or null when it has none. */
    public static PartitionReassignment of(PartitionState state) {
        return state.isReassigning()
                ? new PartitionReassignment(state.replicas(), state.addingReplicas(), state.removingReplicas())
                : null;
    }
}
