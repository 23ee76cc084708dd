package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteShareGroupStateRequest;
import io.krill.wire.message.DeleteShareGroupStateResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteShareGroupState v0: the group coordinator forgets share-partitions' state (DeleteGroups,
 * DeleteShareGroupOffsets); a share-partition without state is fine. See {@link ShareStateRequests} for
 * what the five state RPCs share.
 *
 * <p>Thread-safe: stateless.
 */
public final class DeleteShareGroupStateHandler extends AbstractApiHandler {
    private final ShareCoordinator coordinator;
    private final Authorization authorization;

    public DeleteShareGroupStateHandler(ShareCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.DELETE_SHARE_GROUP_STATE, 0, 0);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        ShareStateRequests.authorize(authorization, request);
        DeleteShareGroupStateRequest body = request.body();
        DeleteShareGroupStateResponse response = new DeleteShareGroupStateResponse();
        if (ShareStateRequests.answeredEmpty(body.groupId(),
                body.topics().stream().map(DeleteShareGroupStateRequest.DeleteStateData::partitions).toList())) {
            request.respond(response);
            return;
        }
        List<CompletableFuture<Void>> outcomes = new ArrayList<>();
        for (DeleteShareGroupStateRequest.DeleteStateData topic : body.topics()) {
            DeleteShareGroupStateResponse.DeleteStateResult result =
                    new DeleteShareGroupStateResponse.DeleteStateResult().setTopicId(topic.topicId());
            response.results().add(result);
            for (DeleteShareGroupStateRequest.PartitionData p : topic.partitions()) {
                DeleteShareGroupStateResponse.PartitionResult partition =
                        new DeleteShareGroupStateResponse.PartitionResult().setPartition(p.partition());
                result.partitions().add(partition);
                SharePartitionKey key = new SharePartitionKey(body.groupId(), topic.topicId(), p.partition());
                outcomes.add(ShareStateRequests.outcome(coordinator.delete(key), ok -> { },
                        (error, message) -> partition.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        ShareStateRequests.respondWhenDone(request, this, outcomes, () -> response);
    }

    @Override
    public DeleteShareGroupStateResponse errorResponse(Request request, Errors error) {
        DeleteShareGroupStateRequest body = request.body();
        DeleteShareGroupStateResponse response = new DeleteShareGroupStateResponse();
        for (DeleteShareGroupStateRequest.DeleteStateData topic : body.topics()) {
            DeleteShareGroupStateResponse.DeleteStateResult result =
                    new DeleteShareGroupStateResponse.DeleteStateResult().setTopicId(topic.topicId());
            for (DeleteShareGroupStateRequest.PartitionData p : topic.partitions()) {
                result.partitions().add(new DeleteShareGroupStateResponse.PartitionResult()
                        .setPartition(p.partition()).setErrorCode(error.code()).setErrorMessage(error.message()));
            }
            response.results().add(result);
        }
        return response;
    }
}
