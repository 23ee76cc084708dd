package io.krill.controller.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.controller.metadata.BrokerInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ReplicaPlacerTest {

    private static BrokerInfo broker(int id, String rack) {
        return new BrokerInfo(id, rack, Map.of());
    }

    @Test
    void leadersSpreadEvenlyAndReplicasAreDistinct() {
        List<BrokerInfo> brokers = List.of(broker(1, null), broker(2, null), broker(3, null));
        for (long seed = 0; seed < 20; seed++) {
            List<List<Integer>> placed = new ReplicaPlacer(new Random(seed)).place(brokers, 6, 3, 0, -1);
            Map<Integer, Integer> leaders = new TreeMap<>();
            for (List<Integer> replicas : placed) {
                assertEquals(3, new HashSet<>(replicas).size(), "distinct replicas " + replicas);
                leaders.merge(replicas.get(0), 1, Integer::sum);
            }
            assertEquals(Map.of(1, 2, 2, 2, 3, 2), leaders);
        }
    }

    @Test
    void replicasSpanRacksWhileThereAreRacksLeft() {
        List<BrokerInfo> brokers = new ArrayList<>();
        for (int id = 1; id <= 6; id++) {
            brokers.add(broker(id, "rack-" + (id % 3)));
        }
        for (long seed = 0; seed < 20; seed++) {
            List<List<Integer>> placed = new ReplicaPlacer(new Random(seed)).place(brokers, 12, 3, 0, -1);
            Map<Integer, Integer> leaders = new TreeMap<>();
            for (List<Integer> replicas : placed) {
                Set<String> racks = new HashSet<>();
                for (int replica : replicas) {
                    racks.add("rack-" + (replica % 3));
                }
                assertEquals(3, racks.size(), "one replica per rack: " + replicas);
                leaders.merge(replicas.get(0), 1, Integer::sum);
            }
            assertEquals(6, leaders.size());
            assertEquals(Set.of(2), new HashSet<>(leaders.values()), "each broker leads two: " + leaders);
        }
        // More replicas than racks: every rack is used, then brokers are reused across racks.
        List<List<Integer>> wide = new ReplicaPlacer(new Random(1)).place(brokers, 4, 5, 0, -1);
        for (List<Integer> replicas : wide) {
            assertEquals(5, new HashSet<>(replicas).size());
        }
    }

    @Test
    void aFixedStartIndexIsDeterministic() {
        List<BrokerInfo> brokers = List.of(broker(1, null), broker(2, null), broker(3, null), broker(4, null));
        List<List<Integer>> first = new ReplicaPlacer(new Random(1)).place(brokers, 5, 2, 3, 1);
        List<List<Integer>> second = new ReplicaPlacer(new Random(2)).place(brokers, 5, 2, 3, 1);
        assertEquals(first, second);
        assertEquals(1, ReplicaPlacer.startIndexOf(brokers, 2));
    }
}
