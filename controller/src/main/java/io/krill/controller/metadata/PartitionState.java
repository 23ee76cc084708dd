package io.krill.controller.metadata;

import java.util.List;

/**
 * The replication state of one partition: the single record every leadership and ISR decision is made
 * from. {@code leader} is -1 when no replica may lead (no live ISR member); every change of leader bumps
 * {@code leaderEpoch}; every change at all bumps {@code partitionEpoch}, which conditional updates
 * compare (Kafka's partition epoch, KIP-497). Immutable.
 */
public record PartitionState(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                             int partitionEpoch) {
    public static final int NO_LEADER = -1;

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    public PartitionState withIsr(List<Integer> newIsr) {
        return new PartitionState(partition, leader, leaderEpoch, replicas, newIsr, partitionEpoch + 1);
    }

    public PartitionState withLeader(int newLeader, List<Integer> newIsr) {
        return new PartitionState(partition, newLeader, leaderEpoch + 1, replicas, newIsr, partitionEpoch + 1);
    }
}
