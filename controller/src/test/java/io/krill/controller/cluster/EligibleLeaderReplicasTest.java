package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * The eligible-leader-replicas rules (KIP-966) as every writer applies them: how the ELR follows the ISR,
 * the election order (ISR, then a live ELR member, then the last known leader, then unclean), a broker
 * restarted after an unclean shutdown leaving the ELR, min ISR changes and the feature's downgrade.
 */
class EligibleLeaderReplicasTest {
    private static final ElrSettings MIN_ISR_2 = new ElrSettings(true, 2);
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);

    private static PartitionState state(int leader, List<Integer> isr, List<Integer> elr, List<Integer> lastKnown) {
        return new PartitionState(0, leader, 5, REPLICAS, isr, 20, List.of(), List.of(), elr, lastKnown);
    }

    private static IntPredicate live(Integer... brokers) {
        Set<Integer> ids = Set.of(brokers);
        return ids::contains;
    }

    @Test
    void aReplicaLeavingAnIsrBelowTheMinimumBecomesEligible() {
        PartitionState before = state(1, List.of(1, 2, 3), List.of(), List.of());
        PartitionState twoLeft = EligibleLeaderReplicas.track(before, before.withIsr(List.of(1, 2)), MIN_ISR_2,
                EligibleLeaderReplicas.NONE);
        assertEquals(List.of(), twoLeft.eligibleLeaderReplicas(), "the ISR is still at the minimum: 3 may lack records");
        PartitionState oneLeft = EligibleLeaderReplicas.track(twoLeft, twoLeft.withIsr(List.of(1)), MIN_ISR_2,
                EligibleLeaderReplicas.NONE);
        assertEquals(List.of(2), oneLeft.eligibleLeaderReplicas(), "2 left while the high watermark was frozen");
        assertEquals(List.of(), oneLeft.lastKnownElr());
    }

    @Test
    void aRejoiningMemberLeavesTheElrAndAnIsrAtTheMinimumClearsIt() {
        PartitionState below = state(1, List.of(1), List.of(2, 3), List.of());
        PartitionState threeBack = EligibleLeaderReplicas.track(below, below.withIsr(List.of(1, 3)),
                new ElrSettings(true, 3), EligibleLeaderReplicas.NONE);
        assertEquals(List.of(2), threeBack.eligibleLeaderReplicas());
        PartitionState atMinimum = EligibleLeaderReplicas.track(below, below.withIsr(List.of(1, 3)), MIN_ISR_2,
                EligibleLeaderReplicas.NONE);
        assertEquals(List.of(), atMinimum.eligibleLeaderReplicas());
    }

    @Test
    void theControllerEmptiesTheIsrOfDeadBrokersIntoTheElrAndElectsALiveMemberOfIt() {
        PartitionState led = state(1, List.of(1, 2), List.of(), List.of());
        PartitionState afterTwo = LeaderElection.elect(led, live(1, 3), false, MIN_ISR_2);
        assertEquals(1, afterTwo.leader());
        assertEquals(List.of(1), afterTwo.isr());
        assertEquals(List.of(2), afterTwo.eligibleLeaderReplicas());

        PartitionState allGone = LeaderElection.elect(afterTwo, live(3), false, MIN_ISR_2);
        assertEquals(PartitionState.NO_LEADER, allGone.leader());
        assertEquals(afterTwo.leaderEpoch() + 1, allGone.leaderEpoch());
        assertEquals(List.of(), allGone.isr(), "with ELRs the ISR empties: its members are kept as eligible");
        assertEquals(List.of(1, 2), allGone.eligibleLeaderReplicas());
        assertNull(LeaderElection.elect(allGone, live(3), false, MIN_ISR_2), "3 may lack records: nobody leads");

        PartitionState twoBack = LeaderElection.elect(allGone, live(2, 3), false, MIN_ISR_2);
        assertEquals(2, twoBack.leader());
        assertEquals(List.of(2), twoBack.isr());
        assertEquals(List.of(1), twoBack.eligibleLeaderReplicas(), "the elected member leaves the ELR");
        assertEquals(allGone.leaderEpoch() + 1, twoBack.leaderEpoch());
        assertEquals(allGone.partitionEpoch() + 1, twoBack.partitionEpoch());
        assertNull(LeaderElection.elect(twoBack, live(2, 3), false, MIN_ISR_2), "stable");
    }

    @Test
    void uncleanElectionComesOnlyAfterTheElrAndTheLastKnownLeader() {
        PartitionState elrOnly = state(PartitionState.NO_LEADER, List.of(), List.of(1, 2), List.of());
        assertEquals(2, LeaderElection.elect(elrOnly, live(2, 3), true, MIN_ISR_2).leader(),
                "a live ELR member before an unclean choice");
        PartitionState uncleanOverElr = LeaderElection.elect(elrOnly, live(3), true, MIN_ISR_2);
        assertEquals(3, uncleanOverElr.leader(), "as in Kafka, an allowed unclean election does not wait for the ELR");
        assertEquals(List.of(), uncleanOverElr.eligibleLeaderReplicas(), "nobody is known to hold what 3 has");
        PartitionState lastKnown = state(PartitionState.NO_LEADER, List.of(), List.of(), List.of(2));
        PartitionState lastLeader = LeaderElection.elect(lastKnown, live(2, 3), false, MIN_ISR_2);
        assertEquals(2, lastLeader.leader(), "the last known leader, as before the feature");
        assertEquals(List.of(2), lastLeader.isr());
        assertEquals(List.of(), lastLeader.lastKnownElr());

        PartitionState twoLastKnown = state(PartitionState.NO_LEADER, List.of(), List.of(), List.of(1, 2));
        assertNull(LeaderElection.elect(twoLastKnown, live(1, 3), false, MIN_ISR_2),
                "no single last known leader: an operator's decision");
        PartitionState unclean = LeaderElection.elect(twoLastKnown, live(3), true, MIN_ISR_2);
        assertEquals(3, unclean.leader());
        assertEquals(List.of(3), unclean.isr());
        assertEquals(List.of(), unclean.eligibleLeaderReplicas());
        assertEquals(List.of(), unclean.lastKnownElr());
    }

    @Test
    void anOperatorsUncleanElectionPrefersTheElr() {
        PartitionState elrOnly = state(PartitionState.NO_LEADER, List.of(), List.of(1, 2), List.of());
        PartitionState elected = LeaderElection.unclean(elrOnly, live(2, 3), MIN_ISR_2);
        assertEquals(2, elected.leader());
        assertEquals(List.of(1), elected.eligibleLeaderReplicas());
        PartitionState nobodyEligible = LeaderElection.unclean(elrOnly, live(3), MIN_ISR_2);
        assertEquals(3, nobodyEligible.leader(), "the operator asked: the first live replica");
        assertEquals(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, assertThrows(ApiException.class,
                () -> LeaderElection.unclean(elrOnly, live(), MIN_ISR_2)).error());
        assertEquals(Errors.ELECTION_NOT_NEEDED, assertThrows(ApiException.class,
                () -> LeaderElection.unclean(state(1, List.of(1), List.of(), List.of()), live(1), MIN_ISR_2)).error());
    }

    @Test
    void aBrokerRestartedUncleanlyLeavesTheElrAndIsRecordedAsLastKnown() {
        PartitionState allGone = state(PartitionState.NO_LEADER, List.of(), List.of(1, 2), List.of());
        PartitionState oneBack = LeaderElection.resign(allGone, 1, live(), MIN_ISR_2, true);
        assertEquals(List.of(2), oneBack.eligibleLeaderReplicas());
        assertEquals(allGone.partitionEpoch() + 1, oneBack.partitionEpoch());
        assertNull(LeaderElection.resign(oneBack, 1, live(), MIN_ISR_2, true), "nothing left to leave");
        PartitionState bothBack = LeaderElection.resign(oneBack, 2, live(1), MIN_ISR_2, true);
        assertEquals(List.of(), bothBack.eligibleLeaderReplicas());
        assertEquals(List.of(2), bothBack.lastKnownElr(), "the last eligible replica, for operators");
        PartitionState elected = LeaderElection.elect(bothBack, live(1, 2), false, MIN_ISR_2);
        assertEquals(2, elected.leader(), "the last known leader, which Kafka also elects");

        assertNull(LeaderElection.resign(oneBack, 2, live(), MIN_ISR_2, false),
                "a clean restart keeps the broker eligible");
    }

    @Test
    void aQuickUncleanRestartOfTheLastIsrMemberHandsOverToTheElr() {
        PartitionState lastMember = state(3, List.of(3), List.of(1), List.of());
        PartitionState resigned = LeaderElection.resign(lastMember, 3, live(1), MIN_ISR_2, true);
        assertEquals(1, resigned.leader(), "1 holds everything up to the frozen high watermark; 3 may not");
        assertEquals(List.of(1), resigned.isr());
        assertEquals(List.of(), resigned.eligibleLeaderReplicas());
        assertEquals(lastMember.leaderEpoch() + 1, resigned.leaderEpoch());

        PartitionState alone = state(3, List.of(3), List.of(), List.of());
        PartitionState leaderless = LeaderElection.resign(alone, 3, live(), MIN_ISR_2, true);
        assertEquals(PartitionState.NO_LEADER, leaderless.leader());
        assertEquals(List.of(), leaderless.isr());
        assertEquals(List.of(), leaderless.eligibleLeaderReplicas());
        assertEquals(List.of(3), leaderless.lastKnownElr());
    }

    @Test
    void aControlledShutdownHandsOverAndLeavesTheLastMemberEligible() {
        PartitionState led = state(1, List.of(1, 2), List.of(), List.of());
        PartitionState handedOver = LeaderElection.resign(led, 1, live(2, 3), MIN_ISR_2, false);
        assertEquals(2, handedOver.leader());
        assertEquals(List.of(2), handedOver.isr());
        assertEquals(List.of(1), handedOver.eligibleLeaderReplicas());

        PartitionState last = LeaderElection.resign(handedOver, 2, live(3), MIN_ISR_2, false);
        assertEquals(PartitionState.NO_LEADER, last.leader());
        assertEquals(List.of(), last.isr());
        assertEquals(List.of(1, 2), last.eligibleLeaderReplicas());
    }

    @Test
    void aChangedMinIsrClearsTheElrAndKeepsItAsLastKnownWhenTheIsrIsEmpty() {
        PartitionState below = state(1, List.of(1), List.of(2), List.of());
        assertEquals(List.of(), EligibleLeaderReplicas.cleared(below).eligibleLeaderReplicas());
        assertEquals(List.of(), EligibleLeaderReplicas.cleared(below).lastKnownElr());
        PartitionState empty = state(PartitionState.NO_LEADER, List.of(), List.of(2, 3), List.of());
        assertEquals(List.of(2, 3), EligibleLeaderReplicas.cleared(empty).lastKnownElr());
        assertEquals(20, EligibleLeaderReplicas.cleared(empty).partitionEpoch(), "a part of the next state only");
    }

    @Test
    void turningTheFeatureOffDropsTheListsAndGivesAnEmptyIsrItsEligibleMembersBack() {
        PartitionState empty = state(PartitionState.NO_LEADER, List.of(), List.of(1, 2), List.of());
        PartitionState off = LeaderElection.elect(empty, live(), false, ElrSettings.OFF);
        assertEquals(List.of(1, 2), off.isr());
        assertEquals(List.of(), off.eligibleLeaderReplicas());
        assertEquals(empty.partitionEpoch() + 1, off.partitionEpoch());
        assertEquals(empty.leaderEpoch(), off.leaderEpoch());
        assertNull(LeaderElection.elect(off, live(), false, ElrSettings.OFF), "then Krill's ISR-only rule");
        assertEquals(2, LeaderElection.elect(empty, live(2), false, ElrSettings.OFF).leader());

        PartitionState below = state(1, List.of(1), List.of(2), List.of());
        PartitionState cleared = LeaderElection.elect(below, live(1, 2), false, ElrSettings.OFF);
        assertEquals(List.of(1), cleared.isr());
        assertEquals(List.of(), cleared.eligibleLeaderReplicas());
        assertEquals(below.leaderEpoch(), cleared.leaderEpoch());
    }

    @Test
    void withTheFeatureOffTheIsrOnlyRuleIsUnchanged() {
        PartitionState led = state(1, List.of(1, 2), List.of(), List.of());
        PartitionState afterBoth = LeaderElection.elect(led, live(3), false, ElrSettings.OFF);
        assertEquals(List.of(1, 2), afterBoth.isr(), "an ISR whose members are all gone stays");
        assertEquals(List.of(), afterBoth.eligibleLeaderReplicas());
        assertEquals(LeaderElection.resign(led, 2, live(1, 3)),
                LeaderElection.resign(led, 2, live(1, 3), ElrSettings.OFF, true));
    }

    @Test
    void reassignmentKeepsOnlyEligibleReplicasThatStayAssigned() {
        PartitionState below = new PartitionState(0, 1, 5, List.of(1, 2, 3), List.of(1), 20, List.of(), List.of(),
                List.of(2, 3), List.of());
        PartitionState moving = ReassignmentRules.reassign(below, List.of(1, 2, 4), live(1, 2, 3, 4));
        assertEquals(List.of(2, 3), moving.eligibleLeaderReplicas(), "3 is still a replica while it is removed");
        PartitionState done = ReassignmentRules.complete(moving.withIsr(List.of(1, 2, 4)), live(1, 2, 3, 4));
        assertEquals(List.of(1, 2, 4), done.replicas());
        assertEquals(List.of(), done.eligibleLeaderReplicas(), "2 is in the ISR, 3 no longer a replica");
    }
}
