package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Which partitions the active controller moves back to their preferred leaders, by Kafka's per-broker ratio. */
class PreferredLeaderBalancerTest {

    private static BrokerInfo broker(int id) {
        return new BrokerInfo(id, null, Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "b" + id, 9092)));
    }

    /** Ten partitions preferring broker 1 (of which {@code ledElsewhere} led by 2), ten preferring 2 led by 2. */
    private static MetadataImage image(int ledElsewhere, List<Integer> liveBrokers) {
        List<PartitionState> partitions = new ArrayList<>();
        for (int p = 0; p < 20; p++) {
            List<Integer> replicas = p < 10 ? List.of(1, 2) : List.of(2, 1);
            int leader = p < ledElsewhere ? 2 : replicas.get(0);
            partitions.add(new PartitionState(p, leader, 1, replicas, List.of(1, 2), 1));
        }
        // A reassigning partition preferring 1, led by 2, and a leaderless one: counted, never moved.
        partitions.set(9, new PartitionState(9, 2, 1, List.of(1, 2, 3), List.of(1, 2), 1, List.of(), List.of(3)));
        partitions.set(8, new PartitionState(8, PartitionState.NO_LEADER, 1, List.of(1, 2), List.of(1, 2), 1));
        TopicImage topic = new TopicImage("t", UUID.randomUUID(), partitions, Map.of(), false);
        return new MetadataImage("c", 1, liveBrokers.stream().map(PreferredLeaderBalancerTest::broker).toList(),
                List.of(topic));
    }

    @Test
    void movesOnlyBrokersAboveThePercentage() {
        // Broker 1 leads 7 of its 10 (0 and 9 are led by 2, 8 by nobody): 30 % > 10 %.
        List<TopicPartitionKey> candidates = PreferredLeaderBalancer.candidates(image(1, List.of(1, 2)), 10);
        assertEquals(List.of(new TopicPartitionKey("t", 0)), candidates, "not the reassigning 9 nor the leaderless 8");
        // 30 % is not above 30 %.
        assertEquals(List.of(), PreferredLeaderBalancer.candidates(image(1, List.of(1, 2)), 30));
        // 50 % (0..2, 8 and 9) > 30 %.
        assertEquals(3, PreferredLeaderBalancer.candidates(image(3, List.of(1, 2)), 30).size());
        assertEquals(List.of(), PreferredLeaderBalancer.candidates(image(3, List.of(2)), 0), "1 is not live");
    }
}
