package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ReadShareGroupStateSummaryRequest;
import io.krill.wire.message.ReadShareGroupStateSummaryResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * ReadShareGroupStateSummary v0-1: the group coordinator reads share-partitions' epochs and start
 * offsets (DescribeShareGroupOffsets); v1 adds the delivery-complete count, from which Kafka computes a
 * share group's lag. A share-partition without state answers start offset -1. The request's leader
 * epochs are not checked (as in Kafka 4.4). See {@link ShareStateRequests} for what the five state RPCs
 * share.
 *
 * <p>Thread-safe: stateless.
 */
public final class ReadShareGroupStateSummaryHandler extends AbstractApiHandler {
    private final ShareCoordinator coordinator;
    private final Authorization authorization;

    public ReadShareGroupStateSummaryHandler(ShareCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, 0, 1);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        ShareStateRequests.authorize(authorization, request);
        ReadShareGroupStateSummaryRequest body = request.body();
        ReadShareGroupStateSummaryResponse response = new ReadShareGroupStateSummaryResponse();
        if (ShareStateRequests.answeredEmpty(body.groupId(),
                body.topics().stream().map(ReadShareGroupStateSummaryRequest.ReadStateSummaryData::partitions).toList())) {
            request.respond(response);
            return;
        }
        List<CompletableFuture<Void>> outcomes = new ArrayList<>();
        for (ReadShareGroupStateSummaryRequest.ReadStateSummaryData topic : body.topics()) {
            ReadShareGroupStateSummaryResponse.ReadStateSummaryResult result =
                    new ReadShareGroupStateSummaryResponse.ReadStateSummaryResult().setTopicId(topic.topicId());
            response.results().add(result);
            for (ReadShareGroupStateSummaryRequest.PartitionData p : topic.partitions()) {
                ReadShareGroupStateSummaryResponse.PartitionResult partition =
                        new ReadShareGroupStateSummaryResponse.PartitionResult().setPartition(p.partition());
                result.partitions().add(partition);
                SharePartitionKey key = new SharePartitionKey(body.groupId(), topic.topicId(), p.partition());
                outcomes.add(ShareStateRequests.outcome(coordinator.readSummary(key),
                        summary -> partition.setStateEpoch(summary.stateEpoch()).setLeaderEpoch(summary.leaderEpoch())
                                .setStartOffset(summary.startOffset())
                                .setDeliveryCompleteCount((int) Math.min(Integer.MAX_VALUE,
                                        summary.deliveryCompleteCount())),
                        (error, message) -> partition.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        ShareStateRequests.respondWhenDone(request, this, outcomes, () -> response);
    }

    @Override
    public ReadShareGroupStateSummaryResponse errorResponse(Request request, Errors error) {
        ReadShareGroupStateSummaryRequest body = request.body();
        ReadShareGroupStateSummaryResponse response = new ReadShareGroupStateSummaryResponse();
        for (ReadShareGroupStateSummaryRequest.ReadStateSummaryData topic : body.topics()) {
            ReadShareGroupStateSummaryResponse.ReadStateSummaryResult result =
                    new ReadShareGroupStateSummaryResponse.ReadStateSummaryResult().setTopicId(topic.topicId());
            for (ReadShareGroupStateSummaryRequest.PartitionData p : topic.partitions()) {
                result.partitions().add(new ReadShareGroupStateSummaryResponse.PartitionResult()
                        .setPartition(p.partition()).setErrorCode(error.code()).setErrorMessage(error.message()));
            }
            response.results().add(result);
        }
        return response;
    }
}
