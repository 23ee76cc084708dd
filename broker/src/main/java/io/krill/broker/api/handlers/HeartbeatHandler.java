package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.HeartbeatResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * Heartbeat (classic protocol): keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin.
 *
 * <p>Thread-safe: stateless.
 */
public final class HeartbeatHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public HeartbeatHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.HEARTBEAT, 0, 4);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        HeartbeatRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        request.respond(new HeartbeatResponse().setErrorCode(coordinator.heartbeat(body).code()));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new HeartbeatResponse().setErrorCode(error.code());
    }
}
