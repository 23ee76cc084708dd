package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteShareGroupOffsetsRequest;
import io.krill.wire.message.DeleteShareGroupOffsetsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * DeleteShareGroupOffsets v0 (KIP-932): an empty share group (NON_EMPTY_GROUP otherwise) forgets the named
 * topics' share state in the share coordinator. DELETE on the group (GROUP_AUTHORIZATION_FAILED for the
 * request), READ on each topic (TOPIC_AUTHORIZATION_FAILED for that topic). Gated by {@code share.version}.
 *
 * <p>Thread-safe: stateless.
 */
public final class DeleteShareGroupOffsetsHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    private final BooleanSupplier shareGroupsEnabled;

    public DeleteShareGroupOffsetsHandler(GroupCoordinator coordinator, Authorization authorization,
                                          BooleanSupplier shareGroupsEnabled) {
        super(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, 0, 0);
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
        DeleteShareGroupOffsetsRequest body = request.body();
        authorization.requireGroup(request, AclOperation.DELETE, body.groupId());
        Set<String> denied = authorization.deniedTopics(request, AclOperation.READ,
                body.topics().stream().map(t -> t.topicName()).toList());
        DeleteShareGroupOffsetsRequest allowed = new DeleteShareGroupOffsetsRequest().setGroupId(body.groupId());
        body.topics().forEach(t -> {
            if (!denied.contains(t.topicName())) {
                allowed.topics().add(t);
            }
        });
        coordinator.deleteShareGroupOffsets(allowed).whenComplete((response, failure) -> {
            DeleteShareGroupOffsetsResponse answer = failure != null
                    ? (DeleteShareGroupOffsetsResponse) errorResponse(request, Errors.forException(failure.getCause()))
                    : response;
            body.topics().forEach(t -> {
                if (denied.contains(t.topicName())) {
                    answer.responses().add(new DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic()
                            .setTopicName(t.topicName()).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                            .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()));
                }
            });
            request.respond(answer);
        });
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new DeleteShareGroupOffsetsResponse().setErrorCode(error.code()).setErrorMessage(error.message());
    }
}
