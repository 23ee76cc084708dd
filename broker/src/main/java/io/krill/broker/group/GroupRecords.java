package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorRecords;
import io.krill.wire.coordinator.ConsumerGroupCurrentMemberAssignmentKey;
import io.krill.wire.coordinator.ConsumerGroupMemberMetadataKey;
import io.krill.wire.coordinator.ConsumerGroupMetadataKey;
import io.krill.wire.coordinator.ConsumerGroupRegularExpressionKey;
import io.krill.wire.coordinator.ConsumerGroupTargetAssignmentMemberKey;
import io.krill.wire.coordinator.ConsumerGroupTargetAssignmentMetadataKey;
import io.krill.wire.coordinator.GroupMetadataKey;
import io.krill.wire.coordinator.GroupMetadataValue;
import io.krill.wire.coordinator.OffsetCommitKey;
import io.krill.wire.coordinator.OffsetCommitValue;
import io.krill.wire.coordinator.ShareGroupCurrentMemberAssignmentKey;
import io.krill.wire.coordinator.ShareGroupMemberMetadataKey;
import io.krill.wire.coordinator.ShareGroupMetadataKey;
import io.krill.wire.coordinator.ShareGroupStatePartitionMetadataKey;
import io.krill.wire.coordinator.ShareGroupTargetAssignmentMemberKey;
import io.krill.wire.coordinator.ShareGroupTargetAssignmentMetadataKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The records the group coordinator keeps in {@code __consumer_offsets}, all in Kafka's format (the generated
 * classes of {@code io.krill.wire.coordinator}, framed by {@link CoordinatorRecords}) as Kafka 4.4 writes
 * them, so that Kafka's {@code GroupMetadataMessageFormatter} and {@code OffsetsMessageFormatter} read them.
 * The topic is compacted, so the key names what a value replaces; a record with a null value (a tombstone)
 * deletes it.
 * <pre>
 * key type 1  OffsetCommitKey (group, topic, partition)
 *   value     OffsetCommitValue v4 (offset, leaderEpoch, metadata ("" for none), commitTimestamp), or v1
 *             (offset, metadata, commitTimestamp, expireTimestamp) when the commit has an expiry
 *             (OffsetCommit v2-4 retention): Kafka's choice, v1 has no leader epoch
 * key type 2  GroupMetadataKey (group)
 *   value     GroupMetadataValue v3 (protocolType ("" for none), generation, protocol, leader,
 *             currentStateTimestamp, members: memberId, groupInstanceId, clientId, clientHost,
 *             rebalanceTimeout, sessionTimeout, subscription, assignment)
 * key types 3, 5-8, 16    a KIP-848 consumer group, one record per part ({@link ConsumerGroupRecords})
 * key types 10-15         a KIP-932 share group, likewise ({@link ShareGroupRecords})
 * </pre>
 * Key types 4 (ConsumerGroupPartitionMetadata, deprecated by KIP-1101) and 9 are not written.
 *
 * <p>Krill's former layouts, read for the one-time conversion on load ({@link #isLegacy}): an offset value
 * of version 0 ({@code int64 offset, int32 leaderEpoch, nullable string metadata, int64 commitTimestamp,
 * int64 expireTimestamp}) and a group metadata value of version 0 ({@code nullable string protocolType,
 * int32 generationId, nullable string protocolName, nullable string leaderId, int64 stateTimestamp, int32
 * memberCount, members (string memberId, nullable string groupInstanceId, string clientId, string
 * clientHost, int32 rebalanceTimeoutMs, int32 sessionTimeoutMs, int32-length bytes subscription,
 * int32-length bytes assignment)}): Krill writes Kafka's versions 1, 3 and 4 only, so version 0 under key
 * types 1 and 2 is always the former layout; and the whole-group records of {@link WholeGroupRecords}
 * (key types 1003 and 1004, and before them 3 and 4).
 *
 * <p>A reader skips keys of an unknown type (Kafka's other record types, a later Krill's record) and
 * rejects unknown value versions of known keys, which it cannot interpret safely. Stateless; thread-safe.
 */
public final class GroupRecords {
    public static final short OFFSET_COMMIT_KEY = OffsetCommitKey.API_KEY;
    public static final short GROUP_METADATA_KEY = GroupMetadataKey.API_KEY;
    /** The OffsetCommitValue version Kafka 4.4 writes for a commit without expiry. */
    static final short OFFSET_VALUE_VERSION = 4;
    /** The OffsetCommitValue version Kafka 4.4 writes for a commit with an expiry timestamp. */
    static final short OFFSET_VALUE_VERSION_WITH_EXPIRY = 1;
    /** The GroupMetadataValue version Kafka 4.4 writes. */
    static final short GROUP_VALUE_VERSION = 3;
    /** The offset and group metadata value version of Krill's legacy layout. */
    static final short LEGACY_VALUE_VERSION = 0;
    /** Kafka's consumer and share group record types keyed by group id and member id or regular expression. */
    private static final Set<Short> MEMBER_OR_REGEX_KEYS = Set.of(ConsumerGroupMemberMetadataKey.API_KEY,
            ConsumerGroupTargetAssignmentMemberKey.API_KEY, ConsumerGroupCurrentMemberAssignmentKey.API_KEY,
            ConsumerGroupRegularExpressionKey.API_KEY, ShareGroupMemberMetadataKey.API_KEY,
            ShareGroupTargetAssignmentMemberKey.API_KEY, ShareGroupCurrentMemberAssignmentKey.API_KEY);
    /** Kafka's consumer and share group record types keyed by group id alone. */
    private static final Set<Short> GROUP_KEYS = Set.of(ConsumerGroupMetadataKey.API_KEY,
            ConsumerGroupTargetAssignmentMetadataKey.API_KEY, ShareGroupMetadataKey.API_KEY,
            ShareGroupTargetAssignmentMetadataKey.API_KEY, ShareGroupStatePartitionMetadataKey.API_KEY);
    private GroupRecords() {
    }

    /** A decoded key. */
    public sealed interface Key permits OffsetKey, GroupKey, ModernKey, WholeGroupKey {
        String groupId();
    }

    public record OffsetKey(String groupId, String topic, int partition) implements Key {
    }

    public record GroupKey(String groupId) implements Key {
    }

    /**
     * A key of one of Kafka's consumer or share group records: its record type and, for a record of a member
     * or a regular expression, the member id or the expression ("" for a record of the whole group).
     */
    public record ModernKey(String groupId, short type, String id) implements Key {
    }

    /** A key of Krill's former whole-group records ({@link WholeGroupRecords}); {@code share} for a share group. */
    public record WholeGroupKey(String groupId, boolean share) implements Key {
    }

    /** The key of one of Kafka's consumer or share group records: type, group id, then {@code id} unless "". */
    static byte[] modernKey(short type, String groupId, String id) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(type);
        writeString(buf, groupId);
        if (MEMBER_OR_REGEX_KEYS.contains(type)) {
            writeString(buf, id);
        }
        return toBytes(buf);
    }

    /** One member as stored with its group. */
    public record MemberValue(String memberId, String groupInstanceId, String clientId, String clientHost,
                              int rebalanceTimeoutMs, int sessionTimeoutMs, byte[] subscription, byte[] assignment) {
    }

    /** A group's state as stored: its generation, protocol, leader and members with their assignments. */
    public record GroupValue(String protocolType, int generationId, String protocolName, String leaderId,
                             long stateTimestamp, List<MemberValue> members) {
        public GroupValue {
            members = List.copyOf(members);
        }
    }

    public static byte[] offsetKey(String groupId, String topic, int partition) {
        return CoordinatorRecords.key(new OffsetCommitKey().setGroup(groupId).setTopic(topic).setPartition(partition));
    }

    public static byte[] groupKey(String groupId) {
        return CoordinatorRecords.key(new GroupMetadataKey().setGroup(groupId));
    }

    public static byte[] offsetValue(OffsetAndMetadata value) {
        boolean expiring = value.expireTimestamp() != OffsetAndMetadata.NO_EXPIRY;
        OffsetCommitValue v = new OffsetCommitValue()
                .setOffset(value.offset())
                .setLeaderEpoch(value.leaderEpoch())
                .setMetadata(value.metadata() == null ? "" : value.metadata())
                .setCommitTimestamp(value.commitTimestamp())
                .setExpireTimestamp(value.expireTimestamp());
        return CoordinatorRecords.value(v, expiring ? OFFSET_VALUE_VERSION_WITH_EXPIRY : OFFSET_VALUE_VERSION);
    }

    public static byte[] groupValue(GroupValue value) {
        List<GroupMetadataValue.MemberMetadata> members = new ArrayList<>(value.members().size());
        for (MemberValue m : value.members()) {
            members.add(new GroupMetadataValue.MemberMetadata()
                    .setMemberId(m.memberId())
                    .setGroupInstanceId(m.groupInstanceId())
                    .setClientId(m.clientId())
                    .setClientHost(m.clientHost())
                    .setRebalanceTimeout(m.rebalanceTimeoutMs())
                    .setSessionTimeout(m.sessionTimeoutMs())
                    .setSubscription(m.subscription() == null ? new byte[0] : m.subscription())
                    .setAssignment(m.assignment() == null ? new byte[0] : m.assignment()));
        }
        GroupMetadataValue v = new GroupMetadataValue()
                .setProtocolType(value.protocolType() == null ? "" : value.protocolType())
                .setGeneration(value.generationId())
                .setProtocol(value.protocolName())
                .setLeader(value.leaderId())
                .setCurrentStateTimestamp(value.stateTimestamp())
                .setMembers(members);
        return CoordinatorRecords.value(v, GROUP_VALUE_VERSION);
    }

    /**
     * Whether a record is of one of Krill's former layouts and is rewritten by the one-time conversion: an
     * offset or group metadata value of version 0, a whole-group value, or a value under key type 3 that is
     * not Kafka's ConsumerGroupMetadataValue (Krill's whole consumer group before key type 1003).
     */
    public static boolean isLegacy(Key key, ByteBuf value) {
        if (key instanceof WholeGroupKey) {
            return value != null; // its tombstone is Kafka's as much as anyone's: nothing to convert
        }
        if (key instanceof ModernKey k) {
            return value != null && k.type() == ConsumerGroupMetadataKey.API_KEY
                    && !ConsumerGroupRecords.isMetadataValue(value);
        }
        return value != null && CoordinatorRecords.valueVersion(value) == LEGACY_VALUE_VERSION;
    }

    /**
     * Decodes a key (its readable bytes; the reader index is not moved), or returns null for a key type
     * this version does not know.
     *
     * @throws IllegalArgumentException if the bytes are not a key of a known type
     */
    public static Key readKey(ByteBuf key) {
        ByteBuf buf = key.duplicate();
        try {
            short type = buf.readShort();
            Key decoded;
            if (type == OFFSET_COMMIT_KEY) {
                decoded = new OffsetKey(readString(buf), readString(buf), buf.readInt());
            } else if (type == GROUP_METADATA_KEY) {
                decoded = new GroupKey(readString(buf));
            } else if (MEMBER_OR_REGEX_KEYS.contains(type)) {
                decoded = new ModernKey(readString(buf), type, readString(buf));
            } else if (GROUP_KEYS.contains(type)) {
                decoded = new ModernKey(readString(buf), type, "");
            } else if (WholeGroupRecords.isKeyType(type)) {
                decoded = new WholeGroupKey(readString(buf), WholeGroupRecords.isShareKeyType(type));
            } else {
                return null;
            }
            if (buf.isReadable()) {
                throw new IllegalArgumentException(buf.readableBytes() + " bytes after a key of type " + type);
            }
            return decoded;
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated group coordinator key", e);
        }
    }

    /** Reads an offset value: Kafka's OffsetCommitValue (versions 1-4), or Krill's legacy version 0. */
    public static OffsetAndMetadata readOffsetValue(ByteBuf value) {
        if (CoordinatorRecords.valueVersion(value) != LEGACY_VALUE_VERSION) {
            OffsetCommitValue v = CoordinatorRecords.readValue(value, new OffsetCommitValue());
            return new OffsetAndMetadata(v.offset(), v.leaderEpoch(), v.metadata(), v.commitTimestamp(),
                    v.expireTimestamp());
        }
        ByteBuf buf = value.duplicate();
        try {
            buf.readShort();
            return new OffsetAndMetadata(buf.readLong(), buf.readInt(), readNullableString(buf), buf.readLong(),
                    buf.readLong());
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated offset commit value", e);
        }
    }

    /** Reads a group metadata value: Kafka's GroupMetadataValue (versions 1-4), or Krill's legacy version 0. */
    public static GroupValue readGroupValue(ByteBuf value) {
        if (CoordinatorRecords.valueVersion(value) != LEGACY_VALUE_VERSION) {
            GroupMetadataValue v = CoordinatorRecords.readValue(value, new GroupMetadataValue());
            List<MemberValue> members = new ArrayList<>(v.members().size());
            for (GroupMetadataValue.MemberMetadata m : v.members()) {
                members.add(new MemberValue(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                        m.rebalanceTimeout(), m.sessionTimeout(), m.subscription(), m.assignment()));
            }
            return new GroupValue(v.protocolType().isEmpty() ? null : v.protocolType(), v.generation(), v.protocol(),
                    v.leader(), v.currentStateTimestamp(), members);
        }
        ByteBuf buf = value.duplicate();
        try {
            buf.readShort();
            String protocolType = readNullableString(buf);
            int generation = buf.readInt();
            String protocolName = readNullableString(buf);
            String leader = readNullableString(buf);
            long stateTimestamp = buf.readLong();
            int count = buf.readInt();
            if (count < 0 || count > buf.readableBytes()) {
                throw new IllegalArgumentException("invalid member count " + count);
            }
            List<MemberValue> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                members.add(new MemberValue(readString(buf), readNullableString(buf), readString(buf), readString(buf),
                        buf.readInt(), buf.readInt(), readBytes(buf), readBytes(buf)));
            }
            return new GroupValue(protocolType, generation, protocolName, leader, stateTimestamp, members);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated group metadata value", e);
        }
    }

    static void writeString(ByteBuf buf, String s) {
        if (s == null) {
            throw new IllegalArgumentException("null where a string is required");
        }
        writeNullableString(buf, s);
    }

    static void writeNullableString(ByteBuf buf, String s) {
        if (s == null) {
            buf.writeShort(-1);
            return;
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string of " + bytes.length + " bytes is too long");
        }
        buf.writeShort(bytes.length);
        buf.writeBytes(bytes);
    }

    static String readString(ByteBuf buf) {
        String s = readNullableString(buf);
        if (s == null) {
            throw new IllegalArgumentException("null where a string is required");
        }
        return s;
    }

    static String readNullableString(ByteBuf buf) {
        short length = buf.readShort();
        if (length < 0) {
            return null;
        }
        String s = buf.toString(buf.readerIndex(), length, StandardCharsets.UTF_8);
        buf.skipBytes(length);
        return s;
    }

    private static byte[] readBytes(ByteBuf buf) {
        int length = buf.readInt();
        if (length < 0 || length > buf.readableBytes()) {
            throw new IllegalArgumentException("invalid bytes length " + length);
        }
        byte[] bytes = new byte[length];
        buf.readBytes(bytes);
        return bytes;
    }

    static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
