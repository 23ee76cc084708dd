package io.krill.controller.metadata;

import java.util.ArrayList;
import java.util.List;

/**
 * The replication state of one partition: the single record every leadership and ISR decision is made
 * from. {@code leader} is -1 when no replica may lead (no live ISR member); every change of leader bumps
 * {@code leaderEpoch}; every change at all bumps {@code partitionEpoch}, which conditional updates
 * compare (Kafka's partition epoch, KIP-497). Immutable.
 *
 * <p>During a reassignment (Kafka's KIP-455) {@code replicas} is the target followed by the replicas
 * being removed, {@code addingReplicas} are those of the target that were not replicas before, and
 * {@code removingReplicas} those that are not in the target; both are empty otherwise. The first
 * replica is the preferred leader, so during a reassignment it is the target's first.
 */
public record PartitionState(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                             int partitionEpoch, List<Integer> addingReplicas, List<Integer> removingReplicas) {
    public static final int NO_LEADER = -1;

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }

    /** A partition that is not being reassigned. */
    public PartitionState(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                          int partitionEpoch) {
        this(partition, leader, leaderEpoch, replicas, isr, partitionEpoch, List.of(), List.of());
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    /** The replica that should lead when it can: the first of {@link #replicas()}, or NO_LEADER if none. */
    public int preferredReplica() {
        return replicas.isEmpty() ? NO_LEADER : replicas.get(0);
    }

    public boolean isReassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    /** The replicas once the reassignment (if any) completes: {@code replicas} without the removing ones. */
    public List<Integer> targetReplicas() {
        return without(replicas, removingReplicas);
    }

    /** The replicas before the reassignment (if any) began: {@code replicas} without the adding ones. */
    public List<Integer> originalReplicas() {
        return without(replicas, addingReplicas);
    }

    public PartitionState withIsr(List<Integer> newIsr) {
        return new PartitionState(partition, leader, leaderEpoch, replicas, newIsr, partitionEpoch + 1,
                addingReplicas, removingReplicas);
    }

    public PartitionState withLeader(int newLeader, List<Integer> newIsr) {
        return new PartitionState(partition, newLeader, leaderEpoch + 1, replicas, newIsr, partitionEpoch + 1,
                addingReplicas, removingReplicas);
    }

    private static List<Integer> without(List<Integer> from, List<Integer> removed) {
        if (removed.isEmpty()) {
            return from;
        }
        List<Integer> result = new ArrayList<>(from);
        result.removeAll(removed);
        return List.copyOf(result);
    }
}
