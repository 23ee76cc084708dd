package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * JoinGroup (classic protocol): handed to the {@link GroupCoordinator}, which answers when the
 * rebalance completes (or at once). v0 has no rebalance timeout: the session timeout stands in, as in
 * Kafka. v4+ members join without an id first and get MEMBER_ID_REQUIRED (KIP-394).
 *
 * <p>Thread-safe: stateless.
 */
public final class JoinGroupHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public JoinGroupHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.JOIN_GROUP, 0, 9);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        JoinGroupRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        short version = request.version();
        if (version == 0) {
            body.setRebalanceTimeoutMs(body.sessionTimeoutMs());
        }
        coordinator.joinGroup(GroupRequests.context(request), body, response -> request.respond(forVersion(response, version)));
    }

    static JoinGroupResponse forVersion(JoinGroupResponse response, short version) {
        if (version < 7 && response.protocolName() == null) {
            response.setProtocolName("");
        }
        if (version < 9) {
            response.setSkipAssignment(false);
        }
        return response;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        JoinGroupRequest body = request.body();
        return forVersion(new JoinGroupResponse().setErrorCode(error.code()).setGenerationId(-1).setProtocolName(null)
                .setLeader("").setMemberId(body.memberId() == null ? "" : body.memberId()), request.version());
    }
}
