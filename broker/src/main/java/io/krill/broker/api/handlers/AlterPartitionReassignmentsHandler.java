package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterPartitionReassignmentsRequest;
import io.krill.wire.message.AlterPartitionReassignmentsResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AlterPartitionReassignments (kafka-reassign-partitions --execute / --cancel,
 * Admin.alterPartitionReassignments): per partition, a replica list starts (or replaces) a reassignment
 * to it and a null list cancels the partition's reassignment. The metadata store checks and starts them;
 * the active controller completes each once its target replicas are in the ISR. One result per
 * partition grouped by topic in request order (a partition named twice: its last target counts). v1
 * adds allowReplicationFactorChange (KIP-860; v0 allows it), echoed in the response.
 *
 * <p>Thread-safe: stateless; the store serialises the changes, on its administration thread: the answer
 * goes out from there ({@link PendingAnswer}), the request thread never waits for ZooKeeper.
 */
public final class AlterPartitionReassignmentsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public AlterPartitionReassignmentsHandler(BrokerContext context) {
        super(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, 0, 1);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        AlterPartitionReassignmentsRequest body = request.body();
        context.authorization().requireCluster(request, AclOperation.ALTER);
        Map<TopicPartitionKey, Optional<List<Integer>>> targets = new LinkedHashMap<>();
        for (AlterPartitionReassignmentsRequest.ReassignableTopic topic : body.topics()) {
            for (AlterPartitionReassignmentsRequest.ReassignablePartition partition : topic.partitions()) {
                TopicPartitionKey key = new TopicPartitionKey(topic.name(), partition.partitionIndex());
                targets.put(key, Optional.ofNullable(partition.replicas()).map(List::copyOf));
            }
        }
        PendingAnswer.respondWhenDone(request, this,
                context.metadata().alterPartitionReassignmentsAsync(targets, body.allowReplicationFactorChange()),
                results -> response(results, body.allowReplicationFactorChange()));
    }

    private static AlterPartitionReassignmentsResponse response(Map<TopicPartitionKey, ApiError> results,
                                                                boolean allowReplicationFactorChange) {
        Map<String, AlterPartitionReassignmentsResponse.ReassignableTopicResponse> byTopic = new LinkedHashMap<>();
        for (Map.Entry<TopicPartitionKey, ApiError> result : results.entrySet()) {
            TopicPartitionKey key = result.getKey();
            byTopic.computeIfAbsent(key.topic(), name -> new AlterPartitionReassignmentsResponse.ReassignableTopicResponse()
                    .setName(name)).partitions().add(partitionResponse(key.partition(), result.getValue().error(),
                    result.getValue().message()));
        }
        return new AlterPartitionReassignmentsResponse()
                .setAllowReplicationFactorChange(allowReplicationFactorChange)
                .setResponses(new ArrayList<>(byTopic.values()));
    }

    private static AlterPartitionReassignmentsResponse.ReassignablePartitionResponse partitionResponse(
            int partition, Errors error, String message) {
        return new AlterPartitionReassignmentsResponse.ReassignablePartitionResponse()
                .setPartitionIndex(partition)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }

    /** The error at the top and on every requested partition. */
    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        AlterPartitionReassignmentsRequest body = request.body();
        AlterPartitionReassignmentsResponse response = new AlterPartitionReassignmentsResponse()
                .setAllowReplicationFactorChange(body.allowReplicationFactorChange())
                .setErrorCode(error.code())
                .setErrorMessage(error.message());
        for (AlterPartitionReassignmentsRequest.ReassignableTopic topic : body.topics()) {
            AlterPartitionReassignmentsResponse.ReassignableTopicResponse result =
                    new AlterPartitionReassignmentsResponse.ReassignableTopicResponse().setName(topic.name());
            for (AlterPartitionReassignmentsRequest.ReassignablePartition partition : topic.partitions()) {
                result.partitions().add(partitionResponse(partition.partitionIndex(), error, error.message()));
            }
            response.responses().add(result);
        }
        return response;
    }
}
