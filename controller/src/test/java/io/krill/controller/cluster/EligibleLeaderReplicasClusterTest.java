package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eligible leader replicas on three brokers of the ZooKeeper store, every writer taking part: the leader's
 * ISR shrinks (AlterPartition), a controlled shutdown, the controller's pass after a crash, elections from
 * the ELR, a restart after an unclean shutdown, a change of {@code min.insync.replicas} and the feature
 * turned off again.
 */
@Timeout(120)
class EligibleLeaderReplicasClusterTest {
    @TempDir
    Path dir;

    private TestCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void setElrLevel(int level) throws Exception {
        cluster.store(cluster.running().iterator().next()).updateEntityConfigsAsync(FinalizedFeatures.ENTITY,
                current -> FinalizedFeatures.fromConfigs(current).toConfigsWith(
                        Map.of(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION, (short) level)))
                .get(30, TimeUnit.SECONDS);
    }

    private static NewTopic topic(String name) {
        return new NewTopic(name, -1, -1, Map.of(0, List.of(1, 2, 3)), Map.of("min.insync.replicas", "2"), false);
    }

    /** The leader of {@code topic}-0 shrinks its ISR to {@code isr}, as its lag check would. */
    private PartitionState shrinkIsr(String topic, List<Integer> isr) {
        PartitionState state = cluster.awaitPartition(topic, 0, PartitionState::hasLeader);
        return cluster.store(state.leader()).alterPartition(topic, state, state.withIsr(isr));
    }

    @Test
    void onlyEligibleReplicasLeadAfterTheIsrEmpties() throws Exception {
        cluster = TestCluster.start(dir, "elr-failover", 3, c -> c);
        setElrLevel(1);
        cluster.store(1).createTopic(topic("orders"));
        cluster.awaitPartition("orders", 0, s -> s.leader() == 1 && s.isr().size() == 3);

        assertEquals(List.of(), shrinkIsr("orders", List.of(1, 2)).eligibleLeaderReplicas(),
                "at the minimum: 3 may lack what the high watermark covers");
        assertEquals(List.of(2), shrinkIsr("orders", List.of(1)).eligibleLeaderReplicas());

        cluster.stop(1); // a controlled shutdown: 1 leaves the ISR as its last member and stays eligible
        PartitionState handedOver = cluster.awaitPartition("orders", 0, s -> s.leader() == 2);
        assertEquals(List.of(2), handedOver.isr(), "2 was eligible: it leads from the ELR");
        assertEquals(List.of(1), handedOver.eligibleLeaderReplicas());

        cluster.crash(2); // the controller's pass once its session expires
        PartitionState leaderless = cluster.awaitPartition("orders", 0, s -> !s.hasLeader());
        assertEquals(List.of(), leaderless.isr());
        assertEquals(List.of(1, 2), leaderless.eligibleLeaderReplicas(), "3 is live but not eligible: nobody leads");

        cluster.restart(1, true); // its log may have lost unflushed records
        PartitionState afterUnclean = cluster.awaitPartition("orders", 0,
                s -> !s.eligibleLeaderReplicas().contains(1));
        assertEquals(PartitionState.NO_LEADER, afterUnclean.leader());
        assertEquals(List.of(2), afterUnclean.eligibleLeaderReplicas());

        cluster.restart(2, false);
        PartitionState back = cluster.awaitPartition("orders", 0, s -> s.leader() == 2);
        assertEquals(List.of(2), back.isr());
        assertEquals(List.of(), back.eligibleLeaderReplicas());
    }

    @Test
    void aMinIsrChangeOrTheFeatureTurnedOffClearsTheElr() throws Exception {
        cluster = TestCluster.start(dir, "elr-clear", 3, c -> c);
        setElrLevel(1);
        cluster.store(1).createTopic(topic("a"));
        cluster.store(1).createTopic(topic("b"));
        for (String name : List.of("a", "b")) {
            cluster.awaitPartition(name, 0, s -> s.leader() == 1 && s.isr().size() == 3);
            shrinkIsr(name, List.of(1));
            cluster.awaitPartition(name, 0, s -> s.eligibleLeaderReplicas().equals(List.of(2, 3)));
        }

        cluster.store(2).alterTopicConfigsAsync("a", configs -> {
            Map<String, String> next = new HashMap<>(configs);
            next.put("min.insync.replicas", "3");
            return next;
        }).get(30, TimeUnit.SECONDS);
        PartitionState cleared = cluster.awaitPartition("a", 0, s -> s.eligibleLeaderReplicas().isEmpty());
        assertEquals(List.of(1), cleared.isr());
        assertEquals(List.of(2, 3), cluster.awaitPartition("b", 0, s -> true).eligibleLeaderReplicas(),
                "another topic's minimum did not change");

        // A change of the cluster-wide default clears every ELR, even of a topic that overrides it (Kafka's rule).
        cluster.store(3).updateEntityConfigsAsync("", configs -> {
            Map<String, String> next = new HashMap<>(configs);
            next.put("min.insync.replicas", "1");
            return next;
        }).get(30, TimeUnit.SECONDS);
        cluster.awaitPartition("b", 0, s -> s.eligibleLeaderReplicas().isEmpty());

        PartitionState regrown = cluster.awaitPartition("b", 0, PartitionState::hasLeader);
        regrown = cluster.store(1).alterPartition("b", regrown, regrown.withIsr(List.of(1, 2)));
        assertEquals(List.of(2), shrinkIsr("b", List.of(1)).eligibleLeaderReplicas(), "b's own minimum is still 2");

        setElrLevel(0);
        PartitionState off = cluster.awaitPartition("b", 0, s -> !s.hasEligibleLeaderReplicas());
        assertEquals(1, off.leader());
        assertEquals(List.of(1), off.isr());
    }
}
