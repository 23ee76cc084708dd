package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.ProduceValidator;
import io.krill.broker.partition.RecordValidationException;
import io.krill.broker.partition.Recompressor;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionalProduceCheck;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.AppendInfo;
import io.krill.log.AppendOrigin;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Produce: validates each partition's batch from its header, appends it as leader (offsets and leader
 * epoch assigned in place, no record decoding), then answers by acks: 0 not at all, 1 at once, -1 when
 * the high watermark of every partition has passed its batch (a {@link DelayedProduce} until then).
 * Errors are per partition, as Kafka gives them. The first batch of a transaction on a partition is
 * checked with the transaction coordinator first ({@link TransactionalProduceCheck}); when another broker
 * coordinates the transaction the request is answered once that broker has, the appends resuming on the
 * connection's request thread. Authorization as Kafka's: WRITE on the transactional id for a
 * transactional producer (else the whole request fails with TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
 * WRITE on each topic (TOPIC_AUTHORIZATION_FAILED per partition, before existence is told). Idempotence
 * needs no check here: InitProducerId checked it (KIP-679).
 *
 * <p>Versions 0-2 are advertised, as Kafka 4 does, because librdkafka enables compression only when
 * they are; the request pipeline then refuses them, the schema having no such versions.
 *
 * <p>Thread-safe: stateless.
 */
public final class ProduceHandler extends AbstractApiHandler {
    private final BrokerContext context;
    private final TransactionalProduceCheck transactionCheck;
    private final ClientQuotas quotas;

    /** A handler that appends transactional batches unverified (no transaction coordinator). */
    public ProduceHandler(BrokerContext context) {
        this(context, null);
    }

    /** @param transactionCheck verifies transactional batches before they are appended (KIP-890 part 1) */
    public ProduceHandler(BrokerContext context, TransactionalProduceCheck transactionCheck) {
        this(context, transactionCheck, ClientQuotas.DISABLED);
    }

    /** @param quotas the producer_byte_rate quotas, which throttle clients that go over them */
    public ProduceHandler(BrokerContext context, TransactionalProduceCheck transactionCheck, ClientQuotas quotas) {
        super(ApiKeys.PRODUCE, 0, 13);
        this.context = context;
        this.transactionCheck = transactionCheck;
        this.quotas = quotas;
    }

    @Override
    public void handle(Request request) {
        ProduceRequest body = request.body();
        Authorization authorization = context.authorization();
        if (body.transactionalId() != null
                && !authorization.transactionalId(request, AclOperation.WRITE, body.transactionalId())) {
            throw new ApiException(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null);
        }
        short acks = body.acks();
        MetadataImage image = context.metadata().image();
        long now = System.currentTimeMillis();
        List<DelayedProduce.PartitionStatus> statuses = new ArrayList<>();
        Map<TopicPartition, Append> unverified = new LinkedHashMap<>();
        Set<TransactionalProduceCheck.Producer> producers = new HashSet<>();
        ProduceResponse response = new ProduceResponse();
        long requestBytes = 0;
        for (ProduceRequest.TopicProduceData topicData : body.topicData()) {
            TopicImage topic = request.version() >= 13 ? image.topic(topicData.topicId()) : image.topic(topicData.name());
            ProduceResponse.TopicProduceResponse topicResponse = new ProduceResponse.TopicProduceResponse()
                    .setName(topicData.name())
                    .setTopicId(topicData.topicId());
            response.responses().add(topicResponse);
            String name = topic != null ? topic.name() : request.version() >= 13 ? null : topicData.name();
            boolean writable = name == null || authorization.topic(request, AclOperation.WRITE, name);
            for (ProduceRequest.PartitionProduceData data : topicData.partitionData()) {
                ProduceResponse.PartitionProduceResponse partitionResponse = new ProduceResponse.PartitionProduceResponse()
                        .setIndex(data.index());
                topicResponse.partitionResponses().add(partitionResponse);
                if (data.records() != null) {
                    requestBytes += data.records().buffer().readableBytes();
                }
                if (!writable) {
                    fail(partitionResponse, Errors.TOPIC_AUTHORIZATION_FAILED, null);
                    continue;
                }
                if (topic == null) {
                    fail(partitionResponse, request.version() >= 13 ? Errors.UNKNOWN_TOPIC_ID
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
                    continue;
                }
                if (acks != 0 && acks != 1 && acks != -1) {
                    fail(partitionResponse, Errors.INVALID_REQUIRED_ACKS, null);
                    continue;
                }
                Partition appendingTo = null;
                try {
                    Partition partition = context.partitions().leaderPartition(image, topic.name(), data.index());
                    if (acks == -1 && context.metadata().isFenced()) {
                        throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + context.nodeId()
                                + " is cut off from the cluster; another broker may lead " + topic.name() + "-"
                                + data.index());
                    }
                    if (topic.internal()) {
                        throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Cannot append to internal topic " + topic.name());
                    }
                    ByteBuf records = data.records() == null ? null : data.records().buffer();
                    if (records == null) {
                        throw new ApiException(Errors.INVALID_RECORD, "Produce request without records");
                    }
                    appendingTo = partition; // from here a refusal is the log's (Kafka's log validates)
                    ProduceValidator.get().validate(records, request.version(), partition.config(), now,
                            partition.topicPartition());
                    appendingTo = null; // Kafka verifies a transaction before it appends
                    TransactionalProduceCheck.Producer producer = transactionCheck == null ? null
                            : transactionCheck.toVerify(body.transactionalId(), partition, records, request.version());
                    Append append = new Append(topic.name(), partition, records, partitionResponse);
                    if (producer == null) {
                        append(append, acks, statuses);
                    } else {
                        producers.add(producer);
                        unverified.put(partition.topicPartition(), append);
                    }
                } catch (RecordValidationException e) {
                    fail(partitionResponse, e, appendingTo);
                } catch (RuntimeException e) {
                    Errors error = ErrorMapping.toError(e, request);
                    fail(partitionResponse, error, ErrorMapping.clientMessage(e));
                    partitionResponse.setLogStartOffset(logStartOffsetAfter(error, appendingTo));
                }
            }
        }
        // Kafka counts every produce request against the quota, whatever became of its batches.
        int throttleMs = quotas.recordProduce(request, requestBytes, now);
        if (throttleMs > 0) {
            request.throttle(throttleMs);
        }
        if (unverified.isEmpty()) {
            answer(request, response, statuses);
            return;
        }
        verifyThenAppend(request, response, statuses, unverified, producers);
    }

    /**
     * Appends the batches that open a transaction on their partition once the transaction coordinator
     * has confirmed them, then answers. A coordinator on this broker answers at once and all happens on
     * this thread; one on another broker answers on the verifier's thread, and the appends resume on the
     * connection's request thread (never on the verifier's, which must stay free to ask), with the
     * batches' bytes kept meanwhile (the request's frame is released when {@link #handle} returns).
     */
    private void verifyThenAppend(Request request, ProduceResponse response,
                                  List<DelayedProduce.PartitionStatus> statuses, Map<TopicPartition, Append> unverified,
                                  Set<TransactionalProduceCheck.Producer> producers) {
        ProduceRequest body = request.body();
        if (producers.size() > 1) {
            // As Kafka: one request's transactional batches are one producer's.
            unverified.values().forEach(append -> fail(append.response(), Errors.INVALID_PRODUCER_ID_MAPPING,
                    "Transactional records contained more than one producer id"));
            answer(request, response, statuses);
            return;
        }
        CompletableFuture<Map<TopicPartition, Errors>> verified = transactionCheck.verify(body.transactionalId(),
                producers.iterator().next(), unverified.keySet(), request.version());
        if (verified.isDone()) {
            appendVerified(request, response, statuses, unverified, verified.join());
            return;
        }
        unverified.values().forEach(append -> append.records().retain());
        verified.thenAccept(errors -> {
            try {
                request.execute(() -> {
                    try {
                        appendVerified(request, response, statuses, unverified, errors);
                    } finally {
                        unverified.values().forEach(append -> append.records().release());
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // The request threads are shutting down with the broker and their connections with them:
                // nobody is left to answer, but the kept batches must still be given back.
                unverified.values().forEach(append -> append.records().release());
            }
        });
    }

    private void appendVerified(Request request, ProduceResponse response, List<DelayedProduce.PartitionStatus> statuses,
                                Map<TopicPartition, Append> unverified, Map<TopicPartition, Errors> errors) {
        ProduceRequest body = request.body();
        unverified.forEach((tp, append) -> {
            Errors error = errors.getOrDefault(tp, Errors.NONE);
            if (error == Errors.NONE) {
                append(append, body.acks(), statuses);
            } else {
                fail(append.response(), error, TransactionalProduceCheck.message(body.transactionalId(), tp, error));
            }
        });
        answer(request, response, statuses);
    }

    /** One partition's validated batch, waiting to be appended. */
    private record Append(String topic, Partition partition, ByteBuf records,
                          ProduceResponse.PartitionProduceResponse response) {
    }

    /** Appends {@code append} as leader and records where it landed (or why it did not). */
    private void append(Append append, short acks, List<DelayedProduce.PartitionStatus> statuses) {
        Partition partition = append.partition();
        ProduceResponse.PartitionProduceResponse partitionResponse = append.response();
        try {
            ByteBuf records = append.records();
            ByteBuf stored = Recompressor.maybeRecompress(records, partition.config());
            AppendInfo info;
            try {
                info = partition.appendRecordsToLeader(stored, acks, AppendOrigin.CLIENT);
            } finally {
                if (stored != records) {
                    stored.release();
                }
            }
            if (!info.duplicate()) {
                context.metrics().produced(append.topic(), info.sizeInBytes(), info.recordCount());
            }
            partitionResponse.setBaseOffset(info.firstOffset())
                    .setLogAppendTimeMs(info.logAppendTime())
                    .setLogStartOffset(info.logStartOffset());
            statuses.add(new DelayedProduce.PartitionStatus(partition, info.lastOffset() + 1, partitionResponse));
        } catch (RecordValidationException e) {
            fail(partitionResponse, e, partition);
        } catch (RuntimeException e) {
            Errors error = ErrorMapping.toError(e, partition.topicPartition());
            fail(partitionResponse, error, ErrorMapping.clientMessage(e));
            partitionResponse.setLogStartOffset(logStartOffsetAfter(error, partition));
        }
    }

    /** Answers by acks: 0 not at all (a failure closes the connection), 1 at once, -1 once replicated. */
    private void answer(Request request, ProduceResponse response, List<DelayedProduce.PartitionStatus> statuses) {
        ProduceRequest body = request.body();
        short acks = body.acks();
        if (acks == 0) {
            String failure = firstError(response);
            if (failure != null) {
                request.closeConnection("acks=0 produce failed (" + failure + "); closing so the producer refreshes");
            } else {
                request.noResponse();
            }
            return;
        }
        if (acks == 1 || statuses.isEmpty()) {
            pointToLeaders(request, response);
            request.respond(response);
            return;
        }
        DelayedProduce delayed = new DelayedProduce(body.timeoutMs(), request, response, statuses,
                () -> pointToLeaders(request, response));
        List<TopicPartition> keys = new ArrayList<>(statuses.size());
        for (DelayedProduce.PartitionStatus status : statuses) {
            keys.add(status.partition().topicPartition());
        }
        context.producePurgatory().tryCompleteElseWatch(delayed, keys);
    }

    /**
     * KIP-951 from v10: each partition answered NOT_LEADER_OR_FOLLOWER names its current leader and epoch
     * from the metadata image, and the response carries those leaders' endpoints, so the producer resends
     * at once instead of after a Metadata refresh (Kafka's KafkaApis does the same when it answers).
     */
    private void pointToLeaders(Request request, ProduceResponse response) {
        if (request.version() < 10) {
            return;
        }
        MetadataImage image = null;
        for (ProduceResponse.TopicProduceResponse topic : response.responses()) {
            for (ProduceResponse.PartitionProduceResponse partition : topic.partitionResponses()) {
                if (partition.errorCode() != Errors.NOT_LEADER_OR_FOLLOWER.code()) {
                    continue;
                }
                image = image != null ? image : context.metadata().image();
                TopicImage known = topic.name() != null && !topic.name().isEmpty() ? image.topic(topic.name())
                        : image.topic(topic.topicId());
                CurrentLeader leader = CurrentLeader.of(known == null ? null : known.partition(partition.index()),
                        image, request.connection().listenerName());
                partition.setCurrentLeader(new ProduceResponse.LeaderIdAndEpoch().setLeaderId(leader.leaderId())
                        .setLeaderEpoch(leader.leaderEpoch()));
                if (leader.endpoint() != null
                        && response.nodeEndpoints().stream().noneMatch(n -> n.nodeId() == leader.leaderId())) {
                    response.nodeEndpoints().add(new ProduceResponse.NodeEndpoint().setNodeId(leader.leaderId())
                            .setHost(leader.endpoint().host()).setPort(leader.endpoint().port())
                            .setRack(leader.broker().rack()));
                }
            }
        }
    }

    private static void fail(ProduceResponse.PartitionProduceResponse response, RecordValidationException e,
                             Partition partition) {
        fail(response, e.error(), e.getMessage());
        response.setLogStartOffset(logStartOffsetAfter(e.error(), partition));
        for (RecordValidationException.RecordError error : e.recordErrors()) {
            response.recordErrors().add(new ProduceResponse.BatchIndexAndErrorMessage()
                    .setBatchIndex(error.batchIndex()).setBatchIndexErrorMessage(error.message()));
        }
    }

    /**
     * The log start offset a failed append answers with, as Kafka's ReplicaManager: the partition's when
     * the log refused the records (sequence and epoch errors, invalid records or timestamps, too few
     * in-sync replicas), -1 when there was no log to ask or the batch was refused as a whole before it
     * (corrupt, too large, not the leader, storage error).
     */
    private static long logStartOffsetAfter(Errors error, Partition partition) {
        if (partition == null) {
            return -1;
        }
        return switch (error) {
            case CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, KAFKA_STORAGE_ERROR,
                    NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID -> -1;
            default -> partition.logStartOffset();
        };
    }

    private static String firstError(ProduceResponse response) {
        for (ProduceResponse.TopicProduceResponse topic : response.responses()) {
            for (ProduceResponse.PartitionProduceResponse partition : topic.partitionResponses()) {
                if (partition.errorCode() != Errors.NONE.code()) {
                    return Errors.forCode(partition.errorCode()) + " on " + topic.name() + "-" + partition.index();
                }
            }
        }
        return null;
    }

    private static void fail(ProduceResponse.PartitionProduceResponse response, Errors error, String message) {
        response.setErrorCode(error.code())
                .setBaseOffset(-1)
                .setLogAppendTimeMs(-1)
                .setLogStartOffset(-1)
                .setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        ProduceRequest body = request.body();
        ProduceResponse response = new ProduceResponse();
        long requestBytes = 0;
        for (ProduceRequest.TopicProduceData topicData : body.topicData()) {
            ProduceResponse.TopicProduceResponse topic = new ProduceResponse.TopicProduceResponse()
                    .setName(topicData.name()).setTopicId(topicData.topicId());
            for (ProduceRequest.PartitionProduceData data : topicData.partitionData()) {
                ProduceResponse.PartitionProduceResponse p = new ProduceResponse.PartitionProduceResponse().setIndex(data.index());
                fail(p, error, null);
                topic.partitionResponses().add(p);
            }
            response.responses().add(topic);
        }
        return response;
    }
}
