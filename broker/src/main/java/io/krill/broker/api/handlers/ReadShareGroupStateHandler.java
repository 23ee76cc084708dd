package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareState;
import io.krill.broker.share.state.StateBatch;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ReadShareGroupStateRequest;
import io.krill.wire.message.ReadShareGroupStateResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * ReadShareGroupState v0: a share-partition's leader reads its state (start offset, state epoch,
 * in-flight batches) when it loads the share-partition; its leader epoch becomes the recorded one first.
 * See {@link ShareStateRequests} for what the five state RPCs share.
 *
 * <p>Thread-safe: stateless.
 */
public final class ReadShareGroupStateHandler extends AbstractApiHandler {
    private final ShareCoordinator coordinator;
    private final Authorization authorization;

    public ReadShareGroupStateHandler(ShareCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.READ_SHARE_GROUP_STATE, 0, 0);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        ShareStateRequests.authorize(authorization, request);
        ReadShareGroupStateRequest body = request.body();
        ReadShareGroupStateResponse response = new ReadShareGroupStateResponse();
        if (ShareStateRequests.answeredEmpty(body.groupId(),
                body.topics().stream().map(ReadShareGroupStateRequest.ReadStateData::partitions).toList())) {
            request.respond(response);
            return;
        }
        List<CompletableFuture<Void>> outcomes = new ArrayList<>();
        for (ReadShareGroupStateRequest.ReadStateData topic : body.topics()) {
            ReadShareGroupStateResponse.ReadStateResult result =
                    new ReadShareGroupStateResponse.ReadStateResult().setTopicId(topic.topicId());
            response.results().add(result);
            for (ReadShareGroupStateRequest.PartitionData p : topic.partitions()) {
                ReadShareGroupStateResponse.PartitionResult partition =
                        new ReadShareGroupStateResponse.PartitionResult().setPartition(p.partition());
                result.partitions().add(partition);
                SharePartitionKey key = new SharePartitionKey(body.groupId(), topic.topicId(), p.partition());
                outcomes.add(ShareStateRequests.outcome(coordinator.read(key, p.leaderEpoch()),
                        state -> fill(partition, state),
                        (error, message) -> partition.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        ShareStateRequests.respondWhenDone(request, this, outcomes, () -> response);
    }

    private static void fill(ReadShareGroupStateResponse.PartitionResult partition, ShareState state) {
        partition.setStateEpoch(state.stateEpoch()).setStartOffset(state.startOffset());
        for (StateBatch batch : state.batches()) {
            partition.stateBatches().add(new ReadShareGroupStateResponse.StateBatch()
                    .setFirstOffset(batch.firstOffset()).setLastOffset(batch.lastOffset())
                    .setDeliveryState(batch.deliveryState()).setDeliveryCount(batch.deliveryCount()));
        }
    }

    @Override
    public ReadShareGroupStateResponse errorResponse(Request request, Errors error) {
        ReadShareGroupStateRequest body = request.body();
        ReadShareGroupStateResponse response = new ReadShareGroupStateResponse();
        for (ReadShareGroupStateRequest.ReadStateData topic : body.topics()) {
            ReadShareGroupStateResponse.ReadStateResult result =
                    new ReadShareGroupStateResponse.ReadStateResult().setTopicId(topic.topicId());
            for (ReadShareGroupStateRequest.PartitionData p : topic.partitions()) {
                result.partitions().add(new ReadShareGroupStateResponse.PartitionResult()
                        .setPartition(p.partition()).setErrorCode(error.code()).setErrorMessage(error.message()));
            }
            response.results().add(result);
        }
        return response;
    }
}
