package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeShareGroupOffsetsRequest;
import io.krill.wire.message.DescribeShareGroupOffsetsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * DescribeShareGroupOffsets v0-1 (KIP-932; v1 adds the lag, KIP-1226): per group, each share-partition's
 * start offset and leader epoch from the share coordinator (all the group's initialized partitions when no
 * topics are named). DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED for the group) and on each topic
 * (TOPIC_AUTHORIZATION_FAILED for its partitions; the group's own topics are filtered instead when it asks
 * for all). Gated by {@code share.version} as the other share group APIs.
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeShareGroupOffsetsHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    private final BooleanSupplier shareGroupsEnabled;

    public DescribeShareGroupOffsetsHandler(GroupCoordinator coordinator, Authorization authorization,
                                            BooleanSupplier shareGroupsEnabled) {
        super(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, 0, 1);
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
        DescribeShareGroupOffsetsRequest body = request.body();
        List<CompletableFuture<DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup>> groups =
                new ArrayList<>();
        for (DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup group : body.groups()) {
            if (!authorization.group(request, AclOperation.DESCRIBE, group.groupId())) {
                groups.add(CompletableFuture.completedFuture(groupError(group.groupId(), Errors.GROUP_AUTHORIZATION_FAILED)));
                continue;
            }
            if (group.topics() == null) {
                groups.add(coordinator.describeShareGroupOffsets(group.groupId(), null).thenApply(answer -> {
                    answer.topics().removeIf(t -> !authorization.topic(request, AclOperation.DESCRIBE, t.topicName()));
                    return answer;
                }));
                continue;
            }
            Set<String> denied = authorization.deniedTopics(request, AclOperation.DESCRIBE,
                    group.topics().stream().map(t -> t.topicName()).toList());
            List<DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic> allowed =
                    group.topics().stream().filter(t -> !denied.contains(t.topicName())).toList();
            groups.add(coordinator.describeShareGroupOffsets(group.groupId(), allowed).thenApply(answer -> {
                for (DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic t : group.topics()) {
                    if (denied.contains(t.topicName())) {
                        DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic topic =
                                new DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic()
                                        .setTopicName(t.topicName());
                        t.partitions().forEach(p -> topic.partitions().add(
                                new DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition()
                                        .setPartitionIndex(p).setStartOffset(-1).setLeaderEpoch(-1)
                                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                        .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message())));
                        answer.topics().add(topic);
                    }
                }
                return answer;
            }));
        }
        CompletableFuture.allOf(groups.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            DescribeShareGroupOffsetsResponse response = new DescribeShareGroupOffsetsResponse();
            for (int i = 0; i < groups.size(); i++) {
                String groupId = body.groups().get(i).groupId();
                response.groups().add(groups.get(i).isCompletedExceptionally()
                        ? groupError(groupId, Errors.forException(groups.get(i).handle((v, e) -> e).join().getCause()))
                        : groups.get(i).join());
            }
            request.respond(response);
        });
    }

    private static DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup groupError(String groupId,
                                                                                                         Errors error) {
        return new DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup().setGroupId(groupId)
                .setErrorCode(error.code()).setErrorMessage(error.message());
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DescribeShareGroupOffsetsRequest body = request.body();
        DescribeShareGroupOffsetsResponse response = new DescribeShareGroupOffsetsResponse();
        body.groups().forEach(g -> response.groups().add(groupError(g.groupId(), error)));
        return response;
    }
}
