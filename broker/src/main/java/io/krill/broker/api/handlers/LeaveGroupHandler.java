package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.LeaveGroupResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * LeaveGroup: one member by id (v0-2) or a batch of members, static ones by instance id (v3+,
 * KIP-345). Before v3 the member's error is the response's error.
 *
 * <p>Thread-safe: stateless.
 */
public final class LeaveGroupHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public LeaveGroupHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.LEAVE_GROUP, 0, 5);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        LeaveGroupRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        short version = request.version();
        List<LeaveGroupRequest.MemberIdentity> members = version >= 3 ? body.members()
                : List.of(new LeaveGroupRequest.MemberIdentity().setMemberId(body.memberId()));
        LeaveGroupResponse response = coordinator.leaveGroup(body.groupId(), members);
        if (version < 3) {
            short error = response.errorCode();
            for (LeaveGroupResponse.MemberResponse member : response.members()) {
                if (error == Errors.NONE.code()) {
                    error = member.errorCode();
                }
            }
            response.setErrorCode(error).setMembers(new ArrayList<>());
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new LeaveGroupResponse().setErrorCode(error.code());
    }
}
