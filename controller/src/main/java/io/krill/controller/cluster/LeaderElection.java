package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Krill's leader election rule as pure functions of a partition's state record, so that the
 * controller (which chooses), the participant (which takes leadership with a compare-and-set on
 * the record) and the simulation test apply the very same rule:
 *
 * <ol>
 *   <li>keep the current leader if it is live and in the ISR;</li>
 *   <li>else the first live replica, in preference (assignment) order, that is in the ISR;</li>
 *   <li>else, only if unclean election is enabled for the topic, the first live replica, whose
 *       ISR then shrinks to itself;</li>
 *   <li>else nobody ({@link PartitionState#NO_LEADER}).</li>
 * </ol>
 *
 * Every change of leader, to nobody included, bumps the leader epoch; every change at all bumps the
 * partition epoch. Stateless.
 */
public final class LeaderElection {

    private LeaderElection() {
    }

    /** The replica that should lead {@code state}, or {@link PartitionState#NO_LEADER}. */
    public static int chooseLeader(PartitionState state, IntPredicate live, boolean unclean) {
        int current = state.leader();
        if (current != PartitionState.NO_LEADER && live.test(current) && state.isr().contains(current)) {
            return current;
        }
        for (int replica : state.replicas()) {
            if (live.test(replica) && state.isr().contains(replica)) {
                return replica;
            }
        }
        if (unclean) {
            for (int replica : state.replicas()) {
                if (live.test(replica)) {
                    return replica;
                }
            }
        }
        return PartitionState.NO_LEADER;
    }

    /**
     * The state the partition should move to: {@code state} itself when its leader stays, else the
     * state with the chosen leader (or none) and both epochs bumped.
     */
    public static PartitionState next(PartitionState state, IntPredicate live, boolean unclean) {
        int target = chooseLeader(state, live, unclean);
        if (target == state.leader()) {
            return state;
        }
        if (target == PartitionState.NO_LEADER) {
            return state.withLeader(PartitionState.NO_LEADER, state.isr());
        }
        return state.withLeader(target, state.isr().contains(target) ? state.isr() : List.of(target));
    }

    /**
     * Replica {@code self}, told by the controller to lead, takes leadership of the freshly read
     * {@code state}: allowed only from the ISR, or from outside it with unclean election (its ISR then
     * shrinks to itself). Liveness is the controller's call, not the participant's: its view may lag.
     *
     * @return the state to write, or null when {@code self} may not lead
     */
    public static PartitionState promote(PartitionState state, int self, boolean unclean) {
        if (!state.replicas().contains(self)) {
            return null;
        }
        if (state.leader() == self && state.isr().contains(self)) {
            return state;
        }
        if (state.isr().contains(self)) {
            return state.withLeader(self, state.isr());
        }
        return unclean ? state.withLeader(self, List.of(self)) : null;
    }

    /**
     * Replica {@code self} starts a new session (a restart, or after its session expired): whatever it
     * led it no longer leads, and it leaves the ISR unless it is the last member (then it alone may
     * still hold every acknowledged record). It re-enters the ISR only when a leader adds it back.
     *
     * @return the state to write, or null when {@code state} does not involve {@code self}
     */
    public static PartitionState resign(PartitionState state, int self) {
        boolean leads = state.leader() == self;
        boolean leavesIsr = state.isr().contains(self) && state.isr().size() > 1;
        if (!leads && !leavesIsr) {
            return null;
        }
        List<Integer> isr = state.isr();
        if (leavesIsr) {
            isr = new ArrayList<>(state.isr());
            isr.remove(Integer.valueOf(self));
        }
        return leads ? state.withLeader(PartitionState.NO_LEADER, isr) : state.withIsr(isr);
    }
}
