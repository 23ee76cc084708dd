package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteGroupsRequest;
import io.krill.wire.message.DeleteGroupsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * DeleteGroups v0-2: empty groups are deleted with their offsets (tombstones in
 * {@code __consumer_offsets}); NON_EMPTY_GROUP for groups with members, GROUP_ID_NOT_FOUND for unknown.
 *
 * <p>Thread-safe: stateless.
 */
public final class DeleteGroupsHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public DeleteGroupsHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.DELETE_GROUPS, 0, 2);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        DeleteGroupsRequest body = request.body();
        var groupIds = new LinkedHashSet<>(body.groupsNames());
        Set<String> denied = authorization.denied(request, AclOperation.DELETE, ResourceType.GROUP, groupIds);
        List<String> allowed = denied.isEmpty() ? body.groupsNames()
                : body.groupsNames().stream().filter(id -> !denied.contains(id)).toList();
        coordinator.deleteGroups(allowed).whenComplete((results, failure) -> {
            DeleteGroupsResponse response = new DeleteGroupsResponse();
            for (String groupId : groupIds) {
                Errors error = denied.contains(groupId) ? Errors.GROUP_AUTHORIZATION_FAILED
                        : failure != null ? Errors.UNKNOWN_SERVER_ERROR : results.getOrDefault(groupId, Errors.NONE);
                response.results().add(new DeleteGroupsResponse.DeletableGroupResult()
                        .setGroupId(groupId).setErrorCode(error.code()));
            }
            request.respond(response);
        });
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DeleteGroupsRequest body = request.body();
        DeleteGroupsResponse response = new DeleteGroupsResponse();
        for (String groupId : new LinkedHashSet<>(body.groupsNames())) {
            response.results().add(new DeleteGroupsResponse.DeletableGroupResult().setGroupId(groupId)
                    .setErrorCode(error.code()));
        }
        return response;
    }
}
