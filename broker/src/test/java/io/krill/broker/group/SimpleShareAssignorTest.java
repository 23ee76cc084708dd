package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The simple share assignor's rules: coverage, sharing, balance, stickiness, heterogeneous subscriptions. */
class SimpleShareAssignorTest {
    private static final UUID T1 = new UUID(0, 1);
    private static final UUID T2 = new UUID(0, 2);

    private static Map<String, Set<UUID>> members(int count, Set<UUID> topics) {
        Map<String, Set<UUID>> members = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            members.put("m" + i, topics);
        }
        return members;
    }

    private static Set<Integer> range(int n) {
        Set<Integer> ps = new TreeSet<>();
        for (int p = 0; p < n; p++) {
            ps.add(p);
        }
        return ps;
    }

    private static int load(Map<UUID, Set<Integer>> a) {
        return a.values().stream().mapToInt(Set::size).sum();
    }

    @Test
    void everyPartitionIsSharedByCeilMembersOverPartitionsAndLoadsDifferByAtMostOne() {
        for (int m = 1; m <= 8; m++) {
            for (int p = 1; p <= 8; p++) {
                var result = SimpleShareAssignor.assign(members(m, Set.of(T1)), Map.of(T1, range(p)), Map.of());
                int sharing = (m + p - 1) / p;
                Map<Integer, Integer> sharers = new HashMap<>();
                result.values().forEach(a -> a.getOrDefault(T1, Set.of()).forEach(x -> sharers.merge(x, 1, Integer::sum)));
                String at = m + " members, " + p + " partitions: " + result;
                assertEquals(range(p), sharers.keySet(), at);
                assertTrue(sharers.values().stream().allMatch(n -> n == sharing), at);
                int min = result.values().stream().mapToInt(SimpleShareAssignorTest::load).min().orElseThrow();
                int max = result.values().stream().mapToInt(SimpleShareAssignorTest::load).max().orElseThrow();
                assertTrue(max - min <= 1 && min >= 1, at);
                assertEquals(result, SimpleShareAssignor.assign(members(m, Set.of(T1)), Map.of(T1, range(p)), result),
                        "stable: " + at);
            }
        }
    }

    @Test
    void aNewMemberTakesOnlyWhatBalanceRequires() {
        var two = SimpleShareAssignor.assign(members(2, Set.of(T1)), Map.of(T1, range(6)), Map.of());
        var three = SimpleShareAssignor.assign(members(3, Set.of(T1)), Map.of(T1, range(6)), two);
        for (String m : two.keySet()) {
            Set<Integer> kept = new TreeSet<>(three.get(m).get(T1));
            kept.retainAll(two.get(m).get(T1));
            assertEquals(2, kept.size(), "each old member keeps 2 of its 3: " + two + " -> " + three);
        }
        assertEquals(2, three.get("m2").get(T1).size());
    }

    @Test
    void homogeneousSubscriptionsAreBalancedOverAllTheirPartitions() {
        var result = SimpleShareAssignor.assign(members(2, Set.of(T1, T2)), Map.of(T1, range(1), T2, range(1)), Map.of());
        assertEquals(1, load(result.get("m0")), "one partition each, not both partitions shared: " + result);
        assertEquals(1, load(result.get("m1")));
    }

    @Test
    void heterogeneousSubscriptionsAreBalancedPerTopicOverItsSubscribers() {
        Map<String, Set<UUID>> members = new TreeMap<>(Map.of("a", Set.of(T1), "b", Set.of(T1, T2), "c", Set.of(T2)));
        var result = SimpleShareAssignor.assign(members, Map.of(T1, range(2), T2, range(4)), Map.of());
        assertEquals(Set.of(), result.get("a").getOrDefault(T2, Set.of()), "a does not subscribe to T2");
        assertEquals(1, result.get("a").get(T1).size());
        assertEquals(1, result.get("b").get(T1).size());
        assertEquals(2, result.get("b").get(T2).size());
        assertEquals(2, result.get("c").get(T2).size());
        assertTrue(SimpleShareAssignor.assign(Map.of("a", Set.of(T1)), Map.of(), Map.of()).get("a").isEmpty(),
                "nothing initialized: nothing assigned");
    }
}
