package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterShareGroupOffsetsRequest;
import io.krill.wire.message.AlterShareGroupOffsetsResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * AlterShareGroupOffsets v0 (KIP-932): new start offsets for an empty share group's partitions (NON_EMPTY_GROUP
 * while it has members), set in the share coordinator with a bumped state epoch. READ on the group
 * (GROUP_AUTHORIZATION_FAILED for the request) and on each topic (TOPIC_AUTHORIZATION_FAILED for its
 * partitions). Gated by {@code share.version}.
 *
 * <p>Thread-safe: stateless.
 */
public final class AlterShareGroupOffsetsHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    private final BooleanSupplier shareGroupsEnabled;

    public AlterShareGroupOffsetsHandler(GroupCoordinator coordinator, Authorization authorization,
                                         BooleanSupplier shareGroupsEnabled) {
        super(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, 0, 0);
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
        AlterShareGroupOffsetsRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        Set<String> denied = authorization.deniedTopics(request, AclOperation.READ,
                body.topics().stream().map(t -> t.topicName()).toList());
        AlterShareGroupOffsetsRequest allowed = new AlterShareGroupOffsetsRequest().setGroupId(body.groupId());
        body.topics().forEach(t -> {
            if (!denied.contains(t.topicName())) {
                allowed.topics().add(t);
            }
        });
        coordinator.alterShareGroupOffsets(allowed).whenComplete((response, failure) -> {
            AlterShareGroupOffsetsResponse answer = failure != null
                    ? (AlterShareGroupOffsetsResponse) errorResponse(request, Errors.forException(failure.getCause()))
                    : response;
            body.topics().forEach(t -> {
                if (denied.contains(t.topicName())) {
                    answer.responses().add(topicError(t, Errors.TOPIC_AUTHORIZATION_FAILED));
                }
            });
            request.respond(answer);
        });
    }

    private static AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic topicError(
            AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic topic, Errors error) {
        AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic t =
                new AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic().setTopicName(topic.topicName());
        topic.partitions().forEach(p -> t.partitions().add(new AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition()
                .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()).setErrorMessage(error.message())));
        return t;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        AlterShareGroupOffsetsRequest body = request.body();
        AlterShareGroupOffsetsResponse response = new AlterShareGroupOffsetsResponse().setErrorCode(error.code())
                .setErrorMessage(error.message());
        body.topics().forEach(t -> response.responses().add(topicError(t, error)));
        return response;
    }
}
