package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ShareGroupDescribeRequest;
import io.krill.wire.message.ShareGroupDescribeResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * ShareGroupDescribe v1 (KIP-932): per group its state (Empty, Stable), epochs, assignor ("simple") and
 * members with their subscriptions and assignments. Unknown or not a share group: GROUP_ID_NOT_FOUND.
 * DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED); as Kafka, a group whose members subscribe to or are
 * assigned a topic the principal may not describe is TOPIC_AUTHORIZATION_FAILED; authorized operations when
 * asked for, else {@link Integer#MIN_VALUE}.
 *
 * <p>Thread-safe: stateless.
 */
public final class ShareGroupDescribeHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    /** Whether the cluster's {@code share.version} is at least 1. */
    private final BooleanSupplier shareGroupsEnabled;

    public ShareGroupDescribeHandler(GroupCoordinator coordinator, Authorization authorization,
                                     BooleanSupplier shareGroupsEnabled) {
        super(ApiKeys.SHARE_GROUP_DESCRIBE, 1, 1);
        this.coordinator = coordinator;
        this.authorization = authorization;
        this.shareGroupsEnabled = shareGroupsEnabled;
    }

    @Override
    public void handle(Request request) {
        if (!shareGroupsEnabled.getAsBoolean()) {
            request.respond(errorResponse(request, Errors.UNSUPPORTED_VERSION));
            return;
        }
        ShareGroupDescribeRequest body = request.body();
        ShareGroupDescribeResponse response = new ShareGroupDescribeResponse();
        for (String groupId : body.groupIds()) {
            if (!authorization.group(request, AclOperation.DESCRIBE, groupId)) {
                response.groups().add(failed(groupId, Errors.GROUP_AUTHORIZATION_FAILED));
                continue;
            }
            ShareGroupDescribeResponse.DescribedGroup group = coordinator.shareGroupDescribe(groupId);
            if (group.errorCode() == 0 && authorization.enabled()) {
                Set<String> topics = new TreeSet<>();
                group.members().forEach(m -> {
                    topics.addAll(m.subscribedTopicNames());
                    m.assignment().topicPartitions().forEach(tp -> topics.add(tp.topicName()));
                });
                if (!authorization.deniedTopics(request, AclOperation.DESCRIBE, topics).isEmpty()) {
                    response.groups().add(failed(groupId, Errors.TOPIC_AUTHORIZATION_FAILED)
                            .setErrorMessage("The group has described topic(s) that the client is not authorized to describe."));
                    continue;
                }
            }
            group.setAuthorizedOperations(body.includeAuthorizedOperations() && group.errorCode() == 0
                    ? authorization.authorizedOperations(request, ResourceType.GROUP, groupId)
                    : AuthorizedOperations.OMITTED);
            response.groups().add(group);
        }
        request.respond(response);
    }

    private static ShareGroupDescribeResponse.DescribedGroup failed(String groupId, Errors error) {
        return new ShareGroupDescribeResponse.DescribedGroup().setGroupId(groupId).setErrorCode(error.code())
                .setGroupState("").setAssignorName("").setAuthorizedOperations(AuthorizedOperations.OMITTED);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        ShareGroupDescribeRequest body = request.body();
        ShareGroupDescribeResponse response = new ShareGroupDescribeResponse();
        body.groupIds().forEach(groupId -> response.groups().add(failed(groupId, error)));
        return response;
    }
}
