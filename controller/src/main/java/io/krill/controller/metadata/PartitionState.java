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
 *
 * <p>With {@code eligible.leader.replicas.version} >= 1 (Kafka's KIP-966) the controller also keeps
 * {@code eligibleLeaderReplicas} (ELR): replicas out of the ISR that hold every record up to the high
 * watermark, because they left the ISR while it was below {@code min.insync.replicas}, when the high
 * watermark cannot move; a leader may be elected from them once the ISR is empty. {@code lastKnownElr}
 * is set only while the ISR and the ELR are both empty: the replicas that were the last eligible ones,
 * for operators (and, when it is a single replica, the last known leader the election falls back to).
 * Both are empty when the feature is off.
 */
public record PartitionState(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                             int partitionEpoch, List<Integer> addingReplicas, List<Integer> removingReplicas,
                             List<Integer> eligibleLeaderReplicas, List<Integer> lastKnownElr) {
    public static final int NO_LEADER = -1;

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
        eligibleLeaderReplicas = List.copyOf(eligibleLeaderReplicas);
        lastKnownElr = List.copyOf(lastKnownElr);
    }

    /** A partition without eligible leader replicas. */
    public PartitionState(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                          int partitionEpoch, List<Integer> addingReplicas, List<Integer> removingReplicas) {
        this(partition, leader, leaderEpoch, replicas, isr, partitionEpoch, addingReplicas, removingReplicas,
                List.of(), List.of());
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

    /** Whether either list of eligible leader replicas is set. */
    public boolean hasEligibleLeaderReplicas() {
        return !eligibleLeaderReplicas.isEmpty() || !lastKnownElr.isEmpty();
    }

    /** The next state (partition epoch + 1) with {@code newIsr}; the ELR lists stay as they are. */
    public PartitionState withIsr(List<Integer> newIsr) {
        return new PartitionState(partition, leader, leaderEpoch, replicas, newIsr, partitionEpoch + 1,
                addingReplicas, removingReplicas, eligibleLeaderReplicas, lastKnownElr);
    }

    /** The next state (both epochs + 1) with {@code newLeader} and {@code newIsr}; the ELR lists stay. */
    public PartitionState withLeader(int newLeader, List<Integer> newIsr) {
        return new PartitionState(partition, newLeader, leaderEpoch + 1, replicas, newIsr, partitionEpoch + 1,
                addingReplicas, removingReplicas, eligibleLeaderReplicas, lastKnownElr);
    }

    /** This state with the ELR lists replaced, epochs unchanged (a part of building the next state). */
    public PartitionState withEligibleLeaderReplicas(List<Integer> elr, List<Integer> newLastKnownElr) {
        return new PartitionState(partition, leader, leaderEpoch, replicas, isr, partitionEpoch,
                addingReplicas, removingReplicas, elr, newLastKnownElr);
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
