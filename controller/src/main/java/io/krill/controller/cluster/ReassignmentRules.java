package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Krill's partition reassignment (Kafka's KIP-455) as pure functions of a partition's state record, so
 * that the broker starting a reassignment, the controller completing it and the simulation test apply
 * the same rules:
 *
 * <ol>
 *   <li>A reassignment to a target is computed from the replicas the partition had before any
 *       reassignment began (the original ones): the replicas become the target followed by the original
 *       replicas outside it; those of the target that are new are <em>adding</em>, the original ones
 *       outside it <em>removing</em>. New replicas start as followers outside the ISR.</li>
 *   <li>It completes once the whole target is in the ISR (the leader adds replicas that caught up):
 *       the replicas become the target, the ISR keeps only target members, and a leader outside the
 *       target hands over to the first live ISR member of the target.</li>
 *   <li>A new target replaces a running reassignment; replicas the old one was adding that the new one
 *       does not want leave at once. Cancelling is a reassignment back to the original replicas.</li>
 *   <li>No step may empty the ISR (that would need an unclean election): it is refused.</li>
 * </ol>
 *
 * Like {@link LeaderElection}, the functions take a freshly read record and return the record to
 * compare-and-set; a change of leader bumps the leader epoch, every change the partition epoch.
 * Stateless.
 */
final class ReassignmentRules {

    private ReassignmentRules() {
    }

    /**
     * Starts, replaces or reverts the reassignment of {@code state} to {@code target} (already checked:
     * not empty, no repeated or unknown broker). Completes at once when the target is in the ISR.
     *
     * @return the state to write ({@code state} itself when nothing changes)
     * @throws ApiException INVALID_REPLICA_ASSIGNMENT when replicas leaving now would empty the ISR
     */
    static PartitionState reassign(PartitionState state, List<Integer> target, IntPredicate live) {
        List<Integer> original = state.originalReplicas();
        List<Integer> replicas = new ArrayList<>(target);
        List<Integer> removing = new ArrayList<>();
        for (int replica : original) {
            if (!target.contains(replica)) {
                replicas.add(replica);
                removing.add(replica);
            }
        }
        List<Integer> adding = new ArrayList<>();
        for (int replica : target) {
            if (!original.contains(replica)) {
                adding.add(replica);
            }
        }
        List<Integer> isr = retained(state.isr(), replicas);
        if (isr.isEmpty()) {
            throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "Reassigning partition " + state.partition()
                    + " to " + target + " would remove every in-sync replica " + state.isr()
                    + " and require an unclean leader election.");
        }
        PartitionState next = withReplicas(state, replicas, adding, removing, isr, live);
        PartitionState completed = complete(next, live);
        return completed != null ? completed : next;
    }

    /**
     * Reverts the reassignment of {@code state}: back to the original replicas.
     *
     * @throws ApiException NO_REASSIGNMENT_IN_PROGRESS when there is none
     */
    static PartitionState cancel(PartitionState state, IntPredicate live) {
        if (!state.isReassigning()) {
            throw new ApiException(Errors.NO_REASSIGNMENT_IN_PROGRESS, "No reassignment of partition "
                    + state.partition() + " is in progress.");
        }
        return reassign(state, state.originalReplicas(), live);
    }

    /**
     * Completes the reassignment of {@code state} if its whole target is in the ISR.
     *
     * @return the state to write, or null when there is nothing to complete yet
     */
    static PartitionState complete(PartitionState state, IntPredicate live) {
        List<Integer> target = state.targetReplicas();
        if (!state.isReassigning() || !state.isr().containsAll(target)) {
            return null;
        }
        return withReplicas(state, target, List.of(), List.of(), retained(state.isr(), target), live);
    }

    /**
     * {@code state} with new replica lists and ISR; a leader that is no longer a replica is replaced by
     * the first live ISR member in the new preference order, or nobody (the controller elects later).
     */
    private static PartitionState withReplicas(PartitionState state, List<Integer> replicas, List<Integer> adding,
                                               List<Integer> removing, List<Integer> isr, IntPredicate live) {
        int leader = state.leader();
        if (leader != PartitionState.NO_LEADER && !replicas.contains(leader)) {
            leader = PartitionState.NO_LEADER;
            for (int replica : replicas) {
                if (isr.contains(replica) && live.test(replica)) {
                    leader = replica;
                    break;
                }
            }
        }
        // Eligible leader replicas stay eligible while they are replicas (a replica removed has no log).
        List<Integer> elr = retained(state.eligibleLeaderReplicas(), replicas);
        elr.removeAll(isr);
        List<Integer> lastKnownElr = retained(state.lastKnownElr(), replicas);
        if (leader == state.leader() && replicas.equals(state.replicas()) && isr.equals(state.isr())
                && adding.equals(state.addingReplicas()) && removing.equals(state.removingReplicas())
                && elr.equals(state.eligibleLeaderReplicas()) && lastKnownElr.equals(state.lastKnownElr())) {
            return state;
        }
        int leaderEpoch = leader == state.leader() ? state.leaderEpoch() : state.leaderEpoch() + 1;
        return new PartitionState(state.partition(), leader, leaderEpoch, replicas, isr, state.partitionEpoch() + 1,
                adding, removing, elr, isr.isEmpty() && elr.isEmpty() ? lastKnownElr : List.of());
    }

    /** The members of {@code isr} that are in {@code replicas}, in ISR order. */
    private static List<Integer> retained(List<Integer> isr, List<Integer> replicas) {
        List<Integer> result = new ArrayList<>(isr);
        result.retainAll(replicas);
        return result;
    }
}
