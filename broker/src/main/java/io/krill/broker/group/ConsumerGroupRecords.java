package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorRecords;
import io.krill.wire.coordinator.ConsumerGroupCurrentMemberAssignmentValue;
import io.krill.wire.coordinator.ConsumerGroupMemberMetadataValue;
import io.krill.wire.coordinator.ConsumerGroupMetadataValue;
import io.krill.wire.coordinator.ConsumerGroupRegularExpressionValue;
import io.krill.wire.coordinator.ConsumerGroupTargetAssignmentMemberValue;
import io.krill.wire.coordinator.ConsumerGroupTargetAssignmentMetadataValue;
import io.krill.wire.protocol.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A KIP-848 consumer group as Kafka 4.4's group coordinator keeps it in {@code __consumer_offsets}, one record
 * per part (keys: int16 type, string groupId, and the member id or regular expression where named; values:
 * int16 version 0, then the flexible struct of {@code io.krill.wire.coordinator}):
 * <pre>
 * 3   ConsumerGroupMetadata (group)                 Epoch, MetadataHash (of the subscribed topics' metadata)
 * 5   ConsumerGroupMemberMetadata (group, member)   InstanceId, RackId, ClientId, ClientHost,
 *                                                   SubscribedTopicNames, SubscribedTopicRegex,
 *                                                   RebalanceTimeoutMs, ServerAssignor
 * 6   ConsumerGroupTargetAssignmentMetadata (group) AssignmentEpoch, AssignmentTimestamp
 * 7   ConsumerGroupTargetAssignmentMember (group, member)   TopicPartitions (the member's target)
 * 8   ConsumerGroupCurrentMemberAssignment (group, member)  MemberEpoch, PreviousMemberEpoch, State,
 *                                                   AssignedPartitions, PartitionsPendingRevocation
 * 16  ConsumerGroupRegularExpression (group, regex) Topics (what the members with that regex matched,
 *                                                   together), Version and Timestamp 0 (Krill resolves a
 *                                                   regex per member against each image)
 * </pre>
 * Within an operation values come in Kafka's order (5, 16, 3, 7, 6, 8) and tombstones too (a member leaving:
 * 8, 7, 5; the group deleted: 8s, 7s, 6, 5s, 16s, 3). Kafka's deprecated ConsumerGroupPartitionMetadata (4)
 * is not written: the metadata hash replaces it (KIP-1101). A static member that left temporarily (epoch
 * -2) is stored, as in Kafka, with MemberEpoch -2, and with its epoch as PreviousMemberEpoch, which it gets
 * back when restored. State is Kafka's MemberState: 0 stable, 1 unrevoked partitions, 2 unreleased
 * partitions (its target holds partitions another member still owns).
 *
 * <p>Stateless; thread-safe. {@link #records} and {@link #restore} expect the caller to hold the group's monitor.
 */
final class ConsumerGroupRecords {
    static final short METADATA = 3;
    static final short MEMBER_METADATA = 5;
    static final short TARGET_METADATA = 6;
    static final short TARGET_MEMBER = 7;
    static final short CURRENT_ASSIGNMENT = 8;
    static final short REGULAR_EXPRESSION = 16;
    private static final short VERSION = 0;
    static final byte STABLE = 0;
    static final byte UNREVOKED_PARTITIONS = 1;
    static final byte UNRELEASED_PARTITIONS = 2;
    /** Kafka's epoch of a static member that left temporarily. */
    static final int LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

    static final GroupRecordLedger.Layout LAYOUT = new GroupRecordLedger.Layout() {
        @Override
        public List<Short> valueOrder() {
            return List.of(MEMBER_METADATA, REGULAR_EXPRESSION, METADATA, TARGET_MEMBER, TARGET_METADATA,
                    CURRENT_ASSIGNMENT);
        }

        @Override
        public List<Short> tombstoneOrder() {
            return List.of(CURRENT_ASSIGNMENT, TARGET_MEMBER, TARGET_METADATA, MEMBER_METADATA, REGULAR_EXPRESSION,
                    METADATA);
        }

        @Override
        public boolean perMember(short type) {
            return type == MEMBER_METADATA || type == TARGET_MEMBER || type == CURRENT_ASSIGNMENT;
        }
    };

    private ConsumerGroupRecords() {
    }

    /** Whether a value under key type 3 is Kafka's ConsumerGroupMetadataValue (else Krill's former whole group). */
    static boolean isMetadataValue(ByteBuf value) {
        if (CoordinatorRecords.valueVersion(value) != VERSION) {
            return false;
        }
        try {
            read(METADATA, value);
            return true;
        } catch (IllegalArgumentException e) {
            return false; // not exactly one such value: the former layout
        }
    }

    /**
     * The group's records now: its own (3, 6, 16) and those of every member ({@code members} null) or of the
     * members named (a member named but gone has none).
     */
    static Map<GroupRecordLedger.Slot, byte[]> records(ConsumerGroup cg, Collection<String> members) {
        Map<GroupRecordLedger.Slot, byte[]> records = new LinkedHashMap<>();
        records.put(new GroupRecordLedger.Slot(METADATA, ""), CoordinatorRecords.value(new ConsumerGroupMetadataValue()
                .setEpoch(cg.groupEpoch).setMetadataHash(cg.metadataHash), VERSION));
        records.put(new GroupRecordLedger.Slot(TARGET_METADATA, ""), CoordinatorRecords.value(
                new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(cg.assignmentEpoch)
                        .setAssignmentTimestamp(cg.assignmentTimestamp), VERSION));
        regexTopics(cg).forEach((regex, topics) -> records.put(new GroupRecordLedger.Slot(REGULAR_EXPRESSION, regex),
                CoordinatorRecords.value(new ConsumerGroupRegularExpressionValue().setTopics(new ArrayList<>(topics)),
                        VERSION)));
        for (String id : members == null ? cg.members.keySet() : members) {
            ConsumerGroup.Member m = cg.members.get(id);
            if (m != null) {
                memberRecords(cg, m, records);
            }
        }
        return records;
    }

    private static void memberRecords(ConsumerGroup cg, ConsumerGroup.Member m,
                                      Map<GroupRecordLedger.Slot, byte[]> records) {
        records.put(new GroupRecordLedger.Slot(MEMBER_METADATA, m.memberId), CoordinatorRecords.value(
                new ConsumerGroupMemberMetadataValue()
                        .setInstanceId(m.instanceId)
                        .setRackId(m.rackId)
                        .setClientId(m.clientId)
                        .setClientHost(m.clientHost)
                        .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopics))
                        .setSubscribedTopicRegex(m.subscribedTopicRegex)
                        .setRebalanceTimeoutMs(m.rebalanceTimeoutMs)
                        .setServerAssignor(m.serverAssignor), VERSION));
        Map<UUID, Set<Integer>> target = cg.target.getOrDefault(m.memberId, Map.of());
        records.put(new GroupRecordLedger.Slot(TARGET_MEMBER, m.memberId), CoordinatorRecords.value(
                new ConsumerGroupTargetAssignmentMemberValue().setTopicPartitions(toList(target,
                        (id, ps) -> new ConsumerGroupTargetAssignmentMemberValue.TopicPartition().setTopicId(id)
                                .setPartitions(ps))), VERSION));
        BiFunction<UUID, List<Integer>, ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions> tp =
                (id, ps) -> new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions().setTopicId(id)
                        .setPartitions(ps);
        records.put(new GroupRecordLedger.Slot(CURRENT_ASSIGNMENT, m.memberId), CoordinatorRecords.value(
                new ConsumerGroupCurrentMemberAssignmentValue()
                        .setMemberEpoch(m.departed ? LEAVE_GROUP_STATIC_MEMBER_EPOCH : m.memberEpoch)
                        .setPreviousMemberEpoch(m.departed ? m.memberEpoch : m.previousMemberEpoch)
                        .setState(state(cg, m))
                        .setAssignedPartitions(toList(m.assigned, tp))
                        .setPartitionsPendingRevocation(toList(m.revoking, tp)), VERSION));
    }

    private static byte state(ConsumerGroup cg, ConsumerGroup.Member m) {
        if (!m.revoking.isEmpty()) {
            return UNREVOKED_PARTITIONS;
        }
        return m.memberEpoch == cg.assignmentEpoch && !m.assigned.equals(cg.target.getOrDefault(m.memberId, Map.of()))
                ? UNRELEASED_PARTITIONS : STABLE;
    }

    /** Each regular expression in use, with the topics the members using it matched. */
    private static Map<String, Set<String>> regexTopics(ConsumerGroup cg) {
        Map<String, Set<String>> regexes = new TreeMap<>();
        for (ConsumerGroup.Member m : cg.members.values()) {
            if (m.subscribedTopicRegex != null) {
                regexes.computeIfAbsent(m.subscribedTopicRegex, r -> new TreeSet<>()).addAll(m.regexTopics);
            }
        }
        return regexes;
    }

    /**
     * Reads a value of one of the consumer group's record types.
     *
     * @throws IllegalArgumentException if it is not exactly such a value, or the type is not one of them
     */
    static Message read(short type, ByteBuf value) {
        Message message = switch (type) {
            case METADATA -> new ConsumerGroupMetadataValue();
            case MEMBER_METADATA -> new ConsumerGroupMemberMetadataValue();
            case TARGET_METADATA -> new ConsumerGroupTargetAssignmentMetadataValue();
            case TARGET_MEMBER -> new ConsumerGroupTargetAssignmentMemberValue();
            case CURRENT_ASSIGNMENT -> new ConsumerGroupCurrentMemberAssignmentValue();
            case REGULAR_EXPRESSION -> new ConsumerGroupRegularExpressionValue();
            default -> throw new IllegalArgumentException("record type " + type + " is not a consumer group's");
        };
        return CoordinatorRecords.readValue(value, message);
    }

    /**
     * Restores a group from its records as loaded (slot to value, tombstones applied) into {@code cg}, and
     * takes them as what its ledger has written. Members get their epochs, assignments and subscriptions (a
     * member's regex is not compiled here), the group its epochs and target; the subscribed topics' metadata
     * is left to the caller, with the stored hash in {@link ConsumerGroup#metadataHash}.
     */
    static void restore(ConsumerGroup cg, Map<GroupRecordLedger.Slot, byte[]> loaded) {
        Map<String, Set<String>> regexTopics = new TreeMap<>();
        loaded.forEach((slot, bytes) -> {
            ByteBuf value = Unpooled.wrappedBuffer(bytes);
            cg.records.loaded(slot, bytes);
            switch (slot.type()) {
                case METADATA -> {
                    ConsumerGroupMetadataValue v = ((ConsumerGroupMetadataValue) read(slot.type(), value));
                    cg.groupEpoch = v.epoch();
                    cg.metadataHash = v.metadataHash();
                }
                case TARGET_METADATA -> {
                    ConsumerGroupTargetAssignmentMetadataValue v = ((ConsumerGroupTargetAssignmentMetadataValue) read(slot.type(), value));
                    cg.assignmentEpoch = v.assignmentEpoch();
                    cg.assignmentTimestamp = v.assignmentTimestamp();
                }
                case REGULAR_EXPRESSION -> regexTopics.put(slot.id(), new TreeSet<>(((ConsumerGroupRegularExpressionValue) read(slot.type(), value)).topics()));
                case MEMBER_METADATA -> {
                    ConsumerGroupMemberMetadataValue v = ((ConsumerGroupMemberMetadataValue) read(slot.type(), value));
                    ConsumerGroup.Member m = member(cg, slot.id());
                    m.instanceId = v.instanceId();
                    m.rackId = v.rackId();
                    m.clientId = v.clientId();
                    m.clientHost = v.clientHost();
                    m.subscribedTopics = List.copyOf(new TreeSet<>(v.subscribedTopicNames()));
                    m.subscribedTopicRegex = v.subscribedTopicRegex();
                    m.rebalanceTimeoutMs = v.rebalanceTimeoutMs();
                    m.serverAssignor = v.serverAssignor();
                }
                case TARGET_MEMBER -> cg.target.put(slot.id(), fromList(((ConsumerGroupTargetAssignmentMemberValue) read(slot.type(), value)).topicPartitions(),
                        ConsumerGroupTargetAssignmentMemberValue.TopicPartition::topicId,
                        ConsumerGroupTargetAssignmentMemberValue.TopicPartition::partitions));
                case CURRENT_ASSIGNMENT -> {
                    ConsumerGroupCurrentMemberAssignmentValue v = ((ConsumerGroupCurrentMemberAssignmentValue) read(slot.type(), value));
                    ConsumerGroup.Member m = member(cg, slot.id());
                    m.departed = v.memberEpoch() == LEAVE_GROUP_STATIC_MEMBER_EPOCH;
                    m.memberEpoch = m.departed ? v.previousMemberEpoch() : v.memberEpoch();
                    m.previousMemberEpoch = v.previousMemberEpoch();
                    m.assigned = fromList(v.assignedPartitions(), ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions::topicId,
                            ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions::partitions);
                    m.revoking = fromList(v.partitionsPendingRevocation(),
                            ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions::topicId,
                            ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions::partitions);
                }
                default -> read(slot.type(), value); // refuses the type
            }
        });
        for (ConsumerGroup.Member m : cg.members.values()) {
            if (m.subscribedTopicRegex != null) {
                m.regexTopics = regexTopics.getOrDefault(m.subscribedTopicRegex, Set.of());
            }
        }
        cg.target.keySet().retainAll(cg.members.keySet());
    }

    private static ConsumerGroup.Member member(ConsumerGroup cg, String memberId) {
        return cg.members.computeIfAbsent(memberId, ConsumerGroup.Member::new);
    }

    /** Partitions by topic id as one of the records' lists of topic partitions. */
    static <T> List<T> toList(Map<UUID, Set<Integer>> partitions, BiFunction<UUID, List<Integer>, T> entry) {
        List<T> list = new ArrayList<>(partitions.size());
        partitions.forEach((topicId, ps) -> {
            if (!ps.isEmpty()) {
                list.add(entry.apply(topicId, new ArrayList<>(ps)));
            }
        });
        return list;
    }

    /** One of the records' lists of topic partitions as partitions by topic id. */
    static <T> Map<UUID, Set<Integer>> fromList(List<T> list, Function<T, UUID> topicId,
                                                Function<T, List<Integer>> partitions) {
        Map<UUID, Set<Integer>> map = new TreeMap<>();
        for (T t : list) {
            map.computeIfAbsent(topicId.apply(t), id -> new TreeSet<>()).addAll(partitions.apply(t));
        }
        return map;
    }
}
