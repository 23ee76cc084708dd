package io.krill.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The KIP-848 ("consumer" protocol) side of a group: group epoch, members with their epochs, the target
 * assignment computed by a server-side assignor, and each member's current assignment reconciled
 * towards its target incrementally: a member is given a partition only once no other member owns it
 * (its previous owner has revoked it), and a member that must revoke partitions keeps its epoch until
 * it reports them gone.
 *
 * <p>Attached to the {@link ClassicGroup} that holds the group's committed offsets; not thread-safe:
 * every access holds that group's monitor. Persisted as Kafka's records ({@link ConsumerGroupRecords}):
 * epochs, members with their subscriptions, epochs and assignments, the target assignment; what changed is
 * noted in {@link #records} (a new target: every member; a reconciliation: that member) for the writer.
 * After a coordinator move members carry on where they were, their sessions restarted.
 */
final class ConsumerGroup {
    static final String UNIFORM = "uniform";
    static final String RANGE = "range";
    /** No topic: what a member not yet heard from may describe. */
    static final Predicate<String> NO_TOPICS = topic -> false;

    /** A member and its reconciliation state; partitions are by topic id, as the protocol names them. */
    static final class Member {
        final String memberId;
        String instanceId;
        String rackId;
        String clientId = "";
        String clientHost = "";
        List<String> subscribedTopics = List.of();
        /** KIP-848 SubscribedTopicRegex (RE2 syntax), or null when the member subscribes by name only. */
        String subscribedTopicRegex;
        com.google.re2j.Pattern regex;
        /** The topics the regex matched in {@link #regexImage}; recomputed when the image changes. */
        Set<String> regexTopics = Set.of();
        Object regexImage;
        /**
         * The topics the member's principal may describe, from its latest heartbeat: a regex matches only
         * those. A member restored from the log has not heartbeated yet: it keeps the topics stored until it does.
         */
        Predicate<String> describableTopics = NO_TOPICS;
        /** The {@link #describableTopics} {@link #regexTopics} was filtered with. */
        Predicate<String> regexFilteredBy;
        String serverAssignor;
        int rebalanceTimeoutMs;
        int memberEpoch;
        int previousMemberEpoch;
        /** What the member is told it owns. */
        Map<UUID, Set<Integer>> assigned = new TreeMap<>();
        /** Partitions it was told to give up and has not yet reported gone. */
        Map<UUID, Set<Integer>> revoking = new TreeMap<>();
        /** The assignment last sent, to send it again only when it changes. */
        Map<UUID, Set<Integer>> lastSent;
        long sessionDeadline;
        /** A static member that left with epoch -2: it keeps its partitions until its session expires. */
        boolean departed;

        Member(String memberId) {
            this.memberId = memberId;
        }

        /** A new member id for a static member rejoining (KIP-848): same partitions, same epoch. */
        Member replacedBy(String newMemberId) {
            Member next = new Member(newMemberId);
            next.instanceId = instanceId;
            next.rackId = rackId;
            next.subscribedTopics = subscribedTopics;
            next.subscribedTopicRegex = subscribedTopicRegex;
            next.regex = regex;
            next.regexTopics = regexTopics;
            next.regexImage = regexImage;
            next.describableTopics = describableTopics;
            next.regexFilteredBy = regexFilteredBy;
            next.serverAssignor = serverAssignor;
            next.rebalanceTimeoutMs = rebalanceTimeoutMs;
            next.memberEpoch = memberEpoch;
            next.previousMemberEpoch = previousMemberEpoch;
            next.assigned = assigned;
            next.revoking = revoking;
            return next;
        }

        String state() {
            return !revoking.isEmpty() ? "unrevoked_partitions" : "stable";
        }

        /** Subscribed by name, or matched by the member's regex (as last resolved). */
        boolean subscribes(String topic) {
            return subscribedTopics.contains(topic) || regexTopics.contains(topic);
        }
    }

    /**
     * A new group's group and assignment epochs, as in Kafka 4.4 (KAFKA-20268): epoch 0 is a joining
     * member's, so a new group starts at 1 with an empty target assignment, and the first assignment it
     * computes, for its first member, is at epoch 2. Every change then moves the group epoch by one.
     */
    static final int INITIAL_EPOCH = 1;

    int groupEpoch = INITIAL_EPOCH;
    int assignmentEpoch = INITIAL_EPOCH;
    final Map<String, Member> members = new LinkedHashMap<>();
    Map<String, Map<UUID, Set<Integer>>> target = new HashMap<>();
    /** The subscribed topics' metadata the target was computed from: when it changes, the epoch moves. */
    Map<String, SubscribedTopics.Topic> subscriptionMetadata = Map.of();
    /** The hash of {@link #subscriptionMetadata} ({@link SubscribedTopics#hash}), stored with the epoch. */
    long metadataHash;
    /** When the target assignment was last computed (Kafka's AssignmentTimestamp). */
    long assignmentTimestamp;
    /** The group's records as written, and which members' changed since. */
    final GroupRecordLedger records = new GroupRecordLedger(ConsumerGroupRecords.LAYOUT);

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** Kafka's consumer group states: Empty, Assigning, Reconciling, Stable. */
    String state() {
        if (members.isEmpty()) {
            return "Empty";
        }
        if (assignmentEpoch != groupEpoch) {
            return "Assigning";
        }
        for (Member m : members.values()) {
            if (m.memberEpoch != assignmentEpoch || !m.revoking.isEmpty()
                    || !m.assigned.equals(target.getOrDefault(m.memberId, Map.of()))) {
                return "Reconciling";
            }
        }
        return "Stable";
    }

    /**
     * The server-side assignor in use: the one most members prefer, else uniform (Kafka's default, the
     * first of group.consumer.assignors), as Kafka's {@code ConsumerGroup.preferredServerAssignor}; when it
     * changes, the group epoch moves.
     */
    String assignorName() {
        Map<String, Integer> counts = new HashMap<>();
        for (Member m : members.values()) {
            if (m.serverAssignor != null) {
                counts.merge(m.serverAssignor, 1, Integer::sum);
            }
        }
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(UNIFORM);
    }

    Set<String> subscribedTopics() {
        Set<String> topics = new TreeSet<>();
        members.values().forEach(m -> {
            topics.addAll(m.subscribedTopics);
            topics.addAll(m.regexTopics);
        });
        return topics;
    }

    /**
     * Recomputes the target assignment for the group epoch from the subscribed topics' metadata given, at
     * {@code now}: every member's records may change.
     */
    void computeTarget(Map<String, SubscribedTopics.Topic> topics, long now) {
        subscriptionMetadata = topics;
        metadataHash = SubscribedTopics.hash(topics);
        assignmentTimestamp = now;
        records.allChanged();
        String assignor = assignorName();
        Map<String, Map<UUID, Set<Integer>>> next = new HashMap<>();
        members.keySet().forEach(id -> next.put(id, new TreeMap<>()));
        List<String> ids = new ArrayList<>(new TreeSet<>(members.keySet()));
        for (SubscribedTopics.Topic topic : new TreeMap<>(topics).values()) {
            List<String> subscribers = new ArrayList<>();
            for (String id : ids) {
                if (members.get(id).subscribes(topic.name())) {
                    subscribers.add(id);
                }
            }
            if (subscribers.isEmpty()) {
                continue;
            }
            int n = topic.partitions();
            if (RANGE.equals(assignor)) {
                int per = n / subscribers.size();
                int extra = n % subscribers.size();
                int p = 0;
                for (int i = 0; i < subscribers.size(); i++) {
                    int count = per + (i < extra ? 1 : 0);
                    for (int k = 0; k < count; k++) {
                        add(next, subscribers.get(i), topic.id(), p++);
                    }
                }
            } else {
                assignUniform(next, subscribers, topic.id(), n);
            }
        }
        target = next;
        assignmentEpoch = groupEpoch;
    }

    /** Sticky: a partition stays with its previous target owner while that owner is under its quota. */
    private void assignUniform(Map<String, Map<UUID, Set<Integer>>> next, List<String> subscribers, UUID topic,
            int n) {
        Map<String, Integer> load = new HashMap<>();
        for (String id : subscribers) {
            load.put(id, next.get(id).values().stream().mapToInt(Set::size).sum());
        }
        int quota = (n + subscribers.size() - 1) / subscribers.size();
        Map<String, Integer> perTopic = new HashMap<>();
        List<Integer> free = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            String owner = null;
            for (String id : subscribers) {
                if (target.getOrDefault(id, Map.of()).getOrDefault(topic, Set.of()).contains(p)) {
                    owner = id;
                }
            }
            if (owner != null && perTopic.getOrDefault(owner, 0) < quota
                    && perTopic.getOrDefault(owner, 0) < fairShare(subscribers, owner, n)) {
                add(next, owner, topic, p);
                perTopic.merge(owner, 1, Integer::sum);
                load.merge(owner, 1, Integer::sum);
            } else {
                free.add(p);
            }
        }
        for (int p : free) {
            String best = null;
            for (String id : subscribers) {
                int c = perTopic.getOrDefault(id, 0);
                if (best == null || c < perTopic.getOrDefault(best, 0)
                        || (c == perTopic.getOrDefault(best, 0) && load.get(id) < load.get(best))) {
                    best = id;
                }
            }
            add(next, best, topic, p);
            perTopic.merge(best, 1, Integer::sum);
            load.merge(best, 1, Integer::sum);
        }
    }

    /** The number of partitions of a topic {@code id} gets: the first n % size members get one more. */
    private static int fairShare(List<String> subscribers, String id, int n) {
        int index = subscribers.indexOf(id);
        return n / subscribers.size() + (index < n % subscribers.size() ? 1 : 0);
    }

    private static void add(Map<String, Map<UUID, Set<Integer>>> a, String member, UUID topic, int p) {
        a.get(member).computeIfAbsent(topic, t -> new TreeSet<>()).add(p);
    }

    /**
     * Moves a member towards its target. {@code owned} is what the member reports owning (null: not
     * reported, unchanged).
     */
    void reconcile(Member member, Map<UUID, Set<Integer>> owned) {
        records.memberChanged(member.memberId);
        if (owned != null && !member.revoking.isEmpty()) {
            // Revocation completes once the member no longer reports the revoked partitions.
            if (!ownsAny(owned, member.revoking)) {
                member.revoking = new TreeMap<>();
            }
        }
        if (!member.revoking.isEmpty()) {
            return;
        }
        Map<UUID, Set<Integer>> goal = target.getOrDefault(member.memberId, Map.of());
        Map<UUID, Set<Integer>> keep = new TreeMap<>();
        Map<UUID, Set<Integer>> revoke = new TreeMap<>();
        for (Map.Entry<UUID, Set<Integer>> e : member.assigned.entrySet()) {
            for (int p : e.getValue()) {
                Map<UUID, Set<Integer>> into = goal.getOrDefault(e.getKey(), Set.of()).contains(p) ? keep : revoke;
                into.computeIfAbsent(e.getKey(), t -> new TreeSet<>()).add(p);
            }
        }
        if (!revoke.isEmpty() && (owned == null || ownsAny(owned, revoke))) {
            member.assigned = keep;
            member.revoking = revoke;
            return; // the epoch moves once the member has revoked
        }
        // Nothing to revoke, or the member already reports it gone: on to the target at once, as Kafka's
        // CurrentAssignmentBuilder (ownsRevokedPartitions).
        Map<UUID, Set<Integer>> next = new TreeMap<>();
        for (Map.Entry<UUID, Set<Integer>> e : goal.entrySet()) {
            for (int p : e.getValue()) {
                if (!ownedByOther(member.memberId, e.getKey(), p)) {
                    next.computeIfAbsent(e.getKey(), t -> new TreeSet<>()).add(p);
                }
            }
        }
        member.assigned = next;
        if (member.memberEpoch != assignmentEpoch) {
            member.previousMemberEpoch = member.memberEpoch;
            member.memberEpoch = assignmentEpoch;
        }
    }

    private static boolean ownsAny(Map<UUID, Set<Integer>> owned, Map<UUID, Set<Integer>> partitions) {
        for (Map.Entry<UUID, Set<Integer>> e : partitions.entrySet()) {
            for (int p : e.getValue()) {
                if (owned.getOrDefault(e.getKey(), Set.of()).contains(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean ownedByOther(String memberId, UUID topic, int p) {
        for (Member other : members.values()) {
            if (!other.memberId.equals(memberId)
                    && (other.assigned.getOrDefault(topic, Set.of()).contains(p)
                        || other.revoking.getOrDefault(topic, Set.of()).contains(p))) {
                return true;
            }
        }
        return false;
    }

    static Map<UUID, Set<Integer>> copy(Map<UUID, Set<Integer>> a) {
        Map<UUID, Set<Integer>> c = new TreeMap<>();
        a.forEach((t, ps) -> c.put(t, new TreeSet<>(ps)));
        return c;
    }

}
