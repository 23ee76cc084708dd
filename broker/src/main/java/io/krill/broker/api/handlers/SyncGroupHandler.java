package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * SyncGroup (classic protocol): the leader hands in the assignment, every member gets its part once
 * it is written. Answered by the {@link GroupCoordinator}, possibly later.
 *
 * <p>Thread-safe: stateless.
 */
public final class SyncGroupHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public SyncGroupHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.SYNC_GROUP, 0, 5);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        SyncGroupRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        coordinator.syncGroup(GroupRequests.context(request), body, request::respond);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new SyncGroupResponse().setErrorCode(error.code()).setAssignment(new byte[0]);
    }
}
