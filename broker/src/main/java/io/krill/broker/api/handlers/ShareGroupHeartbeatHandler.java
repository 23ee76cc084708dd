package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ShareGroupHeartbeatRequest;
import io.krill.wire.message.ShareGroupHeartbeatResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * ShareGroupHeartbeat v1 (KIP-932): join (epoch 0, under the member id the client chose), heartbeat, leave
 * (epoch -1) of a share group, whose assignment the coordinator computes. READ on the group
 * (GROUP_AUTHORIZATION_FAILED), DESCRIBE on the subscribed topics (TOPIC_AUTHORIZATION_FAILED), as Kafka.
 * Answered once the group's record is committed.
 *
 * <p>Thread-safe: stateless.
 */
public final class ShareGroupHeartbeatHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    /** Whether the cluster's {@code share.version} is at least 1: with 0, Kafka serves share groups to no one. */
    private final BooleanSupplier shareGroupsEnabled;

    public ShareGroupHeartbeatHandler(GroupCoordinator coordinator, Authorization authorization,
                                      BooleanSupplier shareGroupsEnabled) {
        super(ApiKeys.SHARE_GROUP_HEARTBEAT, 1, 1);
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
        ShareGroupHeartbeatRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        if (body.subscribedTopicNames() != null) {
            Set<String> denied = authorization.deniedTopics(request, AclOperation.DESCRIBE, body.subscribedTopicNames());
            if (!denied.isEmpty()) {
                request.respond(new ShareGroupHeartbeatResponse().setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("The following topics are unauthorized: " + new TreeSet<>(denied)));
                return;
            }
        }
        coordinator.shareGroupHeartbeat(GroupRequests.context(request, authorization), body, request::respond);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ShareGroupHeartbeatResponse().setErrorCode(error.code());
    }
}
