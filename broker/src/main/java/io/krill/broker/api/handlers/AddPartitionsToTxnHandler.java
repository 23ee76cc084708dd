package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AddPartitionsToTxnRequest;
import io.krill.wire.message.AddPartitionsToTxnResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AddPartitionsToTxn v0-5. v0-3 are the producers' form: one transaction whose partitions are added
 * (the transaction opens with the first); v4-5 are the brokers' batched form (KIP-890 part 1), each
 * transaction either added (for a Produce v12+ or TxnOffsetCommit v5+ of transaction version 2, KIP-890
 * part 2) or, with VerifyOnly, checked (NONE or INVALID_TXN_STATE per partition).
 * Partitions of topics that do not exist are UNKNOWN_TOPIC_OR_PARTITION and the rest of that
 * transaction OPERATION_NOT_ATTEMPTED, as in Kafka. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v2.
 *
 * <p>Thread-safe: stateless.
 */
public final class AddPartitionsToTxnHandler extends AbstractApiHandler {
    private final BrokerContext context;
    private final TransactionCoordinator coordinator;

    public AddPartitionsToTxnHandler(BrokerContext context, TransactionCoordinator coordinator) {
        super(ApiKeys.ADD_PARTITIONS_TO_TXN, 0, 5);
        this.context = context;
        this.coordinator = coordinator;
    }

    @Override
    public void handle(Request request) {
        AddPartitionsToTxnRequest body = request.body();
        short version = request.version();
        if (version >= 4) {
            // v4+ is sent by brokers verifying a producer's partitions (KIP-890).
            context.authorization().requireCluster(request, AclOperation.CLUSTER_ACTION);
        }
        checkIndexes(version <= 3 ? body.v3AndBelowTopics() : body.transactions().stream()
                .flatMap(txn -> txn.topics().stream()).toList());
        if (version <= 3) {
            add(request, body.v3AndBelowTransactionalId(), body.v3AndBelowProducerId(), body.v3AndBelowProducerEpoch(), false,
                    body.v3AndBelowTopics(), version).thenAccept(results ->
                            request.respond(new AddPartitionsToTxnResponse().setResultsByTopicV3AndBelow(results)));
            return;
        }
        List<CompletableFuture<AddPartitionsToTxnResponse.AddPartitionsToTxnResult>> pending = new ArrayList<>();
        for (AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction txn : body.transactions()) {
            pending.add(add(request, txn.transactionalId(), txn.producerId(), txn.producerEpoch(), txn.verifyOnly(), txn.topics(),
                    version).thenApply(results -> new AddPartitionsToTxnResponse.AddPartitionsToTxnResult()
                            .setTransactionalId(txn.transactionalId()).setTopicResults(results)));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenRun(() -> {
            AddPartitionsToTxnResponse response = new AddPartitionsToTxnResponse();
            for (CompletableFuture<AddPartitionsToTxnResponse.AddPartitionsToTxnResult> result : pending) {
                response.resultsByTransaction().add(result.join());
            }
            request.respond(response);
        });
    }

    private static void checkIndexes(List<AddPartitionsToTxnRequest.AddPartitionsToTxnTopic> topics) {
        for (AddPartitionsToTxnRequest.AddPartitionsToTxnTopic topic : topics) {
            for (int index : topic.partitions()) {
                if (index < 0 || topic.name() == null) {
                    throw new ApiException(Errors.INVALID_REQUEST, "partition " + index + " of " + topic.name());
                }
            }
        }
    }

    private CompletableFuture<List<AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult>> add(
            Request request, String transactionalId, long producerId, short producerEpoch, boolean verifyOnly,
            List<AddPartitionsToTxnRequest.AddPartitionsToTxnTopic> topics, short version) {
        CompletableFuture<List<AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult>> future = new CompletableFuture<>();
        MetadataImage image = context.metadata().image();
        Authorization authorization = context.authorization();
        // v0-3 come from producers: WRITE on the transactional id and the topics; v4+ from brokers (CLUSTER_ACTION).
        boolean client = version < 4;
        boolean idAllowed = !client || authorization.transactionalId(request, AclOperation.WRITE, transactionalId);
        Set<String> deniedTopics = client ? authorization.deniedTopics(request, AclOperation.WRITE, topics,
                AddPartitionsToTxnRequest.AddPartitionsToTxnTopic::name) : Set.of();
        Set<TopicPartition> partitions = new LinkedHashSet<>();
        Map<TopicPartition, Errors> unknown = new LinkedHashMap<>();
        for (AddPartitionsToTxnRequest.AddPartitionsToTxnTopic topic : topics) {
            TopicImage known = image.topic(topic.name());
            for (int index : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.name(), index);
                partitions.add(tp);
                if (!idAllowed) {
                    unknown.put(tp, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
                } else if (deniedTopics.contains(topic.name())) {
                    unknown.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (known == null || index >= known.partitionCount()) {
                    unknown.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        if (!unknown.isEmpty()) {
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                errors.put(tp, unknown.getOrDefault(tp, Errors.OPERATION_NOT_ATTEMPTED));
            }
            future.complete(results(errors));
            return future;
        }
        if (verifyOnly) {
            future.complete(results(coordinator.verify(transactionalId, producerId, producerEpoch, partitions)));
            return future;
        }
        // v4+ without VerifyOnly: a leader or group coordinator adding for a transaction of version 2.
        coordinator.addPartitions(transactionalId, producerId, producerEpoch, partitions, !client, error -> {
            Errors answered = TxnErrors.forVersion(error, version, 2);
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            partitions.forEach(tp -> errors.put(tp, answered));
            future.complete(results(errors));
        });
        return future;
    }

    private static List<AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult> results(Map<TopicPartition, Errors> errors) {
        Map<String, AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult> byTopic = new LinkedHashMap<>();
        errors.forEach((tp, error) -> byTopic.computeIfAbsent(tp.topic(),
                        t -> new AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult().setName(t))
                .resultsByPartition().add(new AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult()
                        .setPartitionIndex(tp.partition()).setPartitionErrorCode(error.code())));
        return new ArrayList<>(byTopic.values());
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        AddPartitionsToTxnRequest body = request.body();
        if (request.version() >= 4) {
            return new AddPartitionsToTxnResponse().setErrorCode(error.code());
        }
        short code = TxnErrors.forVersion(error, request.version(), 2).code();
        AddPartitionsToTxnResponse response = new AddPartitionsToTxnResponse();
        for (AddPartitionsToTxnRequest.AddPartitionsToTxnTopic topic : body.v3AndBelowTopics()) {
            AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult result =
                    new AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult().setName(topic.name());
            for (int index : topic.partitions()) {
                result.resultsByPartition().add(new AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult()
                        .setPartitionIndex(index).setPartitionErrorCode(code));
            }
            response.resultsByTopicV3AndBelow().add(result);
        }
        return response;
    }
}
