package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorRecords;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.coordinator.ShareGroupCurrentMemberAssignmentValue;
import io.krill.wire.coordinator.ShareGroupMemberMetadataValue;
import io.krill.wire.coordinator.ShareGroupMetadataValue;
import io.krill.wire.coordinator.ShareGroupStatePartitionMetadataValue;
import io.krill.wire.coordinator.ShareGroupTargetAssignmentMemberValue;
import io.krill.wire.coordinator.ShareGroupTargetAssignmentMetadataValue;
import io.krill.wire.protocol.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A KIP-932 share group as Kafka 4.4's group coordinator keeps it in {@code __consumer_offsets}, one record per
 * part (keys: int16 type, string groupId, and the member id where named; values: int16 version 0, then the
 * flexible struct of {@code io.krill.wire.coordinator}):
 * <pre>
 * 10  ShareGroupMemberMetadata (group, member)   RackId, ClientId, ClientHost, SubscribedTopicNames
 * 11  ShareGroupMetadata (group)                 Epoch, MetadataHash (of the subscribed topics' metadata)
 * 12  ShareGroupTargetAssignmentMetadata (group) AssignmentEpoch, AssignmentTimestamp
 * 13  ShareGroupTargetAssignmentMember (group, member)   TopicPartitions (the member's target)
 * 14  ShareGroupCurrentMemberAssignment (group, member)  MemberEpoch, PreviousMemberEpoch, State (0,
 *                                                stable: nothing is revoked in a share group), AssignedPartitions
 * 15  ShareGroupStatePartitionMetadata (group)   InitializingTopics, InitializedTopics (the share-partitions
 *                                                whose state the share coordinator is initializing or has
 *                                                initialized, with their topics' names), DeletingTopics (empty:
 *                                                Krill deletes share state before it changes the group)
 * </pre>
 * Values come in Kafka's order (10, 11, 13, 12, 14, 15) and tombstones too (a member leaving: 14, 13, 10; the
 * group deleted: 14s, 13s, 12, 10s, 15, 11). As in Kafka 4.4, members are persisted and survive a
 * coordinator move with their epochs and assignments. Share-partitions still initializing when the group is
 * loaded are initialized again by its next heartbeat.
 *
 * <p>Stateless; thread-safe. {@link #records} and {@link #restore} expect the caller to hold the group's monitor.
 */
final class ShareGroupRecords {
    static final short MEMBER_METADATA = 10;
    static final short METADATA = 11;
    static final short TARGET_METADATA = 12;
    static final short TARGET_MEMBER = 13;
    static final short CURRENT_ASSIGNMENT = 14;
    static final short STATE_PARTITION_METADATA = 15;
    private static final short VERSION = 0;
    private static final byte STABLE = 0;

    static final GroupRecordLedger.Layout LAYOUT = new GroupRecordLedger.Layout() {
        @Override
        public List<Short> valueOrder() {
            return List.of(MEMBER_METADATA, METADATA, TARGET_MEMBER, TARGET_METADATA, CURRENT_ASSIGNMENT,
                    STATE_PARTITION_METADATA);
        }

        @Override
        public List<Short> tombstoneOrder() {
            return List.of(CURRENT_ASSIGNMENT, TARGET_MEMBER, TARGET_METADATA, MEMBER_METADATA,
                    STATE_PARTITION_METADATA, METADATA);
        }

        @Override
        public boolean perMember(short type) {
            return type == MEMBER_METADATA || type == TARGET_MEMBER || type == CURRENT_ASSIGNMENT;
        }
    };

    private ShareGroupRecords() {
    }

    /**
     * The group's records now: its own (11, 12, 15; topic names from {@code image}, "" for a topic it no longer
     * has) and those of every member ({@code members} null) or of the members named.
     */
    static Map<GroupRecordLedger.Slot, byte[]> records(ShareGroup sg, Collection<String> members, MetadataImage image) {
        Map<GroupRecordLedger.Slot, byte[]> records = new LinkedHashMap<>();
        records.put(new GroupRecordLedger.Slot(METADATA, ""), CoordinatorRecords.value(new ShareGroupMetadataValue()
                .setEpoch(sg.groupEpoch).setMetadataHash(sg.metadataHash), VERSION));
        records.put(new GroupRecordLedger.Slot(TARGET_METADATA, ""), CoordinatorRecords.value(
                new ShareGroupTargetAssignmentMetadataValue().setAssignmentEpoch(sg.assignmentEpoch)
                        .setAssignmentTimestamp(sg.assignmentTimestamp), VERSION));
        records.put(new GroupRecordLedger.Slot(STATE_PARTITION_METADATA, ""), CoordinatorRecords.value(
                new ShareGroupStatePartitionMetadataValue()
                        .setInitializingTopics(topics(sg.initializing, image))
                        .setInitializedTopics(topics(sg.initialized, image))
                        .setDeletingTopics(new ArrayList<>()), VERSION));
        for (String id : members == null ? sg.members.keySet() : members) {
            ShareGroup.Member m = sg.members.get(id);
            if (m == null) {
                continue;
            }
            records.put(new GroupRecordLedger.Slot(MEMBER_METADATA, id), CoordinatorRecords.value(
                    new ShareGroupMemberMetadataValue().setRackId(m.rackId).setClientId(m.clientId)
                            .setClientHost(m.clientHost).setSubscribedTopicNames(new ArrayList<>(m.subscribedTopics)),
                    VERSION));
            records.put(new GroupRecordLedger.Slot(TARGET_MEMBER, id), CoordinatorRecords.value(
                    new ShareGroupTargetAssignmentMemberValue().setTopicPartitions(ConsumerGroupRecords.toList(
                            sg.target.getOrDefault(id, Map.of()), (topicId, ps) ->
                                    new ShareGroupTargetAssignmentMemberValue.TopicPartition().setTopicId(topicId)
                                            .setPartitions(ps))), VERSION));
            records.put(new GroupRecordLedger.Slot(CURRENT_ASSIGNMENT, id), CoordinatorRecords.value(
                    new ShareGroupCurrentMemberAssignmentValue().setMemberEpoch(m.memberEpoch)
                            .setPreviousMemberEpoch(m.previousMemberEpoch).setState(STABLE)
                            .setAssignedPartitions(ConsumerGroupRecords.toList(m.assigned, (topicId, ps) ->
                                    new ShareGroupCurrentMemberAssignmentValue.TopicPartitions().setTopicId(topicId)
                                            .setPartitions(ps))), VERSION));
        }
        return records;
    }

    private static List<ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo> topics(
            Map<UUID, Set<Integer>> partitions, MetadataImage image) {
        return ConsumerGroupRecords.toList(partitions, (topicId, ps) -> {
            TopicImage topic = image == null ? null : image.topic(topicId);
            return new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo().setTopicId(topicId)
                    .setTopicName(topic == null ? "" : topic.name()).setPartitions(ps);
        });
    }

    /**
     * Reads a value of one of the share group's record types.
     *
     * @throws IllegalArgumentException if it is not exactly such a value, or the type is not one of them
     */
    static Message read(short type, ByteBuf value) {
        Message message = switch (type) {
            case METADATA -> new ShareGroupMetadataValue();
            case MEMBER_METADATA -> new ShareGroupMemberMetadataValue();
            case TARGET_METADATA -> new ShareGroupTargetAssignmentMetadataValue();
            case TARGET_MEMBER -> new ShareGroupTargetAssignmentMemberValue();
            case CURRENT_ASSIGNMENT -> new ShareGroupCurrentMemberAssignmentValue();
            case STATE_PARTITION_METADATA -> new ShareGroupStatePartitionMetadataValue();
            default -> throw new IllegalArgumentException("record type " + type + " is not a share group's");
        };
        return CoordinatorRecords.readValue(value, message);
    }

    /**
     * Restores a group from its records as loaded (slot to value, tombstones applied) into {@code sg}, and
     * takes them as what its ledger has written: epochs, members with their epochs, subscriptions and
     * assignments, the target, and the initialized share-partitions (not those initializing).
     */
    static void restore(ShareGroup sg, Map<GroupRecordLedger.Slot, byte[]> loaded) {
        loaded.forEach((slot, bytes) -> {
            ByteBuf value = Unpooled.wrappedBuffer(bytes);
            sg.records.loaded(slot, bytes);
            switch (slot.type()) {
                case METADATA -> {
                    ShareGroupMetadataValue v = ((ShareGroupMetadataValue) read(slot.type(), value));
                    sg.groupEpoch = v.epoch();
                    sg.metadataHash = v.metadataHash();
                }
                case TARGET_METADATA -> {
                    ShareGroupTargetAssignmentMetadataValue v = ((ShareGroupTargetAssignmentMetadataValue) read(slot.type(), value));
                    sg.assignmentEpoch = v.assignmentEpoch();
                    sg.assignmentTimestamp = v.assignmentTimestamp();
                }
                case STATE_PARTITION_METADATA -> {
                    sg.initialized.clear();
                    for (ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo t : ((ShareGroupStatePartitionMetadataValue) read(slot.type(), value)).initializedTopics()) {
                        sg.initialized.computeIfAbsent(t.topicId(), id -> new TreeSet<>()).addAll(t.partitions());
                    }
                }
                case MEMBER_METADATA -> {
                    ShareGroupMemberMetadataValue v = ((ShareGroupMemberMetadataValue) read(slot.type(), value));
                    ShareGroup.Member m = member(sg, slot.id());
                    m.rackId = v.rackId();
                    m.clientId = v.clientId();
                    m.clientHost = v.clientHost();
                    m.subscribedTopics = List.copyOf(new TreeSet<>(v.subscribedTopicNames()));
                }
                case TARGET_MEMBER -> sg.target.put(slot.id(), ConsumerGroupRecords.fromList(((ShareGroupTargetAssignmentMemberValue) read(slot.type(), value)).topicPartitions(),
                        ShareGroupTargetAssignmentMemberValue.TopicPartition::topicId,
                        ShareGroupTargetAssignmentMemberValue.TopicPartition::partitions));
                case CURRENT_ASSIGNMENT -> {
                    ShareGroupCurrentMemberAssignmentValue v = ((ShareGroupCurrentMemberAssignmentValue) read(slot.type(), value));
                    ShareGroup.Member m = member(sg, slot.id());
                    m.memberEpoch = v.memberEpoch();
                    m.previousMemberEpoch = v.previousMemberEpoch();
                    m.assigned = ConsumerGroupRecords.fromList(v.assignedPartitions(),
                            ShareGroupCurrentMemberAssignmentValue.TopicPartitions::topicId,
                            ShareGroupCurrentMemberAssignmentValue.TopicPartitions::partitions);
                }
                default -> read(slot.type(), value); // refuses the type
            }
        });
        sg.target.keySet().retainAll(sg.members.keySet());
    }

    private static ShareGroup.Member member(ShareGroup sg, String memberId) {
        return sg.members.computeIfAbsent(memberId, ShareGroup.Member::new);
    }
}
