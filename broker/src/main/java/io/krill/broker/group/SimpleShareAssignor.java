package io.krill.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The server-side assignor of share groups, with the rules of Kafka's {@code simple} share assignor: every
 * subscribed partition is assigned; with no more members than partitions each partition goes to one member
 * and members get the same number of partitions give or take one; with more members than partitions each
 * partition is shared by {@code ceil(members / partitions)} members and members hold the same number of
 * partitions give or take one (share groups deliver records, not partitions, so sharing is safe). The
 * assignment is sticky: a member
 * keeps what it had as long as that stays within the balance. When every member subscribes to the same
 * topics their partitions are balanced as one set (Kafka's homogeneous case); otherwise each topic is
 * balanced over its own subscribers.
 *
 * <p>Thread-safety: stateless.
 */
final class SimpleShareAssignor {
    static final String NAME = "simple";

    /** One partition of a topic, by topic id. */
    record TopicPartition(UUID topicId, int partition) implements Comparable<TopicPartition> {
        @Override
        public int compareTo(TopicPartition o) {
            int c = topicId.compareTo(o.topicId);
            return c != 0 ? c : Integer.compare(partition, o.partition);
        }
    }

    private SimpleShareAssignor() {
    }

    /**
     * The target assignment.
     *
     * @param subscriptions each member's subscribed topic ids (members without any get nothing)
     * @param partitions    the assignable partitions of each topic (the initialized ones of the subscribed topics)
     * @param previous      the previous target assignment, kept where the balance allows
     */
    static Map<String, Map<UUID, Set<Integer>>> assign(Map<String, Set<UUID>> subscriptions,
                                                       Map<UUID, Set<Integer>> partitions,
                                                       Map<String, Map<UUID, Set<Integer>>> previous) {
        Map<String, Map<UUID, Set<Integer>>> result = new TreeMap<>();
        subscriptions.keySet().forEach(m -> result.put(m, new TreeMap<>()));
        boolean homogeneous = subscriptions.values().stream().distinct().count() <= 1;
        if (homogeneous) {
            List<String> members = new ArrayList<>(new TreeSet<>(subscriptions.keySet()));
            List<TopicPartition> all = new ArrayList<>();
            Set<UUID> topics = subscriptions.isEmpty() ? Set.of() : subscriptions.values().iterator().next();
            for (UUID topic : new TreeSet<>(topics)) {
                partitions.getOrDefault(topic, Set.of()).forEach(p -> all.add(new TopicPartition(topic, p)));
            }
            balance(members, all, previous, result);
        } else {
            for (Map.Entry<UUID, Set<Integer>> topic : new TreeMap<>(partitions).entrySet()) {
                List<String> members = new ArrayList<>();
                new TreeMap<>(subscriptions).forEach((m, subscribed) -> {
                    if (subscribed.contains(topic.getKey())) {
                        members.add(m);
                    }
                });
                List<TopicPartition> all = new ArrayList<>();
                topic.getValue().forEach(p -> all.add(new TopicPartition(topic.getKey(), p)));
                balance(members, all, previous, result);
            }
        }
        return result;
    }

    /**
     * Balances {@code partitions} over {@code members} (both in a fixed order), adding to {@code into}, as
     * Kafka's {@code SimpleHomogeneousAssignmentBuilder}: each partition goes to {@code ceil(M / P)} distinct
     * members (one when there are no more members than partitions), and the {@code P * sharing} slots are
     * spread so that members hold the same number give or take one. Previous pairs are kept first while
     * within both limits; the rest go to the least loaded members.
     */
    private static void balance(List<String> members, List<TopicPartition> partitions,
                                Map<String, Map<UUID, Set<Integer>>> previous,
                                Map<String, Map<UUID, Set<Integer>>> into) {
        if (members.isEmpty() || partitions.isEmpty()) {
            return;
        }
        partitions.sort(null);
        int sharing = (members.size() + partitions.size() - 1) / partitions.size();
        int slots = partitions.size() * sharing;
        int floor = slots / members.size();
        int extras = slots % members.size();
        Map<String, Set<TopicPartition>> held = new HashMap<>();
        members.forEach(m -> held.put(m, new TreeSet<>()));
        Map<TopicPartition, Integer> sharers = new HashMap<>();
        partitions.forEach(tp -> sharers.put(tp, 0));
        for (String m : members) {
            for (TopicPartition tp : partitions) {
                if (!previous.getOrDefault(m, Map.of()).getOrDefault(tp.topicId(), Set.of()).contains(tp.partition())
                        || sharers.get(tp) >= sharing) {
                    continue;
                }
                int load = held.get(m).size();
                if (load < floor || (load == floor && extras > 0)) {
                    if (load == floor) {
                        extras--;
                    }
                    held.get(m).add(tp);
                    sharers.merge(tp, 1, Integer::sum);
                }
            }
        }
        for (TopicPartition tp : partitions) {
            while (sharers.get(tp) < sharing) {
                String least = null;
                for (String m : members) {
                    if (!held.get(m).contains(tp) && (least == null || held.get(m).size() < held.get(least).size())) {
                        least = m;
                    }
                }
                held.get(least).add(tp); // sharing <= members: someone does not hold it yet
                sharers.merge(tp, 1, Integer::sum);
            }
        }
        held.forEach((m, tps) -> tps.forEach(tp -> add(into, m, tp)));
    }

    private static void add(Map<String, Map<UUID, Set<Integer>>> into, String member, TopicPartition tp) {
        into.computeIfAbsent(member, m -> new TreeMap<>()).computeIfAbsent(tp.topicId(), t -> new TreeSet<>())
                .add(tp.partition());
    }
}
