package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Krill's writer of {@code __consumer_offsets} records before Kafka's format (kept to test the conversion):
 * offset and group metadata values of version 0 in Krill's layout, and the whole-group records of consumer
 * and share groups ({@link WholeGroupRecords}) under key types 1003/1004, and before them 3/4.
 */
final class LegacyGroupRecords {
    private LegacyGroupRecords() {
    }

    static byte[] offsetValue(OffsetAndMetadata value) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(0);
        buf.writeLong(value.offset());
        buf.writeInt(value.leaderEpoch());
        writeNullableString(buf, value.metadata());
        buf.writeLong(value.commitTimestamp());
        buf.writeLong(value.expireTimestamp());
        return toBytes(buf);
    }

    static byte[] groupValue(GroupRecords.GroupValue value) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(0);
        writeNullableString(buf, value.protocolType());
        buf.writeInt(value.generationId());
        writeNullableString(buf, value.protocolName());
        writeNullableString(buf, value.leaderId());
        buf.writeLong(value.stateTimestamp());
        buf.writeInt(value.members().size());
        for (GroupRecords.MemberValue member : value.members()) {
            writeNullableString(buf, member.memberId());
            writeNullableString(buf, member.groupInstanceId());
            writeNullableString(buf, member.clientId());
            writeNullableString(buf, member.clientHost());
            buf.writeInt(member.rebalanceTimeoutMs());
            buf.writeInt(member.sessionTimeoutMs());
            writeBytes(buf, member.subscription());
            writeBytes(buf, member.assignment());
        }
        return toBytes(buf);
    }

    /** A whole-group key: {@code type} (1003, 1004, 3 or 4) and the group id. */
    static byte[] wholeGroupKey(int type, String groupId) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(type);
        writeNullableString(buf, groupId);
        return toBytes(buf);
    }

    static byte[] consumerGroupValue(WholeGroupRecords.ConsumerGroupValue value) {
        ByteBuf buf = Unpooled.buffer();
        boolean regexes = value.members().stream().anyMatch(m -> m.subscribedTopicRegex() != null);
        buf.writeShort(regexes ? 1 : 0);
        buf.writeInt(value.groupEpoch());
        buf.writeInt(value.members().size());
        for (WholeGroupRecords.ConsumerMemberValue m : value.members()) {
            writeNullableString(buf, m.memberId());
            writeNullableString(buf, m.instanceId());
            writeNullableString(buf, m.rackId());
            writeNullableString(buf, m.clientId());
            writeNullableString(buf, m.clientHost());
            buf.writeInt(m.rebalanceTimeoutMs());
            writeNullableString(buf, m.serverAssignor());
            buf.writeInt(m.subscribedTopics().size());
            m.subscribedTopics().forEach(t -> writeNullableString(buf, t));
            if (regexes) {
                writeNullableString(buf, m.subscribedTopicRegex());
            }
        }
        return toBytes(buf);
    }

    static byte[] shareGroupValue(WholeGroupRecords.ShareGroupValue value) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(0);
        buf.writeInt(value.groupEpoch());
        buf.writeInt(value.assignmentEpoch());
        buf.writeInt(value.members().size());
        for (WholeGroupRecords.ShareMemberValue m : value.members()) {
            writeNullableString(buf, m.memberId());
            writeNullableString(buf, m.rackId());
            writeNullableString(buf, m.clientId());
            writeNullableString(buf, m.clientHost());
            buf.writeInt(m.memberEpoch());
            buf.writeInt(m.previousMemberEpoch());
            buf.writeInt(m.subscribedTopics().size());
            m.subscribedTopics().forEach(t -> writeNullableString(buf, t));
            writePartitions(buf, m.assigned());
        }
        writePartitions(buf, value.initialized());
        return toBytes(buf);
    }

    private static void writePartitions(ByteBuf buf, Map<UUID, Set<Integer>> partitions) {
        buf.writeInt(partitions.size());
        partitions.forEach((topicId, ps) -> {
            buf.writeLong(topicId.getMostSignificantBits());
            buf.writeLong(topicId.getLeastSignificantBits());
            buf.writeInt(ps.size());
            ps.forEach(buf::writeInt);
        });
    }

    /** The record as the legacy writer wrote it (the same state; tombstones keep their key). */
    static CoordinatorLog.Entry toLegacy(CoordinatorLog.Entry entry) {
        GroupRecords.Key key = GroupRecords.readKey(Unpooled.wrappedBuffer(entry.key()));
        byte[] value = entry.value();
        if (value == null) {
            return entry;
        }
        if (key instanceof GroupRecords.OffsetKey) {
            return new CoordinatorLog.Entry(entry.key(), offsetValue(GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(value))));
        }
        if (key instanceof GroupRecords.GroupKey) {
            return new CoordinatorLog.Entry(entry.key(), groupValue(GroupRecords.readGroupValue(Unpooled.wrappedBuffer(value))));
        }
        return entry;
    }

    private static void writeNullableString(ByteBuf buf, String s) {
        if (s == null) {
            buf.writeShort(-1);
            return;
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        buf.writeShort(bytes.length);
        buf.writeBytes(bytes);
    }

    private static void writeBytes(ByteBuf buf, byte[] bytes) {
        byte[] b = bytes == null ? new byte[0] : bytes;
        buf.writeInt(b.length);
        buf.writeBytes(b);
    }

    private static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
