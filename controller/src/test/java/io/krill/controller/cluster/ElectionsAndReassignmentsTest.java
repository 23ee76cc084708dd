package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionReassignment;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.Errors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator APIs of the cluster store on three brokers: preferred and unclean elections, the
 * controller's automatic preferred-leader rebalancing, and reassignments from start to completion
 * (the leader's ISR growth simulated with alterPartition, as the broker's replication would do it).
 */
class ElectionsAndReassignmentsTest {
    private static final String LEADER = "LEADER";
    private static final String FOLLOWER = "FOLLOWER";

    @TempDir
    Path dir;

    private TestCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void start(TestInfo test, boolean autoRebalance) throws Exception {
        String name = "ops-" + Integer.toHexString(test.getTestMethod().orElseThrow().getName().hashCode());
        cluster = TestCluster.start(dir, name, 3, c -> c.withAutoLeaderRebalance(autoRebalance, 300, 10));
    }

    private static NewTopic placed(String name, List<Integer> replicas) {
        return new NewTopic(name, -1, -1, Map.of(0, replicas), Map.of(), false);
    }

    private static TopicPartitionKey p0(String topic) {
        return new TopicPartitionKey(topic, 0);
    }

    /** The leader of {@code topic}-0 adds {@code replica} to its ISR, as its replication would once it caught up. */
    private PartitionState growIsr(String topic, int replica) {
        PartitionState state = cluster.awaitPartition(topic, 0, PartitionState::hasLeader);
        List<Integer> isr = new ArrayList<>(state.isr());
        isr.add(replica);
        return cluster.store(state.leader()).alterPartition(topic, state, state.withIsr(isr));
    }

    @Test
    void aPreferredElectionMovesLeadershipBackAfterAFailover(TestInfo test) throws Exception {
        start(test, false);
        cluster.store(2).createTopic(placed("orders", List.of(1, 2, 3)));
        PartitionState first = cluster.awaitPartition("orders", 0, s -> s.leader() == 1);

        cluster.stop(1); // its leadership moves to the next ISR member in preference order
        PartitionState failedOver = cluster.awaitPartition("orders", 0, s -> s.leader() == 2 && !s.isr().contains(1));
        assertTrue(failedOver.leaderEpoch() > first.leaderEpoch());
        Map<TopicPartitionKey, ApiError> whileDown = cluster.store(3).electLeaders(ElectionType.PREFERRED,
                List.of(p0("orders")));
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE, whileDown.get(p0("orders")).error());

        cluster.restart(1);
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE, cluster.store(3).electLeaders(ElectionType.PREFERRED,
                List.of(p0("orders"))).get(p0("orders")).error(), "back, but not in the ISR yet");
        growIsr("orders", 1);

        List<TopicPartitionKey> asked = List.of(p0("orders"), new TopicPartitionKey("orders", 1),
                new TopicPartitionKey("nope", 0), new TopicPartitionKey("bad/name", 0));
        Map<TopicPartitionKey, ApiError> results = cluster.store(3).electLeaders(ElectionType.PREFERRED, asked);
        assertEquals(asked, List.copyOf(results.keySet()), "one result per partition, in order");
        assertEquals(ApiError.NONE, results.get(p0("orders")));
        for (TopicPartitionKey unknown : asked.subList(1, 4)) {
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get(unknown).error(), unknown.toString());
        }
        PartitionState elected = cluster.store(3).image().topic("orders").partition(0);
        assertEquals(1, elected.leader(), "the electing broker's image shows it at once");
        assertEquals(failedOver.leaderEpoch() + 1, elected.leaderEpoch());

        cluster.awaitRole(1, "orders", 0, LEADER);
        cluster.awaitRole(2, "orders", 0, FOLLOWER);
        assertEquals(elected.leaderEpoch(), cluster.awaitPartition("orders", 0, s -> s.leader() == 1).leaderEpoch());
        assertEquals(Errors.ELECTION_NOT_NEEDED, cluster.store(2).electLeaders(ElectionType.PREFERRED,
                List.of(p0("orders"))).get(p0("orders")).error());
        assertEquals(Errors.ELECTION_NOT_NEEDED, cluster.store(2).electLeaders(ElectionType.UNCLEAN,
                List.of(p0("orders"))).get(p0("orders")).error(), "it has a leader");
    }

    @Test
    void theControllerMovesLeadershipBackByItself(TestInfo test) throws Exception {
        start(test, true);
        cluster.store(1).createTopic(new NewTopic("spread", -1, -1,
                Map.of(0, List.of(1, 2), 1, List.of(2, 1), 2, List.of(1, 2)), Map.of(), false));
        cluster.awaitPartition("spread", 2, s -> s.leader() == 1);
        cluster.stop(1);
        cluster.awaitPartition("spread", 0, s -> s.leader() == 2);
        cluster.restart(1);
        PartitionState away = cluster.awaitPartition("spread", 0, s -> s.leader() == 2);
        // Broker 1 leads none of its two preferred partitions: 100 % > 10 %, but it is not in the ISRs yet.
        growIsr("spread", 1);
        PartitionState back = cluster.awaitPartition("spread", 0, s -> s.leader() == 1);
        assertEquals(away.leaderEpoch() + 1, back.leaderEpoch());
        assertEquals(2, cluster.awaitPartition("spread", 2, s -> s.leader() == 2).leader(),
                "partition 2 stays with 2 while 1 is outside its ISR");
        assertEquals(2, cluster.store(3).image().topic("spread").partition(1).leader());
    }

    @Test
    void anUncleanElectionGivesALeaderlessPartitionALiveReplica(TestInfo test) throws Exception {
        start(test, false);
        // Krill's ISR-only rule (with eligible leader replicas the last member would leave the ISR for the
        // ELR: EligibleLeaderReplicasClusterTest)
        cluster.store(1).updateEntityConfigsAsync(FinalizedFeatures.ENTITY, current -> FinalizedFeatures
                .fromConfigs(current).toConfigsWith(Map.of(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION,
                        (short) 0))).get(30, java.util.concurrent.TimeUnit.SECONDS);
        cluster.store(1).createTopic(placed("fragile", List.of(1, 2)));
        cluster.store(1).createTopic(placed("lonely", List.of(1)));
        PartitionState led = cluster.awaitPartition("fragile", 0, s -> s.leader() == 1);
        cluster.awaitPartition("lonely", 0, s -> s.leader() == 1);
        cluster.store(1).alterPartition("fragile", led, led.withIsr(List.of(1))); // 2 fell behind
        cluster.stop(1);
        PartitionState leaderless = cluster.awaitPartition("fragile", 0, s -> !s.hasLeader());
        assertEquals(List.of(1), leaderless.isr(), "the last ISR member stays in the ISR");

        Map<TopicPartitionKey, ApiError> preferred = cluster.store(2).electLeaders(ElectionType.PREFERRED,
                List.of(p0("fragile")));
        assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE, preferred.get(p0("fragile")).error());
        Map<TopicPartitionKey, ApiError> unclean = cluster.store(3).electLeaders(ElectionType.UNCLEAN,
                List.of(p0("fragile"), p0("lonely")));
        assertEquals(ApiError.NONE, unclean.get(p0("fragile")));
        assertEquals(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, unclean.get(p0("lonely")).error(), "no replica is live");

        PartitionState forced = cluster.awaitPartition("fragile", 0, PartitionState::hasLeader);
        assertEquals(2, forced.leader());
        assertEquals(List.of(2), forced.isr(), "the ISR is the new leader alone");
        assertEquals(leaderless.leaderEpoch() + 1, forced.leaderEpoch());
        cluster.awaitRole(2, "fragile", 0, LEADER);
        assertEquals(forced, cluster.awaitPartition("fragile", 0, s -> true), "Helix kept it; the topic stays clean");
        assertEquals(Errors.ELECTION_NOT_NEEDED, cluster.store(2).electLeaders(ElectionType.UNCLEAN,
                List.of(p0("fragile"))).get(p0("fragile")).error());
    }

    @Test
    void aReassignmentAddsFollowersCompletesAndMovesTheLeader(TestInfo test) throws Exception {
        start(test, false);
        cluster.store(1).createTopic(placed("moving", List.of(1, 2)));
        PartitionState before = cluster.awaitPartition("moving", 0, s -> s.leader() == 1 && s.isr().size() == 2);
        cluster.awaitRole(2, "moving", 0, FOLLOWER);

        Map<TopicPartitionKey, ApiError> started = cluster.store(3).alterPartitionReassignments(
                Map.of(p0("moving"), Optional.of(List.of(2, 3))), false);
        assertEquals(ApiError.NONE, started.get(p0("moving")));
        PartitionState moving = cluster.awaitPartition("moving", 0, PartitionState::isReassigning);
        assertEquals(List.of(2, 3, 1), moving.replicas());
        assertEquals(List.of(3), moving.addingReplicas());
        assertEquals(List.of(1), moving.removingReplicas());
        assertEquals(before.isr(), moving.isr());
        assertEquals(1, moving.leader());
        assertEquals(before.leaderEpoch(), moving.leaderEpoch());
        assertEquals(Map.of(p0("moving"), new PartitionReassignment(List.of(2, 3, 1), List.of(3), List.of(1))),
                cluster.store(2).listPartitionReassignments(Optional.empty()));
        assertEquals(Set.of(p0("moving")), cluster.store(2).listPartitionReassignments(
                Optional.of(Set.of(p0("moving"), p0("nope")))).keySet());
        cluster.awaitRole(3, "moving", 0, FOLLOWER); // the new replica starts following

        // The leader sees 3 caught up and adds it: the controller completes, and 1 hands over to 2.
        growIsr("moving", 3);
        PartitionState done = cluster.awaitPartition("moving", 0, s -> !s.isReassigning());
        assertEquals(List.of(2, 3), done.replicas());
        assertEquals(List.of(2, 3), done.isr());
        assertEquals(2, done.leader());
        assertEquals(before.leaderEpoch() + 1, done.leaderEpoch());
        assertEquals(Map.of(), cluster.store(1).listPartitionReassignments(Optional.empty()));
        cluster.awaitRole(2, "moving", 0, LEADER);
        cluster.awaitRole(1, "moving", 0, null); // the removed replica is no longer one
        cluster.awaitRole(3, "moving", 0, FOLLOWER);
        assertEquals(done, cluster.awaitPartition("moving", 0, s -> true), "nothing written after completion");
    }

    @Test
    void reassignmentsAreCheckedAndCanBeCancelled(TestInfo test) throws Exception {
        start(test, false);
        cluster.store(1).createTopic(placed("kept", List.of(1, 2)));
        cluster.store(1).createTopic(placed("steady", List.of(1, 2)));
        PartitionState before = cluster.awaitPartition("kept", 0, s -> s.leader() == 1 && s.isr().size() == 2);
        ZooKeeperMetadataStore any = cluster.store(2);

        Map<TopicPartitionKey, Optional<List<Integer>>> bad = new LinkedHashMap<>();
        bad.put(p0("steady"), Optional.empty());
        bad.put(new TopicPartitionKey("kept", 1), Optional.of(List.of(2, 3)));
        bad.put(new TopicPartitionKey("nope", 0), Optional.empty());
        Map<TopicPartitionKey, ApiError> refused = any.alterPartitionReassignments(bad, true);
        assertEquals(List.copyOf(bad.keySet()), List.copyOf(refused.keySet()));
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS, refused.get(p0("steady")).error());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, refused.get(new TopicPartitionKey("kept", 1)).error());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, refused.get(new TopicPartitionKey("nope", 0)).error());
        for (List<Integer> invalid : List.of(List.of(2, 2), List.of(2, 9), List.<Integer>of())) {
            assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT, any.alterPartitionReassignments(
                    Map.of(p0("kept"), Optional.of(invalid))).get(p0("kept")).error(), invalid.toString());
        }
        assertEquals(Errors.INVALID_REPLICATION_FACTOR, any.alterPartitionReassignments(
                Map.of(p0("kept"), Optional.of(List.of(1, 2, 3))), false).get(p0("kept")).error());
        assertEquals(before, any.image().topic("kept").partition(0), "nothing refused was written");

        assertEquals(ApiError.NONE, any.alterPartitionReassignments(Map.of(p0("kept"), Optional.of(List.of(2, 3))))
                .get(p0("kept")));
        cluster.awaitRole(3, "kept", 0, FOLLOWER);
        assertEquals(ApiError.NONE, cluster.store(3).alterPartitionReassignments(Map.of(p0("kept"), Optional.empty()))
                .get(p0("kept")));
        PartitionState cancelled = cluster.awaitPartition("kept", 0, s -> !s.isReassigning());
        assertEquals(Set.of(1, 2), Set.copyOf(cancelled.replicas()));
        assertEquals(Set.of(1, 2), Set.copyOf(cancelled.isr()));
        assertEquals(1, cancelled.leader());
        assertEquals(before.leaderEpoch(), cancelled.leaderEpoch());
        cluster.awaitRole(3, "kept", 0, null);
        assertFalse(cluster.store(1).listPartitionReassignments(Optional.empty()).containsKey(p0("kept")));
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS, any.alterPartitionReassignments(
                Map.of(p0("kept"), Optional.empty())).get(p0("kept")).error());

        // Shrinking to in-sync replicas completes at once; the removed leader hands over.
        assertEquals(ApiError.NONE, any.alterPartitionReassignments(Map.of(p0("steady"), Optional.of(List.of(2))))
                .get(p0("steady")));
        PartitionState shrunk = any.image().topic("steady").partition(0);
        assertEquals(List.of(2), shrunk.replicas());
        assertEquals(2, shrunk.leader());
        cluster.awaitRole(2, "steady", 0, LEADER);
        cluster.awaitRole(1, "steady", 0, null);
    }
}
