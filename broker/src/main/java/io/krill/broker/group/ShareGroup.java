package io.krill.broker.group;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A share group (KIP-932): group epoch, members with their subscriptions and epochs, the target assignment
 * of the {@link SimpleShareAssignor}, and the share-partitions whose durable state the share coordinator
 * has initialized (only those are assigned, as in Kafka: a share-partition leader must find its state).
 * Unlike a consumer group there is no revocation: a member's assignment is its target, given at its next
 * heartbeat, and several members may consume one partition.
 *
 * <p>Attached to the {@link ClassicGroup} that holds the group id's place in its shard (which then stays
 * Empty and has no offsets); not thread-safe: every access holds that group's monitor. Persisted as Kafka's
 * records ({@link ShareGroupRecords}), what changed being noted in {@link #records}, so that a coordinator
 * that loads the partition resumes the group with its epochs, members and assignment; members' sessions
 * start again then.
 */
final class ShareGroup {
    static final String PROTOCOL_TYPE = "share";
    /** A new group's epoch, as Kafka 4.4's modern groups: its first member's assignment comes at epoch 2. */
    static final int INITIAL_EPOCH = 1;

    /** One member; partitions are by topic id, as the protocol names them. */
    static final class Member {
        final String memberId;
        String rackId;
        String clientId = "";
        String clientHost = "";
        List<String> subscribedTopics = List.of();
        int memberEpoch;
        int previousMemberEpoch;
        Map<UUID, Set<Integer>> assigned = new TreeMap<>();
        /** The session deadline this member's current expiry task was armed for; older tasks do nothing. */
        long sessionDeadline;

        Member(String memberId) {
            this.memberId = memberId;
        }
    }

    int groupEpoch = INITIAL_EPOCH;
    int assignmentEpoch = INITIAL_EPOCH;
    final Map<String, Member> members = new LinkedHashMap<>();
    Map<String, Map<UUID, Set<Integer>>> target = new TreeMap<>();
    /** Share-partitions whose state is initialized: assignable. */
    final Map<UUID, Set<Integer>> initialized = new TreeMap<>();
    /** Share-partitions being initialized now (stored, but a new coordinator initializes them again). */
    final Map<UUID, Set<Integer>> initializing = new TreeMap<>();
    /** The subscribed topics' metadata the target was computed from: when it changes, the epoch moves. */
    Map<String, SubscribedTopics.Topic> subscriptionMetadata = Map.of();
    /** The hash of {@link #subscriptionMetadata} ({@link SubscribedTopics#hash}), stored with the epoch. */
    long metadataHash;
    /** When the target assignment was last computed (Kafka's AssignmentTimestamp). */
    long assignmentTimestamp;
    /** The group's records as written, and which members' changed since. */
    final GroupRecordLedger records = new GroupRecordLedger(ShareGroupRecords.LAYOUT);

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** Kafka's share group states: Empty without members, else Stable (there is no rebalance to wait for). */
    String state() {
        return members.isEmpty() ? "Empty" : "Stable";
    }

    Set<String> subscribedTopics() {
        Set<String> topics = new TreeSet<>();
        members.values().forEach(m -> topics.addAll(m.subscribedTopics));
        return topics;
    }

    /**
     * Whether initialized partitions of subscribed topics are missing from the target (they were initialized
     * after it was computed): as Kafka's {@code initializedAssignmentPending}, the next heartbeat then moves the
     * group epoch and assigns them.
     */
    boolean initializedAssignmentPending() {
        if (members.isEmpty() || initialized.isEmpty()) {
            return false;
        }
        Map<UUID, Set<Integer>> assignedAll = new TreeMap<>();
        target.values().forEach(a -> a.forEach((t, ps) -> assignedAll.computeIfAbsent(t, x -> new HashSet<>()).addAll(ps)));
        for (SubscribedTopics.Topic topic : subscriptionMetadata.values()) {
            for (int p : initialized.getOrDefault(topic.id(), Set.of())) {
                if (p < topic.partitions() && !assignedAll.getOrDefault(topic.id(), Set.of()).contains(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Recomputes the target for the group epoch from the subscribed topics' metadata given, at {@code now}:
     * every member's records may change.
     */
    void computeTarget(Map<String, SubscribedTopics.Topic> topics, long now) {
        subscriptionMetadata = topics;
        metadataHash = SubscribedTopics.hash(topics);
        assignmentTimestamp = now;
        records.allChanged();
        Map<String, Set<UUID>> subscriptions = new TreeMap<>();
        for (Member m : members.values()) {
            Set<UUID> ids = new TreeSet<>();
            for (String name : m.subscribedTopics) {
                SubscribedTopics.Topic t = topics.get(name);
                if (t != null) {
                    ids.add(t.id());
                }
            }
            subscriptions.put(m.memberId, ids);
        }
        Map<UUID, Set<Integer>> assignable = new TreeMap<>();
        for (SubscribedTopics.Topic t : topics.values()) {
            Set<Integer> ps = new TreeSet<>();
            for (int p : initialized.getOrDefault(t.id(), Set.of())) {
                if (p < t.partitions()) {
                    ps.add(p);
                }
            }
            if (!ps.isEmpty()) {
                assignable.put(t.id(), ps);
            }
        }
        target = SimpleShareAssignor.assign(subscriptions, assignable, target);
        assignmentEpoch = groupEpoch;
    }

    /** Gives a member its target at the assignment epoch: no revocation step in a share group. */
    void reconcile(Member member) {
        records.memberChanged(member.memberId);
        member.assigned = ConsumerGroup.copy(target.getOrDefault(member.memberId, Map.of()));
        if (member.memberEpoch != assignmentEpoch) {
            member.previousMemberEpoch = member.memberEpoch;
            member.memberEpoch = assignmentEpoch;
        }
    }

    /** The subscribed partitions neither initialized nor being initialized. */
    Map<UUID, Set<Integer>> uninitializedPartitions() {
        Map<UUID, Set<Integer>> missing = new TreeMap<>();
        for (SubscribedTopics.Topic t : subscriptionMetadata.values()) {
            for (int p = 0; p < t.partitions(); p++) {
                if (!initialized.getOrDefault(t.id(), Set.of()).contains(p)
                        && !initializing.getOrDefault(t.id(), Set.of()).contains(p)) {
                    missing.computeIfAbsent(t.id(), x -> new TreeSet<>()).add(p);
                }
            }
        }
        return missing;
    }

    static void addAll(Map<UUID, Set<Integer>> into, Map<UUID, Set<Integer>> partitions) {
        partitions.forEach((t, ps) -> into.computeIfAbsent(t, x -> new TreeSet<>()).addAll(ps));
    }

    static void removeAll(Map<UUID, Set<Integer>> from, Map<UUID, Set<Integer>> partitions) {
        partitions.forEach((t, ps) -> {
            Set<Integer> current = from.get(t);
            if (current != null) {
                current.removeAll(ps);
                if (current.isEmpty()) {
                    from.remove(t);
                }
            }
        });
    }
}
