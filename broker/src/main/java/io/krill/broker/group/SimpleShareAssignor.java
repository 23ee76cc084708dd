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
 * and members get the same number of partitions give or take one; with more members than partitions every
 * member gets one partition and each partition is shared by the same number of members give or take one
 * (share groups deliver records, not partitions, so sharing is safe). The assignment is sticky: a member
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

    /** Balances {@code partitions} over {@code members} (both in a fixed order), adding to {@code into}. */
    private static void balance(List<String> members, List<TopicPartition> partitions,
                                Map<String, Map<UUID, Set<Integer>>> previous,
                                Map<String, Map<UUID, Set<Integer>>> into) {
        if (members.isEmpty() || partitions.isEmpty()) {
            return;
        }
        partitions.sort(null);
        if (members.size() <= partitions.size()) {
            exclusive(members, partitions, previous, into);
        } else {
            shared(members, partitions, previous, into);
        }
    }

    /** At most one member per partition: loads of floor(P/M) or ceil, at most P % M members at the ceiling. */
    private static void exclusive(List<String> members, List<TopicPartition> partitions,
                                  Map<String, Map<UUID, Set<Integer>>> previous,
                                  Map<String, Map<UUID, Set<Integer>>> into) {
        int floor = partitions.size() / members.size();
        int extras = partitions.size() % members.size();
        Map<String, Integer> load = new HashMap<>();
        members.forEach(m -> load.put(m, 0));
        List<TopicPartition> free = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            String owner = previousOwner(members, previous, tp);
            int held = owner == null ? -1 : load.get(owner);
            if (owner != null && (held < floor || (held == floor && extras > 0))) {
                if (held == floor) {
                    extras--;
                }
                add(into, owner, tp);
                load.merge(owner, 1, Integer::sum);
            } else {
                free.add(tp);
            }
        }
        for (TopicPartition tp : free) {
            String least = members.get(0);
            for (String m : members) {
                if (load.get(m) < load.get(least)) {
                    least = m;
                }
            }
            add(into, least, tp);
            load.merge(least, 1, Integer::sum);
        }
    }

    /** More members than partitions: one partition per member, each shared by floor(M/P) or ceil members. */
    private static void shared(List<String> members, List<TopicPartition> partitions,
                               Map<String, Map<UUID, Set<Integer>>> previous,
                               Map<String, Map<UUID, Set<Integer>>> into) {
        int floor = members.size() / partitions.size();
        int extras = members.size() % partitions.size();
        Map<TopicPartition, Integer> sharers = new HashMap<>();
        partitions.forEach(tp -> sharers.put(tp, 0));
        List<String> free = new ArrayList<>();
        for (String m : members) {
            TopicPartition kept = null;
            for (TopicPartition tp : partitions) {
                if (previous.getOrDefault(m, Map.of()).getOrDefault(tp.topicId(), Set.of()).contains(tp.partition())) {
                    int count = sharers.get(tp);
                    if (count < floor || (count == floor && extras > 0)) {
                        kept = tp;
                        break;
                    }
                }
            }
            if (kept == null) {
                free.add(m);
                continue;
            }
            if (sharers.get(kept) == floor) {
                extras--;
            }
            sharers.merge(kept, 1, Integer::sum);
            add(into, m, kept);
        }
        for (String m : free) {
            TopicPartition least = partitions.get(0);
            for (TopicPartition tp : partitions) {
                if (sharers.get(tp) < sharers.get(least)) {
                    least = tp;
                }
            }
            sharers.merge(least, 1, Integer::sum);
            add(into, m, least);
        }
    }

    private static String previousOwner(List<String> members, Map<String, Map<UUID, Set<Integer>>> previous,
                                        TopicPartition tp) {
        for (String m : members) {
            if (previous.getOrDefault(m, Map.of()).getOrDefault(tp.topicId(), Set.of()).contains(tp.partition())) {
                return m;
            }
        }
        return null;
    }

    private static void add(Map<String, Map<UUID, Set<Integer>>> into, String member, TopicPartition tp) {
        into.computeIfAbsent(member, m -> new TreeMap<>()).computeIfAbsent(tp.topicId(), t -> new TreeSet<>())
                .add(tp.partition());
    }
}
