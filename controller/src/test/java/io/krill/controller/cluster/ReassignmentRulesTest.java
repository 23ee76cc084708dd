package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.controller.metadata.PartitionState;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** The states a reassignment goes through, as Kafka's KIP-455 describes them. */
class ReassignmentRulesTest {
    private static final IntPredicate ALL_LIVE = b -> true;
    /** RF 2 on {1,2}, 1 leads at epoch 3. */
    private static final PartitionState ON_1_2 = new PartitionState(0, 1, 3, List.of(1, 2), List.of(1, 2), 7);

    private static Errors errorOf(Runnable action) {
        return assertThrows(ApiException.class, action::run).error();
    }

    @Test
    void aMoveAddsFollowersAndCompletesOnceTheTargetIsInTheIsr() {
        PartitionState moving = ReassignmentRules.reassign(ON_1_2, List.of(2, 3), ALL_LIVE);
        assertEquals(List.of(2, 3, 1), moving.replicas(), "target first, then the replicas being removed");
        assertEquals(List.of(3), moving.addingReplicas());
        assertEquals(List.of(1), moving.removingReplicas());
        assertEquals(List.of(1, 2), moving.isr(), "new replicas join the ISR only when they caught up");
        assertEquals(1, moving.leader());
        assertEquals(3, moving.leaderEpoch());
        assertEquals(8, moving.partitionEpoch());
        assertEquals(List.of(2, 3), moving.targetReplicas());
        assertEquals(List.of(2, 1), moving.originalReplicas());
        assertEquals(2, moving.preferredReplica());
        assertNull(ReassignmentRules.complete(moving, ALL_LIVE), "3 is not in the ISR yet");

        PartitionState caughtUp = moving.withIsr(List.of(1, 2, 3)); // the leader's alterPartition
        PartitionState done = ReassignmentRules.complete(caughtUp, ALL_LIVE);
        assertEquals(List.of(2, 3), done.replicas());
        assertEquals(List.of(2, 3), done.isr());
        assertEquals(List.of(), done.addingReplicas());
        assertEquals(List.of(), done.removingReplicas());
        assertEquals(2, done.leader(), "the removed leader hands over to the first live ISR member of the target");
        assertEquals(4, done.leaderEpoch());
        assertEquals(10, done.partitionEpoch());

        PartitionState skipDead = ReassignmentRules.complete(caughtUp, b -> b != 2);
        assertEquals(3, skipDead.leader());
        assertEquals(PartitionState.NO_LEADER, ReassignmentRules.complete(caughtUp, b -> b == 1).leader(),
                "nobody live in the target: no leader until the controller can elect one");
    }

    @Test
    void aLeaderInTheTargetKeepsLeadingAndItsEpoch() {
        PartitionState moving = ReassignmentRules.reassign(ON_1_2, List.of(1, 3), ALL_LIVE);
        PartitionState done = ReassignmentRules.complete(moving.withIsr(List.of(1, 2, 3)), ALL_LIVE);
        assertEquals(List.of(1, 3), done.replicas());
        assertEquals(1, done.leader());
        assertEquals(3, done.leaderEpoch());
    }

    @Test
    void shrinkingAndReorderingCompleteAtOnce() {
        PartitionState shrunk = ReassignmentRules.reassign(ON_1_2, List.of(2), ALL_LIVE);
        assertEquals(List.of(2), shrunk.replicas());
        assertEquals(List.of(2), shrunk.isr());
        assertEquals(2, shrunk.leader());
        assertEquals(4, shrunk.leaderEpoch());
        PartitionState reordered = ReassignmentRules.reassign(ON_1_2, List.of(2, 1), ALL_LIVE);
        assertEquals(List.of(2, 1), reordered.replicas());
        assertEquals(1, reordered.leader(), "leadership stays; a preferred election moves it");
        assertEquals(2, reordered.preferredReplica());
        assertSame(ON_1_2, ReassignmentRules.reassign(ON_1_2, List.of(1, 2), ALL_LIVE), "nothing to do");
    }

    @Test
    void cancellingRevertsToTheOriginalReplicas() {
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS, errorOf(() -> ReassignmentRules.cancel(ON_1_2, ALL_LIVE)));
        PartitionState moving = ReassignmentRules.reassign(ON_1_2, List.of(2, 3), ALL_LIVE).withIsr(List.of(1, 2));
        PartitionState cancelled = ReassignmentRules.cancel(moving, ALL_LIVE);
        assertEquals(List.of(2, 1), cancelled.replicas(), "the original set (its order follows the reassignment)");
        assertEquals(List.of(), cancelled.addingReplicas());
        assertEquals(List.of(), cancelled.removingReplicas());
        assertEquals(List.of(1, 2), cancelled.isr());
        assertEquals(1, cancelled.leader());

        // An added replica that caught up and became leader (1 and 2 died meanwhile) hands over on cancel.
        PartitionState ledByNew = new PartitionState(0, 3, 5, List.of(2, 3, 1), List.of(1, 3), 12, List.of(3),
                List.of(1));
        PartitionState back = ReassignmentRules.cancel(ledByNew, ALL_LIVE);
        assertEquals(List.of(1), back.isr());
        assertEquals(1, back.leader());
        assertEquals(6, back.leaderEpoch());
        PartitionState onlyNewInSync = new PartitionState(0, 3, 5, List.of(2, 3, 1), List.of(3), 12, List.of(3),
                List.of(1));
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, errorOf(() -> ReassignmentRules.cancel(onlyNewInSync, ALL_LIVE)),
                "reverting would leave no in-sync replica");
    }

    @Test
    void aNewTargetReplacesARunningReassignment() {
        PartitionState moving = ReassignmentRules.reassign(ON_1_2, List.of(2, 3), ALL_LIVE);
        PartitionState again = ReassignmentRules.reassign(moving, List.of(2, 3), ALL_LIVE);
        assertSame(moving, again, "the same target again changes nothing (a retried request)");
        PartitionState elsewhere = ReassignmentRules.reassign(moving, List.of(2, 4), ALL_LIVE);
        assertEquals(List.of(2, 4, 1), elsewhere.replicas(), "3 was being added and is not wanted now");
        assertEquals(List.of(4), elsewhere.addingReplicas());
        assertEquals(List.of(1), elsewhere.removingReplicas());
    }
}
