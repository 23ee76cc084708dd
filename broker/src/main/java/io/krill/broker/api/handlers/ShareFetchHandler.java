package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.Request;
import io.krill.broker.net.LogSliceRecords;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.share.AcquiredRange;
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
import io.krill.wire.message.ShareFetchRequest;
import io.krill.wire.message.ShareFetchResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufRecords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * ShareFetch (KIP-932, v1-2): in the member's share session, applies the acknowledgements it carries, then
 * acquires records for the member from the session's share-partitions this broker leads and answers them
 * with the acquired ranges, the batches sent from the log files. With nothing to acquire it waits up to
 * {@code MaxWaitMs} ({@link DelayedShareFetch}), woken by appends, releases and lock expiries. The answer
 * goes once the acknowledgements are durable at the share coordinator.
 *
 * <p>Errors as Kafka's: share groups off (share.version 0) UNSUPPORTED_VERSION; no READ on the group
 * GROUP_AUTHORIZATION_FAILED; session errors (SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH,
 * SHARE_SESSION_LIMIT_REACHED) and acknowledgements in a request opening a session (INVALID_REQUEST) for
 * the whole request; per partition UNKNOWN_TOPIC_ID, TOPIC_AUTHORIZATION_FAILED, NOT_LEADER_OR_FOLLOWER
 * (with the current leader and its endpoint); per partition's acknowledgements INVALID_REQUEST (a malformed
 * batch) and INVALID_RECORD_STATE (records the member does not hold).
 *
 * <p>Thread-safe: stateless; the session cache and share-partitions guard themselves.
 */
public final class ShareFetchHandler extends ShareGroupApiHandler {
    static final byte RECORD_LIMIT = 1;

    private final BrokerContext context;
    private final ShareFetcher fetcher;

    /** @param enabled whether share groups are on ({@code share.version} 1 or more) */
    public ShareFetchHandler(BrokerContext context, ShareFetcher fetcher, BooleanSupplier enabled) {
        super(ApiKeys.SHARE_FETCH, 1, 2, enabled);
        this.context = context;
        this.fetcher = fetcher;
    }

    @Override
    protected void handleEnabled(Request request) {
        ShareFetchRequest body = request.body();
        String groupId = body.groupId();
        String memberId = body.memberId();
        Errors refusal = memberRefusal(context.authorization(), request, groupId, memberId);
        if (refusal != null) {
            request.respond(error(refusal, refusal == Errors.INVALID_REQUEST ? "A share fetch names its group and member" : null));
            return;
        }
        int epoch = body.shareSessionEpoch();
        boolean renew = request.version() >= 2 && body.isRenewAck();
        List<SessionPartition> added = new ArrayList<>();
        Map<SessionPartition, List<Acknowledgements.Batch>> acks = new LinkedHashMap<>();
        for (ShareFetchRequest.FetchTopic topic : body.topics()) {
            for (ShareFetchRequest.FetchPartition p : topic.partitions()) {
                SessionPartition partition = new SessionPartition(topic.topicId(), p.partitionIndex());
                added.add(partition);
                if (!p.acknowledgementBatches().isEmpty()) {
                    List<Acknowledgements.Batch> batches = acks.computeIfAbsent(partition, k -> new ArrayList<>());
                    for (ShareFetchRequest.AcknowledgementBatch b : p.acknowledgementBatches()) {
                        batches.add(new Acknowledgements.Batch(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()));
                    }
                }
            }
        }
        if (epoch == 0 && !acks.isEmpty()) {
            request.respond(error(Errors.INVALID_REQUEST, "Acknowledgements in a request that opens a share session"));
            return;
        }
        List<SessionPartition> forgotten = new ArrayList<>();
        for (ShareFetchRequest.ForgottenTopic topic : body.forgottenTopicsData()) {
            for (int p : topic.partitions()) {
                forgotten.add(new SessionPartition(topic.topicId(), p));
            }
        }
        ShareSessionCache.Step step;
        try {
            step = fetcher.sessions().step(groupId, memberId, epoch, added, forgotten);
        } catch (ApiException e) {
            request.respond(error(e.error(), e.getMessage()));
            return;
        }
        MetadataImage image = context.metadata().image();
        if (step.opened() != null) {
            fetcher.sessionOpened(groupId, step.partitions());
            // a consumer that dies gives its records back when its connection closes, not at the lock's end
            request.session().onClose(() -> fetcher.release(context.metadata().image(), groupId, memberId,
                    fetcher.sessions().closeIfCurrent(step.opened())));
        }
        if (!step.previous().isEmpty()) {
            fetcher.release(image, groupId, memberId, step.previous());
        }
        Map<SessionPartition, CompletableFuture<Errors>> acknowledged = acknowledge(request, image, groupId, memberId,
                acks, renew);
        CompletableFuture<Void> acksDone = CompletableFuture.allOf(acknowledged.values().toArray(new CompletableFuture[0]));
        if (step.closing() || renew) {
            if (step.closing()) {
                acksDone.whenComplete((v, e) -> fetcher.release(context.metadata().image(), groupId, memberId,
                        step.partitions()));
            }
            acksDone.whenComplete((v, e) -> request.respond(answer(request, groupId, image,
                    new ShareFetcher.Round(List.of(), List.of(), false), acknowledged)));
            return;
        }
        ShareFetcher.Round round = read(request, image, step.partitions());
        if (round.acquiredAny() || round.errors() || body.maxWaitMs() <= 0 || step.partitions().isEmpty()) {
            acksDone.whenComplete((v, e) -> request.respond(answer(request, groupId, image, round, acknowledged)));
            return;
        }
        round.discard();
        DelayedShareFetch delayed = new DelayedShareFetch(body.maxWaitMs(), this, request, step.partitions(),
                acknowledged);
        context.fetchPurgatory().tryCompleteElseWatch(delayed, round.watched());
    }

    /** Reads the session's partitions once (also the delayed fetch's final read). */
    ShareFetcher.Round read(Request request, MetadataImage image, List<SessionPartition> partitions) {
        ShareFetchRequest body = request.body();
        boolean strict = request.version() >= 2 && body.shareAcquireMode() == RECORD_LIMIT;
        int maxRecords = body.maxRecords() > 0 ? body.maxRecords() : Integer.MAX_VALUE;
        int maxBytes = body.maxBytes() > 0 ? body.maxBytes() : Integer.MAX_VALUE;
        return fetcher.read(image, body.groupId(), body.memberId(), partitions, maxRecords, maxBytes, strict,
                topic -> context.authorization().topic(request, AclOperation.READ, topic));
    }

    MetadataImage image() {
        return context.metadata().image();
    }

    boolean canAcquire(Request request, List<SessionPartition> partitions) {
        ShareFetchRequest body = request.body();
        return fetcher.canAcquire(context.metadata().image(), body.groupId(), partitions);
    }

    /** Sends {@code round} with the acknowledgements' outcomes once they are durable. */
    void respondLater(Request request, ShareFetcher.Round round, Map<SessionPartition, CompletableFuture<Errors>> acks) {
        ShareFetchRequest body = request.body();
        MetadataImage image = context.metadata().image();
        CompletableFuture.allOf(acks.values().toArray(new CompletableFuture[0]))
                .whenComplete((v, e) -> request.respond(answer(request, body.groupId(), image, round, acks)));
    }

    private Map<SessionPartition, CompletableFuture<Errors>> acknowledge(Request request, MetadataImage image,
                                                                         String groupId, String memberId,
                                                                         Map<SessionPartition, List<Acknowledgements.Batch>> acks,
                                                                         boolean renew) {
        Map<SessionPartition, CompletableFuture<Errors>> outcomes = new LinkedHashMap<>();
        acks.forEach((partition, batches) -> {
            CompletableFuture<Errors> outcome;
            TopicImage topic = image.topic(partition.topicId());
            if (topic == null) {
                outcome = CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_ID);
            } else if (!context.authorization().topic(request, AclOperation.READ, topic.name())) {
                outcome = CompletableFuture.completedFuture(Errors.TOPIC_AUTHORIZATION_FAILED);
            } else {
                try {
                    List<SharePartition.Acknowledgement> parsed = Acknowledgements.parse(batches, renew);
                    outcome = fetcher.acknowledge(image, groupId, memberId, partition, parsed);
                } catch (ApiException e) {
                    outcome = CompletableFuture.completedFuture(e.error());
                }
            }
            outcomes.put(partition, outcome);
        });
        return outcomes;
    }

    private ShareFetchResponse answer(Request request, String groupId, MetadataImage image, ShareFetcher.Round round,
                                      Map<SessionPartition, CompletableFuture<Errors>> acks) {
        ShareFetchResponse response = new ShareFetchResponse()
                .setAcquisitionLockTimeoutMs(fetcher.lockDurationMs(groupId));
        Map<UUID, ShareFetchResponse.ShareFetchableTopicResponse> topics = new LinkedHashMap<>();
        Map<SessionPartition, ShareFetchResponse.PartitionData> answered = new LinkedHashMap<>();
        for (ShareFetcher.PartitionRead read : round.partitions()) {
            if (read.error() == Errors.NONE && !read.acquired()) {
                continue; // an incremental answer: only partitions with news
            }
            ShareFetchResponse.PartitionData data = partition(topics, read.partition());
            answered.put(read.partition(), data);
            if (read.error() != Errors.NONE) {
                data.setErrorCode(read.error().code()).setErrorMessage(read.message());
                if (read.error() == Errors.NOT_LEADER_OR_FOLLOWER || read.error() == Errors.FENCED_LEADER_EPOCH) {
                    pointToLeader(request, response, data, image, read.topic(), read.partition().partition());
                }
                continue;
            }
            SharePartition.ShareRead got = read.read();
            data.setRecords(new LogSliceRecords(got.read().records()));
            for (AcquiredRange range : got.acquired()) {
                data.acquiredRecords().add(new ShareFetchResponse.AcquiredRecords().setFirstOffset(range.firstOffset())
                        .setLastOffset(range.lastOffset()).setDeliveryCount(range.deliveryCount()));
            }
        }
        acks.forEach((partition, outcome) -> {
            ShareFetchResponse.PartitionData data = answered.computeIfAbsent(partition, p -> partition(topics, p));
            Errors error = outcome.isCompletedExceptionally() ? Errors.UNKNOWN_SERVER_ERROR : outcome.join();
            data.setAcknowledgeErrorCode(error.code());
            if (error == Errors.NOT_LEADER_OR_FOLLOWER) {
                TopicImage topic = image.topic(partition.topicId());
                if (topic != null) {
                    pointToLeader(request, response, data, image, topic.name(), partition.partition());
                }
            }
        });
        response.responses().addAll(topics.values());
        return response;
    }

    private static ShareFetchResponse.PartitionData partition(Map<UUID, ShareFetchResponse.ShareFetchableTopicResponse> topics,
                                                              SessionPartition partition) {
        ShareFetchResponse.ShareFetchableTopicResponse topic = topics.computeIfAbsent(partition.topicId(),
                id -> new ShareFetchResponse.ShareFetchableTopicResponse().setTopicId(id));
        ShareFetchResponse.PartitionData data = new ShareFetchResponse.PartitionData()
                .setPartitionIndex(partition.partition()).setRecords(ByteBufRecords.EMPTY);
        topic.partitions().add(data);
        return data;
    }

    /** As Fetch's KIP-951 answer: the partition's current leader and its endpoint on the request's listener. */
    private void pointToLeader(Request request, ShareFetchResponse response, ShareFetchResponse.PartitionData data,
                               MetadataImage image, String topicName, int partitionIndex) {
        TopicImage topic = topicName == null ? null : image.topic(topicName);
        if (topic == null) {
            return;
        }
        CurrentLeader leader = CurrentLeader.of(context.partitions(), image, topic, partitionIndex,
                request.connection().listenerName());
        data.setCurrentLeader(new ShareFetchResponse.LeaderIdAndEpoch().setLeaderId(leader.leaderId())
                .setLeaderEpoch(leader.leaderEpoch()));
        if (leader.endpoint() == null
                || response.nodeEndpoints().stream().anyMatch(n -> n.nodeId() == leader.leaderId())) {
            return;
        }
        response.nodeEndpoints().add(new ShareFetchResponse.NodeEndpoint().setNodeId(leader.leaderId())
                .setHost(leader.endpoint().host()).setPort(leader.endpoint().port()).setRack(leader.broker().rack()));
    }

    private static ShareFetchResponse error(Errors error, String message) {
        return new ShareFetchResponse().setErrorCode(error.code()).setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return error(error, null);
    }
}
