package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeGroupsRequest;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * DescribeGroups v0-6: state, protocol type and (when stable) protocol, and the members with client
 * id, host, and (when stable) metadata and assignment. An unknown group, or a consumer-protocol or share
 * group, is described as Dead; v6 adds GROUP_ID_NOT_FOUND and Kafka's message (KIP-1043). Authorized
 * operations when asked.
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeGroupsHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public DescribeGroupsHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.DESCRIBE_GROUPS, 0, 6);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        DescribeGroupsRequest body = request.body();
        DescribeGroupsResponse response = new DescribeGroupsResponse();
        for (String groupId : body.groups()) {
            if (!authorization.group(request, AclOperation.DESCRIBE, groupId)) {
                response.groups().add(new DescribeGroupsResponse.DescribedGroup().setGroupId(groupId)
                        .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).setGroupState("").setProtocolType("")
                        .setProtocolData(""));
                continue;
            }
            DescribeGroupsResponse.DescribedGroup group = coordinator.describeGroup(groupId, request.version());
            if (body.includeAuthorizedOperations()) {
                group.setAuthorizedOperations(authorization.authorizedOperations(request, ResourceType.GROUP, groupId));
            }
            response.groups().add(group);
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DescribeGroupsRequest body = request.body();
        DescribeGroupsResponse response = new DescribeGroupsResponse();
        for (String groupId : body.groups()) {
            response.groups().add(new DescribeGroupsResponse.DescribedGroup().setGroupId(groupId)
                    .setErrorCode(error.code()).setGroupState("").setProtocolType("").setProtocolData(""));
        }
        return response;
    }
}
