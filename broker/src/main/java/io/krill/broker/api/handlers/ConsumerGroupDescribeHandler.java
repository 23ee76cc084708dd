package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ConsumerGroupDescribeRequest;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.function.BooleanSupplier;

/**
 * ConsumerGroupDescribe v0-1 (KIP-848): per group its state (lower case, as Kafka: empty, assigning,
 * reconciling, stable), group and assignment epochs, assignor, and members with their current and
 * target assignments (topic ids and names). An unknown group, or a classic one, is GROUP_ID_NOT_FOUND.
 * Authorization: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED for that group otherwise);
 * authorized operations, when asked for, are the group operations the principal may perform, else
 * {@link Integer#MIN_VALUE}.
 *
 * <p>Thread-safe: stateless.
 */
public final class ConsumerGroupDescribeHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    /** Whether the cluster's {@code group.version} is at least 1: with 0, Kafka serves the API to no one. */
    private final BooleanSupplier protocolEnabled;

    public ConsumerGroupDescribeHandler(GroupCoordinator coordinator, Authorization authorization, BooleanSupplier protocolEnabled) {
        super(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 1);
        this.coordinator = coordinator;
        this.authorization = authorization;
        this.protocolEnabled = protocolEnabled;
    }

    @Override
    public void handle(Request request) {
        if (!protocolEnabled.getAsBoolean()) {
            request.respond(errorResponse(request, Errors.UNSUPPORTED_VERSION));
            return;
        }
        ConsumerGroupDescribeRequest body = request.body();
        ConsumerGroupDescribeResponse response = new ConsumerGroupDescribeResponse();
        for (String groupId : body.groupIds()) {
            if (!authorization.group(request, AclOperation.DESCRIBE, groupId)) {
                response.groups().add(new ConsumerGroupDescribeResponse.DescribedGroup().setGroupId(groupId)
                        .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).setGroupState("").setAssignorName("")
                        .setAuthorizedOperations(AuthorizedOperations.OMITTED));
                continue;
            }
            ConsumerGroupDescribeResponse.DescribedGroup group = coordinator.consumerGroupDescribe(groupId);
            group.setAuthorizedOperations(body.includeAuthorizedOperations() && group.errorCode() == 0
                    ? authorization.authorizedOperations(request, ResourceType.GROUP, groupId)
                    : AuthorizedOperations.OMITTED);
            response.groups().add(group);
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        ConsumerGroupDescribeRequest body = request.body();
        ConsumerGroupDescribeResponse response = new ConsumerGroupDescribeResponse();
        for (String groupId : body.groupIds()) {
            response.groups().add(new ConsumerGroupDescribeResponse.DescribedGroup().setGroupId(groupId)
                    .setErrorCode(error.code()).setGroupState("").setAssignorName("")
                    .setAuthorizedOperations(AuthorizedOperations.OMITTED));
        }
        return response;
    }
}
