package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * OffsetCommit v2-9 (by topic name): checked against the group's generation and member and written
 * to {@code __consumer_offsets} by the {@link GroupCoordinator}; answered once committed. v10 (topic
 * ids) is not served yet.
 *
 * <p>Thread-safe: stateless.
 */
public final class OffsetCommitHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    private final MetadataStore metadata;

    public OffsetCommitHandler(GroupCoordinator coordinator, Authorization authorization, MetadataStore metadata) {
        super(ApiKeys.OFFSET_COMMIT, 2, 9);
        this.coordinator = coordinator;
        this.authorization = authorization;
        this.metadata = metadata;
    }

    /**
     * As Kafka: a topic the principal may not read is answered TOPIC_AUTHORIZATION_FAILED and a topic that
     * does not exist UNKNOWN_TOPIC_OR_PARTITION, partition by partition, and neither reaches the group;
     * the rest is committed.
     */
    @Override
    public void handle(Request request) {
        OffsetCommitRequest body = request.body();
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        Set<String> denied = authorization.deniedTopics(request, AclOperation.READ, body.topics(),
                OffsetCommitRequest.OffsetCommitRequestTopic::name);
        MetadataImage image = metadata.image();
        List<OffsetCommitResponse.OffsetCommitResponseTopic> refused = new ArrayList<>();
        List<OffsetCommitRequest.OffsetCommitRequestTopic> allowed = new ArrayList<>();
        for (OffsetCommitRequest.OffsetCommitRequestTopic topic : body.topics()) {
            if (denied.contains(topic.name())) {
                refused.add(refusedTopic(topic, Errors.TOPIC_AUTHORIZATION_FAILED));
            } else if (image.topic(topic.name()) == null) {
                refused.add(refusedTopic(topic, Errors.UNKNOWN_TOPIC_OR_PARTITION));
            } else {
                allowed.add(topic);
            }
        }
        if (refused.isEmpty()) {
            coordinator.commitOffsets(GroupRequests.context(request), body, request::respond);
            return;
        }
        if (allowed.isEmpty()) {
            request.respond(new OffsetCommitResponse().setTopics(refused));
            return;
        }
        body.setTopics(allowed);
        coordinator.commitOffsets(GroupRequests.context(request), body, response -> {
            response.topics().addAll(refused);
            request.respond(response);
        });
    }

    private static OffsetCommitResponse.OffsetCommitResponseTopic refusedTopic(
            OffsetCommitRequest.OffsetCommitRequestTopic topic, Errors error) {
        OffsetCommitResponse.OffsetCommitResponseTopic t = new OffsetCommitResponse.OffsetCommitResponseTopic()
                .setName(topic.name());
        for (OffsetCommitRequest.OffsetCommitRequestPartition p : topic.partitions()) {
            t.partitions().add(new OffsetCommitResponse.OffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
        }
        return t;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        OffsetCommitRequest body = request.body();
        OffsetCommitResponse response = new OffsetCommitResponse();
        for (OffsetCommitRequest.OffsetCommitRequestTopic topic : body.topics()) {
            OffsetCommitResponse.OffsetCommitResponseTopic t = new OffsetCommitResponse.OffsetCommitResponseTopic()
                    .setName(topic.name());
            for (OffsetCommitRequest.OffsetCommitRequestPartition p : topic.partitions()) {
                t.partitions().add(new OffsetCommitResponse.OffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
            }
            response.topics().add(t);
        }
        return response;
    }
}
