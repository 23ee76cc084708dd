package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * ConsumerGroupHeartbeat (KIP-848 consumer protocol): join, leave, session and incremental assignment
 * in one request; the assignment is computed by the coordinator. Topics named in the subscription must
 * be describable (else TOPIC_AUTHORIZATION_FAILED); a regex subscription is given only the matching
 * topics the member's principal may describe, as Kafka filters them. Answered once the group's record
 * is committed.
 *
 * <p>Thread-safe: stateless.
 */
public final class ConsumerGroupHeartbeatHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    /** Whether the cluster's {@code group.version} is at least 1: with 0, Kafka serves the API to no one. */
    private final BooleanSupplier protocolEnabled;

    public ConsumerGroupHeartbeatHandler(GroupCoordinator coordinator, Authorization authorization, BooleanSupplier protocolEnabled) {
        super(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, 1);
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
        ConsumerGroupHeartbeatRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        if (body.subscribedTopicNames() != null) {
            Set<String> denied = authorization.deniedTopics(request, AclOperation.DESCRIBE, body.subscribedTopicNames());
            if (!denied.isEmpty()) {
                request.respond(new ConsumerGroupHeartbeatResponse().setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("The following topics are unauthorized: " + new TreeSet<>(denied)));
                return;
            }
        }
        coordinator.consumerGroupHeartbeat(GroupRequests.context(request, authorization), body, request::respond);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ConsumerGroupHeartbeatResponse().setErrorCode(error.code());
    }
}
