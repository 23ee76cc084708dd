package io.krill.broker.api.handlers;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteGroupsRequest;
import io.krill.wire.message.DeleteGroupsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.LinkedHashSet;

/**
 * DeleteGroups v0-2: empty groups are deleted with their offsets (tombstones in
 * {@code __consumer_offsets}); NON_EMPTY_GROUP for groups with members, GROUP_ID_NOT_FOUND for unknown.
 *
 * <p>Thread-safe: stateless.
 */
public final class DeleteGroupsHandler implements ApiHandler {
    private final GroupCoordinator coordinator;

    public DeleteGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_GROUPS;
    }

    @Override
    public short minVersion() {
        return 0;
    }

    @Override
    public short maxVersion() {
        return 2;
    }

    @Override
    public void handle(Request request) {
        DeleteGroupsRequest body = request.body();
        var groupIds = new LinkedHashSet<>(body.groupsNames());
        coordinator.deleteGroups(body.groupsNames()).whenComplete((results, failure) -> {
            DeleteGroupsResponse response = new DeleteGroupsResponse();
            for (String groupId : groupIds) {
                Errors error = failure != null ? Errors.UNKNOWN_SERVER_ERROR : results.getOrDefault(groupId, Errors.NONE);
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
