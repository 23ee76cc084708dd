package io.krill.compat.differential;

import io.krill.wire.message.ConsumerGroupDescribeRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.DeleteGroupsRequest;
import io.krill.wire.message.DescribeGroupsRequest;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.ListGroupsRequest;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.SyncGroupRequest;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * Group request bodies as the 4.4 consumer (classic and KIP-848 protocols) and the Admin client fill them,
 * for the version they are written at. Subscriptions and assignments are the consumer protocol's bytes,
 * written by kafka-clients' {@link ConsumerProtocol}.
 *
 * <p>Stateless; thread-safe.
 */
final class GroupRequests {
    static final String PROTOCOL_TYPE = "consumer";
    static final String RANGE = "range";
    static final int SESSION_TIMEOUT_MS = 45_000;
    static final int REBALANCE_TIMEOUT_MS = 30_000;

    private GroupRequests() {
    }

    /** The consumer protocol's subscription of {@code topics}, as JoinGroup carries it. */
    static byte[] subscription(String... topics) {
        return bytes(ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(List.of(topics))));
    }

    /** The consumer protocol's assignment of partition 0 of {@code topic}, as SyncGroup carries it. */
    static byte[] assignment(String topic) {
        return bytes(ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
                List.of(new TopicPartition(topic, 0)))));
    }

    /** A consumer's JoinGroup of {@code group} with the range assignor, subscribed to {@code topic}. */
    static JoinGroupRequest join(String group, String memberId, String topic) {
        return join(group, memberId, RANGE, topic, SESSION_TIMEOUT_MS);
    }

    static JoinGroupRequest join(String group, String memberId, String protocol, String topic, int sessionTimeoutMs) {
        return new JoinGroupRequest().setGroupId(group).setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS).setMemberId(memberId).setGroupInstanceId(null)
                .setProtocolType(PROTOCOL_TYPE)
                .setProtocols(List.of(new JoinGroupRequest.JoinGroupRequestProtocol().setName(protocol)
                        .setMetadata(subscription(topic))))
                .setReason(null);
    }

    /** SyncGroup of a member; the leader passes {@code assignment} for itself, a follower null. */
    static SyncGroupRequest sync(String group, int generation, String memberId, byte[] assignment, short version) {
        SyncGroupRequest request = new SyncGroupRequest().setGroupId(group).setGenerationId(generation)
                .setMemberId(memberId).setGroupInstanceId(null)
                .setAssignments(assignment == null ? List.of() : List.of(
                        new SyncGroupRequest.SyncGroupRequestAssignment().setMemberId(memberId).setAssignment(assignment)));
        return version >= 5 ? request.setProtocolType(PROTOCOL_TYPE).setProtocolName(RANGE) : request;
    }

    static HeartbeatRequest heartbeat(String group, int generation, String memberId) {
        return new HeartbeatRequest().setGroupId(group).setGenerationId(generation).setMemberId(memberId)
                .setGroupInstanceId(null);
    }

    /** LeaveGroup of one member: by member id before v3, as a batch of one from v3. */
    static LeaveGroupRequest leave(String group, String memberId, short version) {
        LeaveGroupRequest request = new LeaveGroupRequest().setGroupId(group);
        return version >= 3
                ? request.setMembers(List.of(new LeaveGroupRequest.MemberIdentity().setMemberId(memberId)
                        .setGroupInstanceId(null).setReason(version >= 5 ? "the consumer is being closed" : null)))
                : request.setMemberId(memberId);
    }

    static DescribeGroupsRequest describe(String group) {
        return new DescribeGroupsRequest().setGroups(List.of(group)).setIncludeAuthorizedOperations(false);
    }

    /** ListGroups as kafka-consumer-groups --list sends it, with the filters the version has. */
    static ListGroupsRequest list(List<String> states, List<String> types, short version) {
        ListGroupsRequest request = new ListGroupsRequest();
        if (version >= 4) {
            request.setStatesFilter(states);
        }
        if (version >= 5) {
            request.setTypesFilter(types);
        }
        return request;
    }

    static DeleteGroupsRequest delete(String group) {
        return new DeleteGroupsRequest().setGroupsNames(List.of(group));
    }

    static OffsetDeleteRequest offsetDelete(String group, String topic, int partition) {
        return new OffsetDeleteRequest().setGroupId(group)
                .setTopics(List.of(new OffsetDeleteRequest.OffsetDeleteRequestTopic().setName(topic)
                        .setPartitions(List.of(new OffsetDeleteRequest.OffsetDeleteRequestPartition()
                                .setPartitionIndex(partition)))));
    }

    /** A member's OffsetCommit within its generation. */
    static OffsetCommitRequest memberCommit(String group, int generation, String memberId, String topic, long offset) {
        return new OffsetCommitRequest().setGroupId(group).setGenerationIdOrMemberEpoch(generation)
                .setMemberId(memberId).setGroupInstanceId(null)
                .setTopics(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().setName(topic)
                        .setPartitions(List.of(new OffsetCommitRequest.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(offset).setCommittedLeaderEpoch(-1)
                                .setCommittedMetadata("")))));
    }

    /**
     * A KIP-848 consumer's ConsumerGroupHeartbeat: {@code memberEpoch} 0 joins (from v1 with a member id
     * the client made), -1 leaves, anything else is a member's heartbeat. Topics by name, or a regular
     * expression (v1+) when {@code regex} is not null.
     */
    static ConsumerGroupHeartbeatRequest consumerHeartbeat(String group, String memberId, int memberEpoch,
                                                          List<String> topics, String regex) {
        boolean joining = memberEpoch == 0;
        return new ConsumerGroupHeartbeatRequest().setGroupId(group).setMemberId(memberId).setMemberEpoch(memberEpoch)
                .setInstanceId(null).setRackId(null).setRebalanceTimeoutMs(joining ? REBALANCE_TIMEOUT_MS : -1)
                .setSubscribedTopicNames(joining && regex == null ? topics : null)
                .setSubscribedTopicRegex(joining ? regex : null).setServerAssignor(null)
                .setTopicPartitions(joining ? List.of() : null);
    }

    /**
     * A member's ConsumerGroupHeartbeat (epoch above 0) reporting that it owns {@code partitions} of topic
     * {@code topicId} (none when empty), as the consumer does after each reconciliation.
     */
    static ConsumerGroupHeartbeatRequest consumerHeartbeatOwning(String group, String memberId, int memberEpoch,
                                                                 UUID topicId, List<Integer> partitions) {
        return consumerHeartbeat(group, memberId, memberEpoch, null, null).setTopicPartitions(partitions.isEmpty()
                ? List.of()
                : List.of(new ConsumerGroupHeartbeatRequest.TopicPartitions().setTopicId(topicId)
                        .setPartitions(partitions)));
    }

    static ConsumerGroupDescribeRequest consumerDescribe(String group) {
        return new ConsumerGroupDescribeRequest().setGroupIds(List.of(group)).setIncludeAuthorizedOperations(false);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
