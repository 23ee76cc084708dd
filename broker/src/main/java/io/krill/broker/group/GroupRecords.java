package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorRecords;
import io.krill.wire.coordinator.GroupMetadataKey;
import io.krill.wire.coordinator.GroupMetadataValue;
import io.krill.wire.coordinator.OffsetCommitKey;
import io.krill.wire.coordinator.OffsetCommitValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The records the group coordinator keeps in {@code __consumer_offsets}. The topic is compacted, so the key
 * names what a value replaces; a record with a null value (a tombstone) deletes it.
 *
 * <p>Offsets and classic groups are in Kafka's format (the generated classes of
 * {@code io.krill.wire.coordinator}, framed by {@link CoordinatorRecords}), as Kafka 4.4 writes them, so
 * that Kafka's {@code OffsetsMessageFormatter} and {@code GroupMetadataMessageFormatter} read them:
 * <pre>
 * key type 1  OffsetCommitKey (group, topic, partition)
 *   value     OffsetCommitValue v4 (offset, leaderEpoch, metadata ("" for none), commitTimestamp), or v1
 *             (offset, metadata, commitTimestamp, expireTimestamp) when the commit has an expiry
 *             (OffsetCommit v2-4 retention): Kafka's choice, v1 has no leader epoch
 * key type 2  GroupMetadataKey (group)
 *   value     GroupMetadataValue v3 (protocolType ("" for none), generation, protocol, leader,
 *             currentStateTimestamp, members: memberId, groupInstanceId, clientId, clientHost,
 *             rebalanceTimeout, sessionTimeout, subscription, assignment)
 * </pre>
 *
 * <p>KIP-848 consumer groups and KIP-932 share groups are still written whole, one record per group, in
 * Krill's own layout, under key types Kafka does not use (Kafka splits these groups into record types
 * 3-16, which Krill does not write yet); Kafka's formatters skip unknown record types:
 * <pre>
 * key type 1003  consumer group (KIP-848) := int16 1003, string groupId
 * key type 1004  share group (KIP-932)    := int16 1004, string groupId
 *
 * consumer group value := int16 version (0 or 1),
 *     int32 groupEpoch, int32 memberCount, memberCount x consumerMember
 *   consumerMember := string memberId, nullable string instanceId, nullable string rackId,
 *     string clientId, string clientHost, int32 rebalanceTimeoutMs, nullable string serverAssignor,
 *     int32 topicCount, topicCount x string subscribedTopicName,
 *     [version 1] nullable string subscribedTopicRegex
 *
 * share group value := int16 version (0),
 *     int32 groupEpoch, int32 assignmentEpoch, int32 memberCount, memberCount x shareMember,
 *     partitions initialized (the share-partitions whose state the share coordinator has initialized)
 *   shareMember := string memberId, nullable string rackId, string clientId, string clientHost,
 *     int32 memberEpoch, int32 previousMemberEpoch, int32 topicCount, topicCount x string subscribedTopicName,
 *     partitions assigned
 *   partitions := int32 topicCount, topicCount x (uuid topicId (int64 most, int64 least significant bits),
 *     int32 count, count x int32 partition)
 * </pre>
 * (Krill's primitives: big-endian; {@code string} an int16 byte length and UTF-8 bytes, -1 for a null
 * nullable string.)
 *
 * <p>Krill's legacy layout, read for the one-time conversion on load ({@link #isLegacy}): an offset value
 * of version 0 ({@code int64 offset, int32 leaderEpoch, nullable string metadata, int64 commitTimestamp,
 * int64 expireTimestamp}) and a group metadata value of version 0 ({@code nullable string protocolType,
 * int32 generationId, nullable string protocolName, nullable string leaderId, int64 stateTimestamp, int32
 * memberCount, members (string memberId, nullable string groupInstanceId, string clientId, string
 * clientHost, int32 rebalanceTimeoutMs, int32 sessionTimeoutMs, int32-length bytes subscription,
 * int32-length bytes assignment)}): Krill writes Kafka's versions 1, 3 and 4 only, so version 0 under key
 * types 1 and 2 is always Krill's legacy layout; and any record of key type 3 (consumer group) or 4 (share
 * group), whose values are the layouts above: Krill no longer writes those key types, and Kafka's meaning
 * of them (ConsumerGroupMetadata, ConsumerGroupPartitionMetadata) is not read here.
 *
 * <p>A share group is written whole, as one record, whenever what it persists changes (epochs,
 * members, subscriptions, assignment, initialized partitions), and tombstoned with the group (DeleteGroups).
 * Unlike a consumer group's, its members survive a coordinator move with their epochs and assignments:
 * nothing needs revoking in a share group, so they heartbeat on; their sessions restart at the load.
 *
 * <p>A consumer-protocol group is written as one record each time its group epoch moves (a member joins,
 * leaves, expires or changes its subscription) and tombstoned with the group; version 1 only for a group
 * where a member subscribes by regex. Member epochs and assignments are not stored: on load the target
 * assignment is recomputed and every member starts at epoch 0, so its next heartbeat is fenced and it
 * rejoins under its member id.
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
    /** Krill's whole consumer group record: a key type Kafka does not use. */
    public static final short CONSUMER_GROUP_KEY = 1003;
    /** Krill's whole share group record: a key type Kafka does not use. */
    public static final short SHARE_GROUP_KEY = 1004;
    /** The legacy key types of those records (Kafka's ConsumerGroupMetadata and ConsumerGroupPartitionMetadata). */
    static final short LEGACY_CONSUMER_GROUP_KEY = 3;
    static final short LEGACY_SHARE_GROUP_KEY = 4;
    static final short CONSUMER_GROUP_VALUE_VERSION = 0;
    static final short SHARE_GROUP_VALUE_VERSION = 0;
    /** Adds each member's SubscribedTopicRegex (KIP-848). */
    static final short CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX = 1;

    private GroupRecords() {
    }

    /** A decoded key: either an offset commit key or a group metadata key. */
    public sealed interface Key permits OffsetKey, GroupKey, ConsumerGroupKey, ShareGroupKey {
        String groupId();
    }

    public record OffsetKey(String groupId, String topic, int partition) implements Key {
    }

    public record GroupKey(String groupId) implements Key {
    }

    /** A consumer group key; {@code legacy} for key type 3, Krill's legacy layout. */
    public record ConsumerGroupKey(String groupId, boolean legacy) implements Key {
        public ConsumerGroupKey(String groupId) {
            this(groupId, false);
        }
    }

    /** A share group key; {@code legacy} for key type 4, Krill's legacy layout. */
    public record ShareGroupKey(String groupId, boolean legacy) implements Key {
        public ShareGroupKey(String groupId) {
            this(groupId, false);
        }
    }

    /** One member of a share group as stored; partitions by topic id. */
    public record ShareMemberValue(String memberId, String rackId, String clientId, String clientHost,
                                   int memberEpoch, int previousMemberEpoch, List<String> subscribedTopics,
                                   Map<UUID, Set<Integer>> assigned) {
        public ShareMemberValue {
            subscribedTopics = List.copyOf(subscribedTopics);
            assigned = copyPartitions(assigned);
        }
    }

    /** A share group as stored: epochs, members with their assignments, initialized share-partitions. */
    public record ShareGroupValue(int groupEpoch, int assignmentEpoch, List<ShareMemberValue> members,
                                  Map<UUID, Set<Integer>> initialized) {
        public ShareGroupValue {
            members = List.copyOf(members);
            initialized = copyPartitions(initialized);
        }
    }

    public static byte[] shareGroupKey(String groupId) {
        return groupIdKey(SHARE_GROUP_KEY, groupId);
    }

    /** The legacy key of a share group (to tombstone it once converted). */
    static byte[] legacyShareGroupKey(String groupId) {
        return groupIdKey(LEGACY_SHARE_GROUP_KEY, groupId);
    }

    private static byte[] groupIdKey(short type, String groupId) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(type);
        writeString(buf, groupId);
        return toBytes(buf);
    }

    public static byte[] shareGroupValue(ShareGroupValue value) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(SHARE_GROUP_VALUE_VERSION);
        buf.writeInt(value.groupEpoch());
        buf.writeInt(value.assignmentEpoch());
        buf.writeInt(value.members().size());
        for (ShareMemberValue m : value.members()) {
            writeString(buf, m.memberId());
            writeNullableString(buf, m.rackId());
            writeString(buf, m.clientId());
            writeString(buf, m.clientHost());
            buf.writeInt(m.memberEpoch());
            buf.writeInt(m.previousMemberEpoch());
            buf.writeInt(m.subscribedTopics().size());
            for (String topic : m.subscribedTopics()) {
                writeString(buf, topic);
            }
            writePartitions(buf, m.assigned());
        }
        writePartitions(buf, value.initialized());
        return toBytes(buf);
    }

    public static ShareGroupValue readShareGroupValue(ByteBuf value) {
        ByteBuf buf = value.duplicate();
        try {
            short version = buf.readShort();
            if (version != SHARE_GROUP_VALUE_VERSION) {
                throw new IllegalArgumentException("unknown share group metadata value version " + version);
            }
            int groupEpoch = buf.readInt();
            int assignmentEpoch = buf.readInt();
            int count = readCount(buf);
            List<ShareMemberValue> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String memberId = readString(buf);
                String rackId = readNullableString(buf);
                String clientId = readString(buf);
                String clientHost = readString(buf);
                int memberEpoch = buf.readInt();
                int previousMemberEpoch = buf.readInt();
                int topics = readCount(buf);
                List<String> names = new ArrayList<>(topics);
                for (int t = 0; t < topics; t++) {
                    names.add(readString(buf));
                }
                members.add(new ShareMemberValue(memberId, rackId, clientId, clientHost, memberEpoch,
                        previousMemberEpoch, names, readPartitions(buf)));
            }
            return new ShareGroupValue(groupEpoch, assignmentEpoch, members, readPartitions(buf));
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated share group metadata value", e);
        }
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

    private static Map<UUID, Set<Integer>> readPartitions(ByteBuf buf) {
        int topics = readCount(buf);
        Map<UUID, Set<Integer>> partitions = new TreeMap<>();
        for (int t = 0; t < topics; t++) {
            UUID topicId = new UUID(buf.readLong(), buf.readLong());
            int count = readCount(buf);
            Set<Integer> ps = new TreeSet<>();
            for (int i = 0; i < count; i++) {
                ps.add(buf.readInt());
            }
            partitions.put(topicId, ps);
        }
        return partitions;
    }

    private static int readCount(ByteBuf buf) {
        int count = buf.readInt();
        if (count < 0 || count > buf.readableBytes()) {
            throw new IllegalArgumentException("invalid count " + count);
        }
        return count;
    }

    private static Map<UUID, Set<Integer>> copyPartitions(Map<UUID, Set<Integer>> partitions) {
        Map<UUID, Set<Integer>> copy = new TreeMap<>();
        partitions.forEach((t, ps) -> copy.put(t, java.util.Collections.unmodifiableSet(new TreeSet<>(ps))));
        return java.util.Collections.unmodifiableMap(copy);
    }

    /** One member of a consumer-protocol group as stored; {@code subscribedTopicRegex} may be null. */
    public record ConsumerMemberValue(String memberId, String instanceId, String rackId, String clientId,
                                      String clientHost, int rebalanceTimeoutMs, String serverAssignor,
                                      List<String> subscribedTopics, String subscribedTopicRegex) {
        public ConsumerMemberValue {
            subscribedTopics = List.copyOf(subscribedTopics);
        }

        public ConsumerMemberValue(String memberId, String instanceId, String rackId, String clientId,
                                   String clientHost, int rebalanceTimeoutMs, String serverAssignor,
                                   List<String> subscribedTopics) {
            this(memberId, instanceId, rackId, clientId, clientHost, rebalanceTimeoutMs, serverAssignor,
                    subscribedTopics, null);
        }
    }

    /** A consumer-protocol group as stored: its group epoch and members' subscriptions. */
    public record ConsumerGroupValue(int groupEpoch, List<ConsumerMemberValue> members) {
        public ConsumerGroupValue {
            members = List.copyOf(members);
        }
    }

    public static byte[] consumerGroupKey(String groupId) {
        return groupIdKey(CONSUMER_GROUP_KEY, groupId);
    }

    /** The legacy key of a consumer group (to tombstone it once converted). */
    static byte[] legacyConsumerGroupKey(String groupId) {
        return groupIdKey(LEGACY_CONSUMER_GROUP_KEY, groupId);
    }

    public static byte[] consumerGroupValue(ConsumerGroupValue value) {
        ByteBuf buf = Unpooled.buffer();
        // Version 1 adds each member's topic regex; a group without regexes is still written as version 0,
        // which brokers before regex support read.
        boolean regexes = value.members().stream().anyMatch(m -> m.subscribedTopicRegex() != null);
        short version = regexes ? CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX : CONSUMER_GROUP_VALUE_VERSION;
        buf.writeShort(version);
        buf.writeInt(value.groupEpoch());
        buf.writeInt(value.members().size());
        for (ConsumerMemberValue m : value.members()) {
            writeString(buf, m.memberId());
            writeNullableString(buf, m.instanceId());
            writeNullableString(buf, m.rackId());
            writeString(buf, m.clientId());
            writeString(buf, m.clientHost());
            buf.writeInt(m.rebalanceTimeoutMs());
            writeNullableString(buf, m.serverAssignor());
            buf.writeInt(m.subscribedTopics().size());
            for (String topic : m.subscribedTopics()) {
                writeString(buf, topic);
            }
            if (regexes) {
                writeNullableString(buf, m.subscribedTopicRegex());
            }
        }
        return toBytes(buf);
    }

    public static ConsumerGroupValue readConsumerGroupValue(ByteBuf value) {
        ByteBuf buf = value.duplicate();
        try {
            short version = buf.readShort();
            if (version != CONSUMER_GROUP_VALUE_VERSION && version != CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX) {
                throw new IllegalArgumentException("unknown consumer group metadata value version " + version);
            }
            int epoch = buf.readInt();
            int count = buf.readInt();
            if (count < 0 || count > buf.readableBytes()) {
                throw new IllegalArgumentException("invalid member count " + count);
            }
            List<ConsumerMemberValue> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String memberId = readString(buf);
                String instanceId = readNullableString(buf);
                String rackId = readNullableString(buf);
                String clientId = readString(buf);
                String clientHost = readString(buf);
                int rebalanceTimeoutMs = buf.readInt();
                String assignor = readNullableString(buf);
                int topics = buf.readInt();
                if (topics < 0 || topics > buf.readableBytes()) {
                    throw new IllegalArgumentException("invalid topic count " + topics);
                }
                List<String> names = new ArrayList<>(topics);
                for (int t = 0; t < topics; t++) {
                    names.add(readString(buf));
                }
                String regex = version >= CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX ? readNullableString(buf) : null;
                members.add(new ConsumerMemberValue(memberId, instanceId, rackId, clientId, clientHost,
                        rebalanceTimeoutMs, assignor, names, regex));
            }
            return new ConsumerGroupValue(epoch, members);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated consumer group metadata value", e);
        }
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
     * Whether a record is of Krill's legacy layout and is rewritten by the one-time conversion: an offset or
     * group metadata value of version 0, or a consumer or share group key of the legacy types 3 and 4.
     */
    public static boolean isLegacy(Key key, ByteBuf value) {
        if (key instanceof ConsumerGroupKey k) {
            return k.legacy();
        }
        if (key instanceof ShareGroupKey k) {
            return k.legacy();
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
            } else if (type == CONSUMER_GROUP_KEY || type == LEGACY_CONSUMER_GROUP_KEY) {
                decoded = new ConsumerGroupKey(readString(buf), type == LEGACY_CONSUMER_GROUP_KEY);
            } else if (type == SHARE_GROUP_KEY || type == LEGACY_SHARE_GROUP_KEY) {
                decoded = new ShareGroupKey(readString(buf), type == LEGACY_SHARE_GROUP_KEY);
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

    private static void writeString(ByteBuf buf, String s) {
        if (s == null) {
            throw new IllegalArgumentException("null where a string is required");
        }
        writeNullableString(buf, s);
    }

    private static void writeNullableString(ByteBuf buf, String s) {
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

    private static String readString(ByteBuf buf) {
        String s = readNullableString(buf);
        if (s == null) {
            throw new IllegalArgumentException("null where a string is required");
        }
        return s;
    }

    private static String readNullableString(ByteBuf buf) {
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

    private static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
