package io.krill.broker.group;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ShareGroupDescribeResponse;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * ShareGroupDescribe of share groups, as Kafka describes them: state (Empty, Stable), group and assignment
 * epochs, the assignor ("simple"), members with their subscriptions and assignments (topic ids named from the
 * current image). An unknown group is GROUP_ID_NOT_FOUND "Group g not found.", a group of another type
 * GROUP_ID_NOT_FOUND "Group g is not a share group.", Kafka's messages. Authorized operations are the caller's.
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups through {@link GroupContext}); each group is
 * read under its monitor.
 */
final class ShareGroupDescriber {
    private final GroupContext shared;

    ShareGroupDescriber(GroupContext shared) {
        this.shared = shared;
    }

    ShareGroupDescribeResponse.DescribedGroup describe(String groupId) {
        ShareGroupDescribeResponse.DescribedGroup described = new ShareGroupDescribeResponse.DescribedGroup()
                .setGroupId(groupId).setGroupState("").setAssignorName("");
        GroupShard shard;
        try {
            GroupContext.validateGroupId(groupId);
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            return described.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
        }
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            return notFound(described, "Group " + groupId + " not found.");
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD) || group.isBlank()) {
                return notFound(described, "Group " + groupId + " not found.");
            }
            ShareGroup sg = group.share;
            if (sg == null) {
                return notFound(described, "Group " + groupId + " is not a share group.");
            }
            MetadataImage image = shared.image();
            described.setGroupState(sg.state())
                    .setGroupEpoch(sg.groupEpoch)
                    .setAssignmentEpoch(sg.assignmentEpoch)
                    .setAssignorName(SimpleShareAssignor.NAME);
            for (ShareGroup.Member m : sg.members.values()) {
                described.members().add(new ShareGroupDescribeResponse.Member()
                        .setMemberId(m.memberId)
                        .setRackId(m.rackId)
                        .setMemberEpoch(m.memberEpoch)
                        .setClientId(m.clientId)
                        .setClientHost(m.clientHost)
                        .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopics))
                        .setAssignment(assignment(image, m.assigned)));
            }
        }
        return described;
    }

    private static ShareGroupDescribeResponse.DescribedGroup notFound(ShareGroupDescribeResponse.DescribedGroup described,
                                                                     String message) {
        return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage(message);
    }

    private static ShareGroupDescribeResponse.Assignment assignment(MetadataImage image,
                                                                    Map<UUID, Set<Integer>> partitions) {
        Map<String, ShareGroupDescribeResponse.TopicPartitions> byName = new TreeMap<>();
        partitions.forEach((topicId, ps) -> {
            TopicImage t = image == null ? null : image.topic(topicId);
            if (t != null && !ps.isEmpty()) {
                byName.put(t.name(), new ShareGroupDescribeResponse.TopicPartitions()
                        .setTopicId(t.id()).setTopicName(t.name()).setPartitions(new ArrayList<>(ps)));
            }
        });
        ShareGroupDescribeResponse.Assignment a = new ShareGroupDescribeResponse.Assignment();
        a.topicPartitions().addAll(byName.values());
        return a;
    }
}
