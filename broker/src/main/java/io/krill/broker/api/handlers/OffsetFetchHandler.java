package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * OffsetFetch v1-9: a group's committed offsets (-1 where none), of the partitions asked for or, with
 * null topics (v2+), of all. v8+ asks for several groups at once, each answered with its own error.
 * Before v2 a group error is reported on every partition, from v2 in the top-level error code.
 * With {@code requireStable} (v7+), partitions with offsets of a transaction not ended yet answer
 * UNSTABLE_OFFSET_COMMIT, which the client retries.
 *
 * <p>Thread-safe: stateless.
 */
public final class OffsetFetchHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public OffsetFetchHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.OFFSET_FETCH, 1, 9);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        OffsetFetchRequest body = request.body();
        short version = request.version();
        OffsetFetchResponse response = new OffsetFetchResponse();
        boolean requireStable = version >= 7 && body.requireStable();
        if (version >= 8) {
            for (OffsetFetchRequest.OffsetFetchRequestGroup group : body.groups()) {
                response.groups().add(fetch(request, group.groupId(), group.topics(), requireStable));
            }
            request.respond(response);
            return;
        }
        List<OffsetFetchRequest.OffsetFetchRequestTopics> topics = null;
        if (body.topics() != null) {
            topics = new ArrayList<>();
            for (OffsetFetchRequest.OffsetFetchRequestTopic topic : body.topics()) {
                topics.add(new OffsetFetchRequest.OffsetFetchRequestTopics()
                        .setName(topic.name()).setPartitionIndexes(topic.partitionIndexes()));
            }
        }
        OffsetFetchResponse.OffsetFetchResponseGroup result = fetch(request, body.groupId(), topics, requireStable);
        if (result.errorCode() != Errors.NONE.code()) {
            request.respond(errorResponse(request, Errors.forCode(result.errorCode())));
            return;
        }
        for (OffsetFetchResponse.OffsetFetchResponseTopics topic : result.topics()) {
            OffsetFetchResponse.OffsetFetchResponseTopic t = new OffsetFetchResponse.OffsetFetchResponseTopic()
                    .setName(topic.name());
            for (OffsetFetchResponse.OffsetFetchResponsePartitions p : topic.partitions()) {
                t.partitions().add(new OffsetFetchResponse.OffsetFetchResponsePartition()
                        .setPartitionIndex(p.partitionIndex())
                        .setCommittedOffset(p.committedOffset())
                        .setCommittedLeaderEpoch(p.committedLeaderEpoch())
                        .setMetadata(p.metadata())
                        .setErrorCode(p.errorCode()));
            }
            response.topics().add(t);
        }
        request.respond(response);
    }

    /**
     * One group's offsets as Kafka authorizes them: DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED for
     * the group otherwise); topics the principal may not DESCRIBE are TOPIC_AUTHORIZATION_FAILED when
     * asked for by name and left out of an all-topics answer.
     */
    private OffsetFetchResponse.OffsetFetchResponseGroup fetch(Request request, String groupId,
                                                              List<OffsetFetchRequest.OffsetFetchRequestTopics> topics,
                                                              boolean requireStable) {
        if (!authorization.group(request, AclOperation.DESCRIBE, groupId)) {
            return new OffsetFetchResponse.OffsetFetchResponseGroup().setGroupId(groupId)
                    .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code());
        }
        OffsetFetchResponse.OffsetFetchResponseGroup result = coordinator.fetchOffsets(groupId, topics, requireStable);
        Set<String> denied = authorization.deniedTopics(request, AclOperation.DESCRIBE, result.topics(),
                OffsetFetchResponse.OffsetFetchResponseTopics::name);
        if (denied.isEmpty()) {
            return result;
        }
        if (topics == null) {
            result.topics().removeIf(topic -> denied.contains(topic.name()));
            return result;
        }
        for (OffsetFetchResponse.OffsetFetchResponseTopics topic : result.topics()) {
            if (denied.contains(topic.name())) {
                for (OffsetFetchResponse.OffsetFetchResponsePartitions p : topic.partitions()) {
                    p.setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("")
                            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                }
            }
        }
        return result;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        OffsetFetchRequest body = request.body();
        OffsetFetchResponse response = new OffsetFetchResponse();
        short version = request.version();
        if (version >= 8) {
            for (OffsetFetchRequest.OffsetFetchRequestGroup group : body.groups()) {
                response.groups().add(new OffsetFetchResponse.OffsetFetchResponseGroup()
                        .setGroupId(group.groupId()).setErrorCode(error.code()));
            }
            return response;
        }
        if (version >= 2) {
            return response.setErrorCode(error.code());
        }
        if (body.topics() != null) {
            for (OffsetFetchRequest.OffsetFetchRequestTopic topic : body.topics()) {
                OffsetFetchResponse.OffsetFetchResponseTopic t = new OffsetFetchResponse.OffsetFetchResponseTopic()
                        .setName(topic.name());
                for (int p : topic.partitionIndexes()) {
                    t.partitions().add(new OffsetFetchResponse.OffsetFetchResponsePartition()
                            .setPartitionIndex(p).setCommittedOffset(-1).setMetadata("").setErrorCode(error.code()));
                }
                response.topics().add(t);
            }
        }
        return response;
    }
}
