package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.InitializeShareGroupStateRequest;
import io.krill.wire.message.InitializeShareGroupStateResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * InitializeShareGroupState v0: the group coordinator sets share-partitions' start offsets at a new state
 * epoch (a share group's first use of a partition, an offsets reset), through this broker's
 * {@link ShareCoordinator}; see {@link ShareStateRequests} for what the five state RPCs share.
 *
 * <p>Thread-safe: stateless.
 */
public final class InitializeShareGroupStateHandler extends AbstractApiHandler {
    private final ShareCoordinator coordinator;
    private final Authorization authorization;

    public InitializeShareGroupStateHandler(ShareCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, 0, 0);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        ShareStateRequests.authorize(authorization, request);
        InitializeShareGroupStateRequest body = request.body();
        InitializeShareGroupStateResponse response = new InitializeShareGroupStateResponse();
        if (ShareStateRequests.answeredEmpty(body.groupId(),
                body.topics().stream().map(InitializeShareGroupStateRequest.InitializeStateData::partitions).toList())) {
            request.respond(response);
            return;
        }
        List<CompletableFuture<Void>> outcomes = new ArrayList<>();
        for (InitializeShareGroupStateRequest.InitializeStateData topic : body.topics()) {
            InitializeShareGroupStateResponse.InitializeStateResult result =
                    new InitializeShareGroupStateResponse.InitializeStateResult().setTopicId(topic.topicId());
            response.results().add(result);
            for (InitializeShareGroupStateRequest.PartitionData p : topic.partitions()) {
                InitializeShareGroupStateResponse.PartitionResult partition =
                        new InitializeShareGroupStateResponse.PartitionResult().setPartition(p.partition());
                result.partitions().add(partition);
                SharePartitionKey key = new SharePartitionKey(body.groupId(), topic.topicId(), p.partition());
                outcomes.add(ShareStateRequests.outcome(coordinator.initialize(key, p.stateEpoch(), p.startOffset()),
                        ok -> { }, (error, message) -> partition.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        ShareStateRequests.respondWhenDone(request, this, outcomes, () -> response);
    }

    @Override
    public InitializeShareGroupStateResponse errorResponse(Request request, Errors error) {
        InitializeShareGroupStateRequest body = request.body();
        InitializeShareGroupStateResponse response = new InitializeShareGroupStateResponse();
        for (InitializeShareGroupStateRequest.InitializeStateData topic : body.topics()) {
            InitializeShareGroupStateResponse.InitializeStateResult result =
                    new InitializeShareGroupStateResponse.InitializeStateResult().setTopicId(topic.topicId());
            for (InitializeShareGroupStateRequest.PartitionData p : topic.partitions()) {
                result.partitions().add(new InitializeShareGroupStateResponse.PartitionResult()
                        .setPartition(p.partition()).setErrorCode(error.code()).setErrorMessage(error.message()));
            }
            response.results().add(result);
        }
        return response;
    }
}
