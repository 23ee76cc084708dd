package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.share.Acknowledgements;
import io.krill.broker.share.ShareFetcher;
import io.krill.broker.share.SharePartition;
import io.krill.broker.share.ShareSessionCache;
import io.krill.broker.share.ShareSessionCache.SessionPartition;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ShareAcknowledgeRequest;
import io.krill.wire.message.ShareAcknowledgeResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * ShareAcknowledge (KIP-932, v1-2): acknowledgements without a fetch, in the member's share session (a
 * commitSync or commitAsync of the share consumer, renewals, and the final acknowledgements at close with
 * epoch -1, which also closes the session and releases every record the member still holds here). The
 * answer goes once the acknowledgements are durable at the share coordinator. Epoch 0 cannot open a
 * session here: INVALID_SHARE_SESSION_EPOCH, as Kafka answers.
 *
 * <p>Thread-safe: stateless.
 */
public final class ShareAcknowledgeHandler extends ShareGroupApiHandler {
    private final BrokerContext context;
    private final ShareFetcher fetcher;

    public ShareAcknowledgeHandler(BrokerContext context, ShareFetcher fetcher, BooleanSupplier enabled) {
        super(ApiKeys.SHARE_ACKNOWLEDGE, 1, 2, enabled);
        this.context = context;
        this.fetcher = fetcher;
    }

    @Override
    protected void handleEnabled(Request request) {
        ShareAcknowledgeRequest body = request.body();
        String groupId = body.groupId();
        String memberId = body.memberId();
        Errors refusal = memberRefusal(context.authorization(), request, groupId, memberId);
        if (refusal != null) {
            request.respond(error(refusal, refusal == Errors.INVALID_REQUEST ? "A share acknowledgement names its group and member" : null));
            return;
        }
        if (body.shareSessionEpoch() == 0) {
            request.respond(error(Errors.INVALID_SHARE_SESSION_EPOCH, "ShareAcknowledge cannot open a share session"));
            return;
        }
        ShareSessionCache.Step step;
        try {
            step = fetcher.sessions().step(groupId, memberId, body.shareSessionEpoch(), List.of(), List.of());
        } catch (ApiException e) {
            request.respond(error(e.error(), e.getMessage()));
            return;
        }
        boolean renew = request.version() >= 2 && body.isRenewAck();
        MetadataImage image = context.metadata().image();
        Map<SessionPartition, CompletableFuture<Errors>> outcomes = new LinkedHashMap<>();
        for (ShareAcknowledgeRequest.AcknowledgeTopic topic : body.topics()) {
            TopicImage known = image.topic(topic.topicId());
            for (ShareAcknowledgeRequest.AcknowledgePartition p : topic.partitions()) {
                SessionPartition partition = new SessionPartition(topic.topicId(), p.partitionIndex());
                outcomes.put(partition, acknowledge(request, image, known, groupId, memberId, partition, p, renew));
            }
        }
        CompletableFuture.allOf(outcomes.values().toArray(new CompletableFuture[0])).whenComplete((v, e) -> {
            if (step.closing()) {
                fetcher.release(context.metadata().image(), groupId, memberId, step.partitions());
            }
            request.respond(answer(request, image, groupId, outcomes));
        });
    }

    private CompletableFuture<Errors> acknowledge(Request request, MetadataImage image, TopicImage topic, String groupId,
                                                  String memberId, SessionPartition partition,
                                                  ShareAcknowledgeRequest.AcknowledgePartition p, boolean renew) {
        if (topic == null) {
            return CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_ID);
        }
        if (!context.authorization().topic(request, AclOperation.READ, topic.name())) {
            return CompletableFuture.completedFuture(Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        List<Acknowledgements.Batch> batches = new ArrayList<>();
        for (ShareAcknowledgeRequest.AcknowledgementBatch b : p.acknowledgementBatches()) {
            batches.add(new Acknowledgements.Batch(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()));
        }
        try {
            List<SharePartition.Acknowledgement> parsed = Acknowledgements.parse(batches, renew);
            return fetcher.acknowledge(image, groupId, memberId, partition, parsed);
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(e.error());
        }
    }

    private ShareAcknowledgeResponse answer(Request request, MetadataImage image, String groupId,
                                            Map<SessionPartition, CompletableFuture<Errors>> outcomes) {
        ShareAcknowledgeResponse response = new ShareAcknowledgeResponse()
                .setAcquisitionLockTimeoutMs(fetcher.lockDurationMs(groupId));
        Map<UUID, ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse> topics = new LinkedHashMap<>();
        outcomes.forEach((partition, outcome) -> {
            Errors error = outcome.isCompletedExceptionally() ? Errors.UNKNOWN_SERVER_ERROR : outcome.join();
            ShareAcknowledgeResponse.PartitionData data = new ShareAcknowledgeResponse.PartitionData()
                    .setPartitionIndex(partition.partition()).setErrorCode(error.code());
            if (error == Errors.NOT_LEADER_OR_FOLLOWER) {
                pointToLeader(request, response, data, image, partition);
            }
            topics.computeIfAbsent(partition.topicId(),
                    id -> new ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse().setTopicId(id))
                    .partitions().add(data);
        });
        response.responses().addAll(topics.values());
        return response;
    }

    private void pointToLeader(Request request, ShareAcknowledgeResponse response,
                               ShareAcknowledgeResponse.PartitionData data, MetadataImage image,
                               SessionPartition partition) {
        TopicImage topic = image.topic(partition.topicId());
        if (topic == null) {
            return;
        }
        CurrentLeader leader = CurrentLeader.of(context.partitions(), image, topic, partition.partition(),
                request.connection().listenerName());
        data.setCurrentLeader(new ShareAcknowledgeResponse.LeaderIdAndEpoch().setLeaderId(leader.leaderId())
                .setLeaderEpoch(leader.leaderEpoch()));
        if (leader.endpoint() == null
                || response.nodeEndpoints().stream().anyMatch(n -> n.nodeId() == leader.leaderId())) {
            return;
        }
        response.nodeEndpoints().add(new ShareAcknowledgeResponse.NodeEndpoint().setNodeId(leader.leaderId())
                .setHost(leader.endpoint().host()).setPort(leader.endpoint().port()).setRack(leader.broker().rack()));
    }

    private static ShareAcknowledgeResponse error(Errors error, String message) {
        return new ShareAcknowledgeResponse().setErrorCode(error.code()).setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return error(error, null);
    }
}
