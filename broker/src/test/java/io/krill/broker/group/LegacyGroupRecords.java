package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Krill's writer of {@code __consumer_offsets} records before Kafka's format (kept to test the conversion):
 * offset and group metadata values of version 0 in Krill's layout, consumer and share groups under key
 * types 3 and 4.
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

    /** The record as the legacy writer wrote it (the same state; tombstones keep their key). */
    static CoordinatorLog.Entry toLegacy(CoordinatorLog.Entry entry) {
        GroupRecords.Key key = GroupRecords.readKey(Unpooled.wrappedBuffer(entry.key()));
        byte[] value = entry.value();
        if (key instanceof GroupRecords.ConsumerGroupKey k) {
            return new CoordinatorLog.Entry(GroupRecords.legacyConsumerGroupKey(k.groupId()), value);
        }
        if (key instanceof GroupRecords.ShareGroupKey k) {
            return new CoordinatorLog.Entry(GroupRecords.legacyShareGroupKey(k.groupId()), value);
        }
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
