package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Krill's leader election rule as pure functions of a partition's state record, so that the
 * controller (which applies it to fresh records and writes them with compare-and-sets) and the
 * simulation test apply the very same rule:
 *
 * <ol>
 *   <li>keep the current leader if it is live and in the ISR;</li>
 *   <li>else the first live replica, in preference (assignment) order, that is in the ISR;</li>
 *   <li>else, only if unclean election is enabled for the topic, the first live replica, whose
 *       ISR then shrinks to itself;</li>
 *   <li>else nobody ({@link PartitionState#NO_LEADER}).</li>
 * </ol>
 *
 * Operators may also move leadership ({@link #preferred}, {@link #unclean}): such a change is written
 * straight into the record, and the rule above then keeps it (the new leader is live and in the ISR).
 *
 * <p>With eligible leader replicas on ({@link ElrSettings}, Kafka's KIP-966) dead brokers leave the ISR
 * even when none is left, the ELR follows the ISR ({@link EligibleLeaderReplicas#track}), and the order is
 * Kafka's: an ISR member; with the ISR empty, a live ELR member (which becomes the ISR); with both empty,
 * the last known leader (the single last known ELR member) if live, as before the feature when every
 * replica was gone; only then, if allowed, an unclean choice.
 *
 * <p>Every change of leader, to nobody included, bumps the leader epoch; every change at all bumps the
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
     * Preferred election (Kafka's ElectLeaders with PREFERRED) on the freshly read {@code state}: the
     * first replica takes over if it is live and in the ISR. The old leader learns from the record that
     * it no longer leads; its ISR changes fail the compare-and-set from then on.
     *
     * @throws ApiException ELECTION_NOT_NEEDED when the preferred replica leads already,
     *                      PREFERRED_LEADER_NOT_AVAILABLE when it is not live or not in the ISR
     */
    public static PartitionState preferred(PartitionState state, IntPredicate live) {
        int preferred = state.preferredReplica();
        String where = "partition " + state.partition();
        if (preferred == state.leader()) {
            throw new ApiException(Errors.ELECTION_NOT_NEEDED, "The preferred replica " + preferred + " already leads "
                    + where + ".");
        }
        if (preferred == PartitionState.NO_LEADER || !live.test(preferred) || !state.isr().contains(preferred)) {
            throw new ApiException(Errors.PREFERRED_LEADER_NOT_AVAILABLE, "The preferred replica " + preferred + " of "
                    + where + " is " + (preferred != PartitionState.NO_LEADER && live.test(preferred)
                    ? "not in the ISR " + state.isr() : "not live") + ".");
        }
        return state.withLeader(preferred, state.isr());
    }

    /**
     * Unclean election (Kafka's ElectLeaders with UNCLEAN) on the freshly read {@code state}, whatever the
     * topic's {@code unclean.leader.election.enable}: a partition without a leader gets the first live
     * ISR member, else the first live replica, whose ISR then shrinks to itself (records only the old
     * ISR had are lost).
     *
     * @throws ApiException ELECTION_NOT_NEEDED when the partition has a leader,
     *                      ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica is live
     */
    public static PartitionState unclean(PartitionState state, IntPredicate live) {
        return unclean(state, live, ElrSettings.OFF);
    }

    /**
     * {@link #unclean(PartitionState, IntPredicate)} with eligible leader replicas: the first live ISR
     * member, else a live ELR member, else the last known leader, else the first live replica.
     */
    public static PartitionState unclean(PartitionState state, IntPredicate live, ElrSettings elr) {
        if (elr.enabled()) {
            if (state.hasLeader()) {
                throw new ApiException(Errors.ELECTION_NOT_NEEDED, "Partition " + state.partition()
                        + " has a leader, " + state.leader() + ".");
            }
            PartitionState next = elect(state, live, true, elr);
            if (next == null || !next.hasLeader()) {
                throw new ApiException(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, "No replica of partition "
                        + state.partition() + " is live: " + state.replicas() + ".");
            }
            return next;
        }
        if (state.hasLeader()) {
            throw new ApiException(Errors.ELECTION_NOT_NEEDED, "Partition " + state.partition() + " has a leader, "
                    + state.leader() + ".");
        }
        int chosen = chooseLeader(state, live, true);
        if (chosen == PartitionState.NO_LEADER) {
            throw new ApiException(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, "No replica of partition "
                    + state.partition() + " is live: " + state.replicas() + ".");
        }
        return state.withLeader(chosen, state.isr().contains(chosen) ? state.isr() : List.of(chosen));
    }

    /**
     * What the active controller writes for {@code state} given who is live: brokers that are not live
     * leave the ISR (Kafka's controller does the same for a fenced broker), except that an ISR whose
     * members are all gone stays as it is, since any of them may hold records the others never got; then a
     * leader that is not live or not in the ISR is replaced by {@link #chooseLeader} (nobody, when nobody
     * may lead). The election is from the ISR only, unless {@code unclean}: then a live replica outside it
     * leads and the ISR shrinks to it.
     *
     * @return the state to write, or null when {@code state} needs no change
     */
    public static PartitionState elect(PartitionState state, IntPredicate live, boolean unclean) {
        return elect(state, live, unclean, ElrSettings.OFF);
    }

    /**
     * {@link #elect(PartitionState, IntPredicate, boolean)} under {@code elr}: with the feature off, a state
     * that still has ELR lists (a downgrade) loses them first ({@link EligibleLeaderReplicas#withoutFeature});
     * with it on, the order of the class comment.
     *
     * @return the state to write, or null when {@code state} needs no change
     */
    public static PartitionState elect(PartitionState state, IntPredicate live, boolean unclean, ElrSettings elr) {
        if (elr.enabled()) {
            return electWithElr(state, live, unclean, elr);
        }
        PartitionState base = EligibleLeaderReplicas.withoutFeature(state);
        PartitionState next = electFromIsr(base, live, unclean);
        if (base == state || next != null) {
            return next; // built on base, whose epochs are state's
        }
        return base.withIsr(base.isr());
    }

    private static PartitionState electWithElr(PartitionState state, IntPredicate live, boolean unclean,
                                               ElrSettings elr) {
        List<Integer> isr = new ArrayList<>(state.isr().size());
        for (int member : state.isr()) {
            if (live.test(member)) {
                isr.add(member);
            }
        }
        int leader = PartitionState.NO_LEADER;
        int current = state.leader();
        boolean cleanChoice = true;
        if (current != PartitionState.NO_LEADER && live.test(current) && isr.contains(current)) {
            leader = current;
        } else if (!isr.isEmpty()) {
            leader = firstLive(state.replicas(), isr, live);
        } else {
            leader = firstLive(state.replicas(), state.eligibleLeaderReplicas(), live);
            if (leader == PartitionState.NO_LEADER && state.eligibleLeaderReplicas().isEmpty()
                    && state.lastKnownElr().size() == 1 && live.test(state.lastKnownElr().get(0))) {
                leader = state.lastKnownElr().get(0); // the last known leader, as before the feature
            }
            if (leader == PartitionState.NO_LEADER && unclean) {
                leader = firstLive(state.replicas(), state.replicas(), live);
                cleanChoice = false;
            }
            if (leader != PartitionState.NO_LEADER) {
                isr = List.of(leader);
            }
        }
        PartitionState next = new PartitionState(state.partition(), leader,
                leader == current ? state.leaderEpoch() : state.leaderEpoch() + 1, state.replicas(), isr,
                state.partitionEpoch() + 1, state.addingReplicas(), state.removingReplicas(),
                state.eligibleLeaderReplicas(), state.lastKnownElr());
        // After an unclean choice nobody else is known to hold what the new leader has.
        next = cleanChoice ? EligibleLeaderReplicas.track(state, next, elr, EligibleLeaderReplicas.NONE)
                : next.withEligibleLeaderReplicas(List.of(), List.of());
        PartitionState unchanged = new PartitionState(next.partition(), next.leader(), next.leaderEpoch(),
                next.replicas(), next.isr(), state.partitionEpoch(), next.addingReplicas(), next.removingReplicas(),
                next.eligibleLeaderReplicas(), next.lastKnownElr());
        return unchanged.equals(state) ? null : next;
    }

    /** The first replica, in {@code replicas}' order, that is in {@code among} and live; else NO_LEADER. */
    private static int firstLive(List<Integer> replicas, List<Integer> among, IntPredicate live) {
        for (int replica : replicas) {
            if (among.contains(replica) && live.test(replica)) {
                return replica;
            }
        }
        return PartitionState.NO_LEADER;
    }

    private static PartitionState electFromIsr(PartitionState state, IntPredicate live, boolean unclean) {
        List<Integer> isr = new ArrayList<>(state.isr().size());
        for (int member : state.isr()) {
            if (live.test(member)) {
                isr.add(member);
            }
        }
        if (isr.isEmpty()) {
            isr = state.isr();
        }
        int current = state.leader();
        if (current != PartitionState.NO_LEADER && live.test(current) && isr.contains(current)) {
            return isr.equals(state.isr()) ? null : state.withIsr(isr);
        }
        PartitionState shrunk = isr.equals(state.isr()) ? state
                : new PartitionState(state.partition(), state.leader(), state.leaderEpoch(), state.replicas(), isr,
                        state.partitionEpoch(), state.addingReplicas(), state.removingReplicas());
        int target = chooseLeader(shrunk, live, unclean);
        if (target == current) {
            return shrunk == state ? null : state.withIsr(isr);
        }
        if (target == PartitionState.NO_LEADER) {
            return state.withLeader(PartitionState.NO_LEADER, isr);
        }
        return state.withLeader(target, isr.contains(target) ? isr : List.of(target));
    }

    /**
     * Replica {@code self} leaves: at a controlled shutdown, and before it goes live in a new session (a
     * restart, or after its session expired, when it may have lost records it had acknowledged). Whatever
     * it leads moves at once to the first live ISR member in replica order (new leader epoch), or to
     * nobody when there is none; it leaves every ISR where it is not the last member (then it alone may
     * still hold every acknowledged record). It re-enters an ISR only when a leader adds it back. Handing
     * over is safe for the same reason as a preferred election: the new leader is in the ISR, whose
     * smallest log end bounds the high watermark, so it holds every acknowledged record.
     *
     * @return the state to write, or null when {@code state} does not involve {@code self}
     */
    public static PartitionState resign(PartitionState state, int self, IntPredicate live) {
        return resign(state, self, live, ElrSettings.OFF, false);
    }

    /**
     * {@link #resign(PartitionState, int, IntPredicate)} under {@code elr}. With the feature on, {@code self}
     * leaves the ISR even as its last member, and becomes eligible ({@link EligibleLeaderReplicas#track})
     * unless {@code lostUnflushed} (this is the first session after an unclean shutdown: its log may lack
     * records it had acknowledged), in which case it also leaves the ELR. A leadership moves as the
     * election would move it, {@code self} excluded.
     *
     * @return the state to write, or null when {@code state} does not involve {@code self}
     */
    public static PartitionState resign(PartitionState state, int self, IntPredicate live, ElrSettings elr,
                                        boolean lostUnflushed) {
        if (!elr.enabled()) {
            return resign(EligibleLeaderReplicas.withoutFeature(state), self, live, state);
        }
        boolean leads = state.leader() == self;
        boolean eligible = state.eligibleLeaderReplicas().contains(self);
        if (!leads && !state.isr().contains(self) && !(eligible && lostUnflushed)) {
            return null;
        }
        List<Integer> isr = new ArrayList<>(state.isr());
        isr.remove(Integer.valueOf(self));
        PartitionState left = new PartitionState(state.partition(), leads ? PartitionState.NO_LEADER : state.leader(),
                state.leaderEpoch(), state.replicas(), isr, state.partitionEpoch(), state.addingReplicas(),
                state.removingReplicas(), state.eligibleLeaderReplicas(), state.lastKnownElr());
        left = EligibleLeaderReplicas.track(state, left, elr, lostUnflushed ? self : EligibleLeaderReplicas.NONE);
        IntPredicate others = broker -> broker != self && live.test(broker);
        PartitionState next = leads ? electWithElr(left, others, false, elr) : null;
        if (next != null) {
            return next.hasLeader() ? next : new PartitionState(next.partition(), next.leader(),
                    state.leaderEpoch() + 1, next.replicas(), next.isr(), next.partitionEpoch(),
                    next.addingReplicas(), next.removingReplicas(), next.eligibleLeaderReplicas(), next.lastKnownElr());
        }
        return new PartitionState(left.partition(), left.leader(), leads ? state.leaderEpoch() + 1
                : state.leaderEpoch(), left.replicas(), left.isr(), state.partitionEpoch() + 1, left.addingReplicas(),
                left.removingReplicas(), left.eligibleLeaderReplicas(), left.lastKnownElr());
    }

    /** The ISR-only resignation on {@code base}, the feature-off view of {@code original}. */
    private static PartitionState resign(PartitionState base, int self, IntPredicate live, PartitionState original) {
        PartitionState next = resignFromIsr(base, self, live);
        if (base == original || next != null) {
            return next;
        }
        return base.withIsr(base.isr());
    }

    private static PartitionState resignFromIsr(PartitionState state, int self, IntPredicate live) {
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
        if (!leads) {
            return state.withIsr(isr);
        }
        for (int replica : state.replicas()) {
            if (replica != self && live.test(replica) && isr.contains(replica)) {
                return state.withLeader(replica, isr);
            }
        }
        return state.withLeader(PartitionState.NO_LEADER, isr);
    }
}
