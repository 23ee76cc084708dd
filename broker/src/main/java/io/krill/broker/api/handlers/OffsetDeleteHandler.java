package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * OffsetDelete (KIP-496): removes a group's committed offsets of topics its members do not subscribe
 * to (GROUP_SUBSCRIBED_TO_TOPIC for those they do).
 *
 * <p>Thread-safe: stateless.
 */
public final class OffsetDeleteHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public OffsetDeleteHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.OFFSET_DELETE, 0, 0);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        OffsetDeleteRequest body = request.body();
        authorization.requireGroup(request, AclOperation.DELETE, body.groupId());
        Set<String> denied = authorization.deniedTopics(request, AclOperation.READ, body.topics(),
                OffsetDeleteRequest.OffsetDeleteRequestTopic::name);
        if (denied.isEmpty()) {
            coordinator.deleteOffsets(body, request::respond);
            return;
        }
        List<OffsetDeleteRequest.OffsetDeleteRequestTopic> refused = new ArrayList<>();
        List<OffsetDeleteRequest.OffsetDeleteRequestTopic> allowed = new ArrayList<>();
        for (OffsetDeleteRequest.OffsetDeleteRequestTopic topic : body.topics()) {
            (denied.contains(topic.name()) ? refused : allowed).add(topic);
        }
        body.setTopics(allowed);
        coordinator.deleteOffsets(body, response -> {
            if (response.errorCode() == Errors.NONE.code()) {
                for (OffsetDeleteRequest.OffsetDeleteRequestTopic topic : refused) {
                    OffsetDeleteResponse.OffsetDeleteResponseTopic t = new OffsetDeleteResponse.OffsetDeleteResponseTopic()
                            .setName(topic.name());
                    for (OffsetDeleteRequest.OffsetDeleteRequestPartition p : topic.partitions()) {
                        t.partitions().add(new OffsetDeleteResponse.OffsetDeleteResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                    }
                    response.topics().add(t);
                }
            }
            request.respond(response);
        });
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new OffsetDeleteResponse().setErrorCode(error.code());
    }
}
