package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * A seeded, deterministic simulation of {@link LeaderElection} and {@link ReassignmentRules}: brokers
 * die and come back (a new session, so they resign), leaders shrink and grow their ISR, operators run
 * preferred and unclean elections and start, replace and cancel reassignments, and after every event
 * the controller completes the reassignments whose target is in sync and applies the election rule to
 * every partition. Thousands of steps per seed; a failure names seed and step.
 */
class LeaderElectionSimulationTest {
    private static final int BROKERS = 5;
    private static final int PARTITIONS = 24;
    private static final int STEPS = 4_000;

    @Test
    void theRuleHoldsOverThousandsOfRandomSteps() {
        for (long seed = 1; seed <= 5; seed++) {
            new Simulation(seed).run();
        }
    }

    @Test
    void aProtocolWithStaleControllerViewsNeverElectsOutsideTheIsr() {
        for (long seed = 11; seed <= 15; seed++) {
            new StaleViewSimulation(seed).run();
        }
    }

    @Test
    void examples() {
        PartitionState s = new PartitionState(0, 2, 4, List.of(2, 1, 0), List.of(2, 0), 9);
        IntPredicate all = b -> true;
        assertNull(LeaderElection.elect(s, all, false), "a live ISR leader stays");
        // The prototype's case: preference [2,1,0], ISR [2,0], 2 dies: 0 leads, skipping 1.
        PartitionState failed = LeaderElection.elect(s, b -> b != 2, false);
        assertEquals(0, failed.leader());
        assertEquals(5, failed.leaderEpoch());
        assertEquals(List.of(0), failed.isr(), "the dead leader also leaves the ISR");
        // Only 1 (not in the ISR) is left: nobody, unless unclean.
        PartitionState none = LeaderElection.elect(s, b -> b == 1, false);
        assertEquals(PartitionState.NO_LEADER, none.leader());
        assertEquals(5, none.leaderEpoch());
        PartitionState unclean = LeaderElection.elect(s, b -> b == 1, true);
        assertEquals(1, unclean.leader());
        assertEquals(List.of(1), unclean.isr());
        // The controller's rule: dead brokers leave the ISR, a dead leader is replaced from the ISR.
        assertNull(LeaderElection.elect(s, b -> true, false), "all live: nothing to write");
        PartitionState elected = LeaderElection.elect(s, b -> b != 2, false);
        assertEquals(0, elected.leader());
        assertEquals(List.of(0), elected.isr(), "the dead leader left the ISR");
        assertEquals(5, elected.leaderEpoch());
        PartitionState followerGone = LeaderElection.elect(s, b -> b != 0, false);
        assertEquals(2, followerGone.leader(), "a live leader stays");
        assertEquals(4, followerGone.leaderEpoch());
        assertEquals(List.of(2), followerGone.isr());
        PartitionState allGone = LeaderElection.elect(s, b -> b == 1, false);
        assertEquals(PartitionState.NO_LEADER, allGone.leader());
        assertEquals(List.of(2, 0), allGone.isr(), "an ISR whose members are all gone stays as it was");
        assertNull(LeaderElection.elect(allGone, b -> b == 1, false), "idempotent");
        assertEquals(1, LeaderElection.elect(s, b -> b == 1, true).leader(), "unclean: the live replica");
        // Resignation hands leadership to a live ISR member.
        PartitionState resigned = LeaderElection.resign(s, 2, b -> true);
        assertEquals(0, resigned.leader());
        assertEquals(5, resigned.leaderEpoch());
        assertEquals(List.of(0), resigned.isr());
        PartitionState alone = LeaderElection.resign(s, 2, b -> b == 1);
        assertEquals(PartitionState.NO_LEADER, alone.leader(), "no live ISR member to hand over to");
        assertEquals(List.of(0), alone.isr());
        assertNull(LeaderElection.resign(new PartitionState(0, -1, 3, List.of(2, 1), List.of(2), 7), 2, b -> true),
                "the last ISR member stays in the ISR");
    }

    @Test
    void operatorElections() {
        PartitionState failedOver = new PartitionState(0, 0, 5, List.of(2, 1, 0), List.of(0, 1, 2), 9);
        PartitionState back = LeaderElection.preferred(failedOver, b -> true);
        assertEquals(2, back.leader());
        assertEquals(6, back.leaderEpoch());
        assertEquals(failedOver.isr(), back.isr());
        assertNull(LeaderElection.elect(back, b -> true, false), "the election rule keeps it");
        assertEquals(Errors.ELECTION_NOT_NEEDED, errorOf(() -> LeaderElection.preferred(back, b -> true)));
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE, errorOf(() -> LeaderElection.preferred(failedOver, b -> b != 2)));
        PartitionState outOfSync = failedOver.withIsr(List.of(0, 1));
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE, errorOf(() -> LeaderElection.preferred(outOfSync, b -> true)));

        PartitionState leaderless = new PartitionState(0, PartitionState.NO_LEADER, 6, List.of(2, 1, 0), List.of(2), 10);
        assertEquals(Errors.ELECTION_NOT_NEEDED, errorOf(() -> LeaderElection.unclean(failedOver, b -> true)));
        assertEquals(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, errorOf(() -> LeaderElection.unclean(leaderless, b -> false)));
        PartitionState forced = LeaderElection.unclean(leaderless, b -> b != 2);
        assertEquals(1, forced.leader());
        assertEquals(List.of(1), forced.isr());
        assertEquals(7, forced.leaderEpoch());
        assertNull(LeaderElection.elect(forced, b -> b != 2, false), "kept, though the topic is clean");
        assertEquals(2, LeaderElection.unclean(leaderless, b -> true).leader(), "a live ISR member first");
    }

    private static Errors errorOf(Runnable action) {
        return assertThrows(ApiException.class, action::run).error();
    }

    /** Brokers, partitions and the events that change them; the controller reacts after each one. */
    private static class Simulation {
        final long seed;
        final Random random;
        final boolean[] live = new boolean[BROKERS];
        final PartitionState[] states = new PartitionState[PARTITIONS];
        final boolean[] unclean = new boolean[PARTITIONS];
        /** How often each operator outcome happened: every one must, or the simulation proves little. */
        final Map<String, Integer> outcomes = new TreeMap<>();
        int step;

        Simulation(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            java.util.Arrays.fill(live, true);
            for (int p = 0; p < PARTITIONS; p++) {
                List<Integer> brokers = new ArrayList<>(List.of(0, 1, 2, 3, 4));
                Collections.shuffle(brokers, random);
                List<Integer> replicas = brokers.subList(0, 1 + random.nextInt(3));
                states[p] = new PartitionState(p, PartitionState.NO_LEADER, 0, replicas, replicas, 0);
                unclean[p] = p % 6 == 5;
            }
        }

        void run() {
            controllerPass();
            for (step = 0; step < STEPS; step++) {
                int dice = random.nextInt(20);
                if (dice < 6) {
                    toggleBroker(random.nextInt(BROKERS));
                } else if (dice < 14) {
                    changeIsr(random.nextInt(PARTITIONS));
                } else if (dice < 16) {
                    electPreferred(random.nextInt(PARTITIONS));
                } else if (dice < 17) {
                    electUnclean(random.nextInt(PARTITIONS));
                } else {
                    reassign(random.nextInt(PARTITIONS));
                }
                for (PartitionState state : states) {
                    checkShape(state);
                }
                controllerPass();
            }
            for (String outcome : List.of("preferred", "preferred refused", "unclean", "unclean refused", "reassigned",
                    "reassigned at once", "cancelled", "completed")) {
                check(outcomes.getOrDefault(outcome, 0) > 0, "the simulation saw '" + outcome + "': " + outcomes);
            }
        }

        void count(String outcome) {
            outcomes.merge(outcome, 1, Integer::sum);
        }

        /** Liveness as the broker running an operator's request sees it: here, exactly. */
        IntPredicate operatorView() {
            return b -> live[b];
        }

        void electPreferred(int p) {
            PartitionState s = states[p];
            int preferred = s.preferredReplica();
            IntPredicate seen = operatorView();
            try {
                PartitionState elected = LeaderElection.preferred(s, seen);
                checkEpochs(s, elected);
                check(elected.leader() == preferred && seen.test(preferred) && s.isr().contains(preferred),
                        "a preferred election elects the live, in-sync preferred replica");
                check(elected.isr().equals(s.isr()), "a preferred election keeps the ISR");
                states[p] = elected;
                count("preferred");
            } catch (ApiException e) {
                count("preferred refused");
                if (e.error() == Errors.ELECTION_NOT_NEEDED) {
                    check(s.leader() == preferred, "not needed only when the preferred replica leads");
                } else {
                    check(e.error() == Errors.PREFERRED_LEADER_NOT_AVAILABLE
                            && (!seen.test(preferred) || !s.isr().contains(preferred)), "refused only when not available");
                }
            }
        }

        void electUnclean(int p) {
            PartitionState s = states[p];
            IntPredicate seen = operatorView();
            try {
                PartitionState elected = LeaderElection.unclean(s, seen);
                checkEpochs(s, elected);
                check(!s.hasLeader() && seen.test(elected.leader()), "an unclean election fills an empty leadership");
                boolean cleanPossible = s.isr().stream().anyMatch(seen::test);
                check(!cleanPossible || s.isr().contains(elected.leader()), "an ISR member when there is one");
                states[p] = elected;
                count("unclean");
            } catch (ApiException e) {
                count("unclean refused");
                check(e.error() == Errors.ELECTION_NOT_NEEDED ? s.hasLeader()
                        : e.error() == Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
                        && s.replicas().stream().noneMatch(seen::test), "refused for the right reason: " + e);
            }
        }

        /** An operator starts, replaces or cancels a reassignment to live brokers. */
        void reassign(int p) {
            PartitionState s = states[p];
            IntPredicate seen = operatorView();
            List<Integer> target = null;
            try {
                PartitionState next;
                if (s.isReassigning() && random.nextInt(4) == 0) {
                    next = ReassignmentRules.cancel(s, seen);
                    check(next.replicas().size() == s.originalReplicas().size()
                            && next.replicas().containsAll(s.originalReplicas()), "a cancel restores the original");
                    count("cancelled");
                } else {
                    List<Integer> liveBrokers = new ArrayList<>();
                    for (int b = 0; b < BROKERS; b++) {
                        if (seen.test(b)) {
                            liveBrokers.add(b);
                        }
                    }
                    if (liveBrokers.isEmpty()) {
                        return;
                    }
                    Collections.shuffle(liveBrokers, random);
                    target = List.copyOf(liveBrokers.subList(0, 1 + random.nextInt(Math.min(3, liveBrokers.size()))));
                    next = ReassignmentRules.reassign(s, target, seen);
                    check(next.targetReplicas().equals(target), "the target is the one asked for");
                    count(next.isReassigning() ? "reassigned" : "reassigned at once");
                }
                checkEpochs(s, next);
                states[p] = next;
            } catch (ApiException e) {
                count("reassignment refused");
                check(e.error() == Errors.INVALID_REPLICA_ASSIGNMENT, "only an emptied ISR is refused: " + e);
                List<Integer> kept = new ArrayList<>(target != null ? target : s.originalReplicas());
                kept.addAll(s.originalReplicas());
                check(s.isr().stream().noneMatch(kept::contains), "refused only when no ISR member would stay");
            }
        }

        /** What must hold of every record at every step. */
        void checkShape(PartitionState s) {
            check(new HashSet<>(s.replicas()).size() == s.replicas().size(), "replicas are distinct");
            check(!s.isr().isEmpty() && s.replicas().containsAll(s.isr()), "the ISR is a non-empty set of replicas");
            check(s.leader() == PartitionState.NO_LEADER || s.isr().contains(s.leader()), "the leader is in the ISR");
            check(s.replicas().containsAll(s.addingReplicas()) && s.replicas().containsAll(s.removingReplicas())
                    && s.addingReplicas().stream().noneMatch(s.removingReplicas()::contains),
                    "adding and removing are disjoint sets of replicas");
            check(s.replicas().subList(0, s.targetReplicas().size()).equals(s.targetReplicas()),
                    "the target comes first");
        }

        void toggleBroker(int broker) {
            live[broker] = !live[broker];
            if (live[broker]) {
                // A new session: the broker resigns before it goes live.
                for (int p = 0; p < PARTITIONS; p++) {
                    PartitionState resigned = LeaderElection.resign(states[p], broker, b -> b != broker && live[b]);
                    if (resigned != null) {
                        check(resigned.leader() != broker, "a resigned broker does not lead");
                        check(states[p].leader() != broker || !resigned.hasLeader() || (states[p].isr().contains(resigned.leader())
                                && live[resigned.leader()]), "leadership goes to a live ISR member");
                        checkEpochs(states[p], resigned);
                        states[p] = resigned;
                    }
                }
            }
        }

        /** The leader (if live) shrinks its ISR by a follower or grows it by a live replica. */
        void changeIsr(int p) {
            PartitionState s = states[p];
            if (s.leader() == PartitionState.NO_LEADER || !live[s.leader()]) {
                return;
            }
            List<Integer> isr = new ArrayList<>(s.isr());
            if (random.nextBoolean() && isr.size() > 1) {
                List<Integer> followers = new ArrayList<>(isr);
                followers.remove(Integer.valueOf(s.leader()));
                isr.remove(followers.get(random.nextInt(followers.size())));
            } else {
                List<Integer> outside = new ArrayList<>(s.replicas());
                outside.removeAll(isr);
                outside.removeIf(b -> !live[b]);
                if (outside.isEmpty()) {
                    return;
                }
                isr.add(outside.get(random.nextInt(outside.size())));
            }
            PartitionState changed = s.withIsr(isr);
            checkEpochs(s, changed);
            states[p] = changed;
        }

        /** The controller completes the reassignments whose target is in the ISR (fresh records). */
        void completeReassignments(IntPredicate seen) {
            for (int p = 0; p < PARTITIONS; p++) {
                PartitionState reassigning = states[p];
                PartitionState completed = ReassignmentRules.complete(reassigning, seen);
                if (completed != null) {
                    checkEpochs(reassigning, completed);
                    check(completed.replicas().equals(reassigning.targetReplicas()) && !completed.isReassigning(),
                            "a completed reassignment leaves the target");
                    check(completed.leader() == reassigning.leader() || completed.leader() == PartitionState.NO_LEADER
                            || seen.test(completed.leader()), "a new leader is live");
                    checkShape(completed);
                    states[p] = completed;
                    count("completed");
                }
            }
        }

        void controllerPass() {
            IntPredicate isLive = b -> live[b];
            completeReassignments(isLive);
            for (int p = 0; p < PARTITIONS; p++) {
                PartitionState before = states[p];
                PartitionState elected = LeaderElection.elect(before, isLive, unclean[p]);
                PartitionState after = elected == null ? before : elected;
                checkEpochs(before, after);
                check(after.isr().stream().noneMatch(isLive::test) || after.isr().stream().allMatch(isLive::test),
                        "dead brokers leave an ISR that has a live member");
                check(!after.isr().isEmpty(), "the ISR is never emptied");
                if (before.leader() != PartitionState.NO_LEADER && live[before.leader()]
                        && before.isr().contains(before.leader())) {
                    check(after.leader() == before.leader(), "a live ISR leader is never replaced");
                }
                if (after.leader() != before.leader() && after.leader() != PartitionState.NO_LEADER) {
                    check(live[after.leader()], "only a live replica is elected");
                    check(unclean[p] || before.isr().contains(after.leader()),
                            "a clean election picks an ISR member");
                }
                check(after.leader() == PartitionState.NO_LEADER || after.isr().contains(after.leader()),
                        "the leader is in the ISR");
                boolean liveIsrMember = after.isr().stream().anyMatch(b -> live[b]);
                check(!liveIsrMember || after.leader() != PartitionState.NO_LEADER,
                        "a partition with a live ISR member has a leader");
                check(LeaderElection.elect(after, isLive, unclean[p]) == null, "the rule is idempotent");
                states[p] = after;
            }
        }

        void checkEpochs(PartitionState before, PartitionState after) {
            check(after.leaderEpoch() >= before.leaderEpoch(), "leader epochs only grow");
            if (after.leader() != before.leader()) {
                check(after.leaderEpoch() > before.leaderEpoch(), "a new leader has a new epoch");
            }
            if (!after.equals(before)) {
                check(after.partitionEpoch() > before.partitionEpoch(), "every change bumps the partition epoch");
            }
        }

        void check(boolean condition, String invariant) {
            assertTrue(condition, () -> invariant + " (seed " + seed + ", step " + step + ")");
        }
    }

    /**
     * The controller decides which partitions to change from a view of the records and of liveness up to
     * a few steps old (its image), then applies {@link LeaderElection#elect} with that stale liveness to
     * the fresh record (the compare-and-set re-checks the rule on what is really there). Stale views may
     * cost an election or shrink an ISR needlessly, never safety.
     */
    private static final class StaleViewSimulation extends Simulation {
        final List<PartitionState[]> recordHistory = new ArrayList<>();
        final List<boolean[]> liveHistory = new ArrayList<>();

        StaleViewSimulation(long seed) {
            super(seed);
        }

        @Override
        IntPredicate operatorView() {
            if (liveHistory.isEmpty()) {
                return super.operatorView();
            }
            boolean[] seenLive = liveHistory.get(liveHistory.size() - 1 - random.nextInt(liveHistory.size()));
            return b -> seenLive[b];
        }

        @Override
        void controllerPass() {
            recordHistory.add(states.clone());
            liveHistory.add(live.clone());
            int lag = Math.min(recordHistory.size() - 1, random.nextInt(4));
            PartitionState[] seenRecords = recordHistory.get(recordHistory.size() - 1 - lag);
            boolean[] seenLive = liveHistory.get(liveHistory.size() - 1 - lag);
            IntPredicate seen = b -> seenLive[b];
            completeReassignments(seen);
            for (int p = 0; p < PARTITIONS; p++) {
                if (LeaderElection.elect(seenRecords[p], seen, unclean[p]) == null) {
                    continue; // the stale image shows nothing to do
                }
                PartitionState fresh = states[p];
                PartitionState written = LeaderElection.elect(fresh, seen, unclean[p]);
                if (written == null) {
                    continue;
                }
                checkEpochs(fresh, written);
                checkShape(written);
                check(written.leader() == PartitionState.NO_LEADER || written.leader() == fresh.leader()
                        || unclean[p] || fresh.isr().contains(written.leader()), "a clean election picks a fresh ISR member");
                check(fresh.isr().containsAll(written.isr()) || unclean[p], "the controller only shrinks an ISR");
                states[p] = written;
                count("stale pass wrote");
            }
            if (recordHistory.size() > 8) {
                recordHistory.remove(0);
                liveHistory.remove(0);
            }
        }
    }
}
