package io.krill.broker.group;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Reads Krill's former whole-group records of KIP-848 consumer groups and KIP-932 share groups, one record
 * per group, for the one-time conversion to Kafka's records on load ({@link GroupPartitionLoader}); nothing
 * writes them any more.
 * <pre>
 * key := int16 type, string groupId
 *   type 1003 consumer group; before it type 3 (told from Kafka's ConsumerGroupMetadata by its value)
 *   type 1004 share group; before it type 4 (Kafka's deprecated ConsumerGroupPartitionMetadata, never
 *             written by Krill in Kafka's format)
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
 *     partitions initialized
 *   shareMember := string memberId, nullable string rackId, string clientId, string clientHost,
 *     int32 memberEpoch, int32 previousMemberEpoch, int32 topicCount, topicCount x string subscribedTopicName,
 *     partitions assigned
 *   partitions := int32 topicCount, topicCount x (uuid topicId (int64 most, int64 least significant bits),
 *     int32 count, count x int32 partition)
 * </pre>
 * (Big-endian; {@code string} an int16 byte length and UTF-8 bytes, -1 for a null nullable string.) The
 * consumer group layout kept no member epochs or assignments: a converted group's members are fenced at
 * their next heartbeat and rejoin, as they were after a coordinator move then.
 *
 * <p>Stateless; thread-safe.
 */
final class WholeGroupRecords {
    static final short CONSUMER_GROUP_KEY = 1003;
    static final short SHARE_GROUP_KEY = 1004;
    /** The share group key type before 1004; 3, the consumer group's, is Kafka's ConsumerGroupMetadata now. */
    static final short FIRST_SHARE_GROUP_KEY = 4;
    static final short CONSUMER_GROUP_VALUE_VERSION = 0;
    static final short CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX = 1;
    static final short SHARE_GROUP_VALUE_VERSION = 0;

    private WholeGroupRecords() {
    }

    /** One member of a consumer group as stored; {@code subscribedTopicRegex} may be null. */
    record ConsumerMemberValue(String memberId, String instanceId, String rackId, String clientId,
                               String clientHost, int rebalanceTimeoutMs, String serverAssignor,
                               List<String> subscribedTopics, String subscribedTopicRegex) {
        ConsumerMemberValue {
            subscribedTopics = List.copyOf(subscribedTopics);
        }
    }

    /** A consumer group as stored: its group epoch and members' subscriptions. */
    record ConsumerGroupValue(int groupEpoch, List<ConsumerMemberValue> members) {
        ConsumerGroupValue {
            members = List.copyOf(members);
        }
    }

    /** One member of a share group as stored; partitions by topic id. */
    record ShareMemberValue(String memberId, String rackId, String clientId, String clientHost,
                            int memberEpoch, int previousMemberEpoch, List<String> subscribedTopics,
                            Map<UUID, Set<Integer>> assigned) {
        ShareMemberValue {
            subscribedTopics = List.copyOf(subscribedTopics);
            assigned = copyPartitions(assigned);
        }
    }

    /** A share group as stored: epochs, members with their assignments, initialized share-partitions. */
    record ShareGroupValue(int groupEpoch, int assignmentEpoch, List<ShareMemberValue> members,
                           Map<UUID, Set<Integer>> initialized) {
        ShareGroupValue {
            members = List.copyOf(members);
            initialized = copyPartitions(initialized);
        }
    }

    /** Whether {@code type} is the key type of a whole-group record (type 3 is told by its value instead). */
    static boolean isKeyType(short type) {
        return type == CONSUMER_GROUP_KEY || type == SHARE_GROUP_KEY || type == FIRST_SHARE_GROUP_KEY;
    }

    static boolean isShareKeyType(short type) {
        return type == SHARE_GROUP_KEY || type == FIRST_SHARE_GROUP_KEY;
    }

    static ConsumerGroupValue readConsumerGroupValue(ByteBuf value) {
        ByteBuf buf = value.duplicate();
        try {
            short version = buf.readShort();
            if (version != CONSUMER_GROUP_VALUE_VERSION && version != CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX) {
                throw new IllegalArgumentException("unknown consumer group metadata value version " + version);
            }
            int epoch = buf.readInt();
            int count = readCount(buf);
            List<ConsumerMemberValue> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String memberId = GroupRecords.readString(buf);
                String instanceId = GroupRecords.readNullableString(buf);
                String rackId = GroupRecords.readNullableString(buf);
                String clientId = GroupRecords.readString(buf);
                String clientHost = GroupRecords.readString(buf);
                int rebalanceTimeoutMs = buf.readInt();
                String assignor = GroupRecords.readNullableString(buf);
                List<String> names = readStrings(buf);
                String regex = version >= CONSUMER_GROUP_VALUE_VERSION_WITH_REGEX
                        ? GroupRecords.readNullableString(buf) : null;
                members.add(new ConsumerMemberValue(memberId, instanceId, rackId, clientId, clientHost,
                        rebalanceTimeoutMs, assignor, names, regex));
            }
            return new ConsumerGroupValue(epoch, members);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated consumer group metadata value", e);
        }
    }

    static ShareGroupValue readShareGroupValue(ByteBuf value) {
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
                String memberId = GroupRecords.readString(buf);
                String rackId = GroupRecords.readNullableString(buf);
                String clientId = GroupRecords.readString(buf);
                String clientHost = GroupRecords.readString(buf);
                int memberEpoch = buf.readInt();
                int previousMemberEpoch = buf.readInt();
                List<String> names = readStrings(buf);
                members.add(new ShareMemberValue(memberId, rackId, clientId, clientHost, memberEpoch,
                        previousMemberEpoch, names, readPartitions(buf)));
            }
            return new ShareGroupValue(groupEpoch, assignmentEpoch, members, readPartitions(buf));
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated share group metadata value", e);
        }
    }

    private static List<String> readStrings(ByteBuf buf) {
        int count = readCount(buf);
        List<String> strings = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            strings.add(GroupRecords.readString(buf));
        }
        return strings;
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
        partitions.forEach((t, ps) -> copy.put(t, Collections.unmodifiableSet(new TreeSet<>(ps))));
        return Collections.unmodifiableMap(copy);
    }
}
