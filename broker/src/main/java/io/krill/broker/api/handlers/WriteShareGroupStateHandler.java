package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.StateBatch;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.WriteShareGroupStateRequest;
import io.krill.wire.message.WriteShareGroupStateResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * WriteShareGroupState v0-1: a share-partition's leader persists acknowledgements, releases and a moved
 * start offset; answered once the share coordinator's record is committed. v1 adds the leader's count of
 * delivery-complete records (-1 in v0, when the coordinator counts the batches itself). A batch whose last
 * offset is below its first is INVALID_REQUEST for its share-partition. See {@link ShareStateRequests}
 * for what the five state RPCs share.
 *
 * <p>Thread-safe: stateless.
 */
public final class WriteShareGroupStateHandler extends AbstractApiHandler {
    private final ShareCoordinator coordinator;
    private final Authorization authorization;

    public WriteShareGroupStateHandler(ShareCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.WRITE_SHARE_GROUP_STATE, 0, 1);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        ShareStateRequests.authorize(authorization, request);
        WriteShareGroupStateRequest body = request.body();
        WriteShareGroupStateResponse response = new WriteShareGroupStateResponse();
        if (ShareStateRequests.answeredEmpty(body.groupId(),
                body.topics().stream().map(WriteShareGroupStateRequest.WriteStateData::partitions).toList())) {
            request.respond(response);
            return;
        }
        List<CompletableFuture<Void>> outcomes = new ArrayList<>();
        for (WriteShareGroupStateRequest.WriteStateData topic : body.topics()) {
            WriteShareGroupStateResponse.WriteStateResult result =
                    new WriteShareGroupStateResponse.WriteStateResult().setTopicId(topic.topicId());
            response.results().add(result);
            for (WriteShareGroupStateRequest.PartitionData p : topic.partitions()) {
                WriteShareGroupStateResponse.PartitionResult partition =
                        new WriteShareGroupStateResponse.PartitionResult().setPartition(p.partition());
                result.partitions().add(partition);
                SharePartitionKey key = new SharePartitionKey(body.groupId(), topic.topicId(), p.partition());
                CompletableFuture<Void> write;
                try {
                    write = coordinator.write(key, p.stateEpoch(), p.leaderEpoch(), p.startOffset(),
                            p.deliveryCompleteCount(), batches(p));
                } catch (ApiException e) {
                    write = CompletableFuture.failedFuture(e);
                }
                outcomes.add(ShareStateRequests.outcome(write, ok -> { },
                        (error, message) -> partition.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        ShareStateRequests.respondWhenDone(request, this, outcomes, () -> response);
    }

    private static List<StateBatch> batches(WriteShareGroupStateRequest.PartitionData partition) {
        List<StateBatch> batches = new ArrayList<>(partition.stateBatches().size());
        for (WriteShareGroupStateRequest.StateBatch b : partition.stateBatches()) {
            if (b.lastOffset() < b.firstOffset()) {
                throw new ApiException(Errors.INVALID_REQUEST, "State batch " + b.firstOffset() + ".."
                        + b.lastOffset() + " is empty");
            }
            batches.add(new StateBatch(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
        }
        return batches;
    }

    @Override
    public WriteShareGroupStateResponse errorResponse(Request request, Errors error) {
        WriteShareGroupStateRequest body = request.body();
        WriteShareGroupStateResponse response = new WriteShareGroupStateResponse();
        for (WriteShareGroupStateRequest.WriteStateData topic : body.topics()) {
            WriteShareGroupStateResponse.WriteStateResult result =
                    new WriteShareGroupStateResponse.WriteStateResult().setTopicId(topic.topicId());
            for (WriteShareGroupStateRequest.PartitionData p : topic.partitions()) {
                result.partitions().add(new WriteShareGroupStateResponse.PartitionResult()
                        .setPartition(p.partition()).setErrorCode(error.code()).setErrorMessage(error.message()));
            }
            response.results().add(result);
        }
        return response;
    }
}
