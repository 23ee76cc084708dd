package io.krill.broker.group;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * ConsumerGroupDescribe of KIP-848 groups: what {@link ConsumerGroupProtocol} keeps, as Kafka describes
 * it, assignments by topic id named from the current image.
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups through {@link GroupContext}); each group is
 * read under its monitor.
 */
final class ConsumerGroupDescriber {
    private final GroupContext shared;

    ConsumerGroupDescriber(GroupContext shared) {
        this.shared = shared;
    }

    /**
     * ConsumerGroupDescribe for one group: a consumer-protocol group with its epochs, assignor and members
     * (current and target assignments); an unknown group, or a classic one, is GROUP_ID_NOT_FOUND as in
     * Kafka. As Kafka's, the state is named as in ListGroups ("Stable"; lower case is only how its state
     * filter matches) and a member without a regular expression has an empty one, its default. Authorized
     * operations are left to the caller.
     */
    ConsumerGroupDescribeResponse.DescribedGroup consumerGroupDescribe(String groupId) {
        ConsumerGroupDescribeResponse.DescribedGroup described = new ConsumerGroupDescribeResponse.DescribedGroup()
                .setGroupId(groupId)
                .setGroupState("")
                .setAssignorName("");
        GroupShard shard;
        try {
            GroupContext.validateGroupId(groupId);
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            return described.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
        }
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " not found.");
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " not found.");
            }
            ConsumerGroup cg = group.consumer;
            if (cg == null) {
                return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " is not a consumer group.");
            }
            MetadataImage current = shared.image();
            described.setGroupState(cg.state())
                    .setGroupEpoch(cg.groupEpoch)
                    .setAssignmentEpoch(cg.assignmentEpoch)
                    .setAssignorName(cg.assignorName());
            for (ConsumerGroup.Member m : cg.members.values()) {
                described.members().add(new ConsumerGroupDescribeResponse.Member()
                        .setMemberId(m.memberId)
                        .setInstanceId(m.instanceId)
                        .setRackId(m.rackId)
                        .setMemberEpoch(m.memberEpoch)
                        .setClientId(m.clientId)
                        .setClientHost(m.clientHost)
                        .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopics))
                        .setSubscribedTopicRegex(m.subscribedTopicRegex == null ? "" : m.subscribedTopicRegex)
                        .setAssignment(describedAssignment(current, m.assigned))
                        .setTargetAssignment(describedAssignment(current,
                                cg.target.getOrDefault(m.memberId, Map.of())))
                        .setMemberType((byte) 1));
            }
        }
        return described;
    }

    private static ConsumerGroupDescribeResponse.Assignment describedAssignment(MetadataImage current,
                                                                                Map<UUID, Set<Integer>> partitions) {
        Map<String, ConsumerGroupDescribeResponse.TopicPartitions> byName = new TreeMap<>();
        for (Map.Entry<UUID, Set<Integer>> e : partitions.entrySet()) {
            TopicImage t = current == null ? null : current.topic(e.getKey());
            if (t != null && !e.getValue().isEmpty()) {
                byName.put(t.name(), new ConsumerGroupDescribeResponse.TopicPartitions()
                        .setTopicId(t.id()).setTopicName(t.name()).setPartitions(new ArrayList<>(e.getValue())));
            }
        }
        ConsumerGroupDescribeResponse.Assignment a = new ConsumerGroupDescribeResponse.Assignment();
        a.topicPartitions().addAll(byName.values());
        return a;
    }
}
