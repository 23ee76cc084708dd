package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ElectLeadersRequest;
import io.krill.wire.message.ElectLeadersResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ElectLeaders (kafka-leader-election, Admin.electLeaders): preferred (v0, and electionType 0) or unclean
 * (electionType 1, KIP-460) elections through the metadata store, one result per partition grouped by
 * topic in request order (a partition named twice is answered once). A null partition list means every
 * partition of the cluster, and then, as Kafka's controller does, partitions whose election was not
 * needed are left out. An unknown election type is INVALID_REQUEST for the whole request. Needs ALTER on
 * the cluster: otherwise CLUSTER_AUTHORIZATION_FAILED, top-level (v1+) and for every partition.
 *
 * <p>Thread-safe: stateless; the store serialises the elections, on its administration thread: the
 * answer goes out from there ({@link PendingAnswer}), the request thread never waits for ZooKeeper.
 */
public final class ElectLeadersHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public ElectLeadersHandler(BrokerContext context) {
        super(ApiKeys.ELECT_LEADERS, 0, 2);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        ElectLeadersRequest body = request.body();
        context.authorization().requireCluster(request, AclOperation.ALTER);
        ElectionType type = ElectionType.forValue(body.electionType()); // v0 has none: 0, preferred
        boolean all = body.topicPartitions() == null;
        List<TopicPartitionKey> partitions = all ? everyPartition(context.metadata().image()) : requested(body);
        PendingAnswer.respondWhenDone(request, this, context.metadata().electLeadersAsync(type, partitions),
                results -> response(results, all));
    }

    private static ElectLeadersResponse response(Map<TopicPartitionKey, ApiError> results, boolean all) {
        Map<String, ElectLeadersResponse.ReplicaElectionResult> byTopic = new LinkedHashMap<>();
        for (Map.Entry<TopicPartitionKey, ApiError> result : results.entrySet()) {
            ApiError error = result.getValue();
            if (all && error.error() == Errors.ELECTION_NOT_NEEDED) {
                continue;
            }
            TopicPartitionKey key = result.getKey();
            byTopic.computeIfAbsent(key.topic(), topic -> new ElectLeadersResponse.ReplicaElectionResult().setTopic(topic))
                    .partitionResult().add(new ElectLeadersResponse.PartitionResult()
                            .setPartitionId(key.partition())
                            .setErrorCode(error.error().code())
                            .setErrorMessage(error.message()));
        }
        return new ElectLeadersResponse().setReplicaElectionResults(new ArrayList<>(byTopic.values()));
    }

    /** The request's partitions, each once, in request order. */
    private static List<TopicPartitionKey> requested(ElectLeadersRequest body) {
        Set<TopicPartitionKey> partitions = new LinkedHashSet<>();
        for (ElectLeadersRequest.TopicPartitions topic : body.topicPartitions()) {
            for (int partition : topic.partitions()) {
                partitions.add(new TopicPartitionKey(topic.topic(), partition));
            }
        }
        return new ArrayList<>(partitions);
    }

    /** Every partition of the cluster, by topic name and index. */
    private static List<TopicPartitionKey> everyPartition(MetadataImage image) {
        List<TopicImage> topics = new ArrayList<>(image.topics());
        topics.sort(Comparator.comparing(TopicImage::name));
        List<TopicPartitionKey> partitions = new ArrayList<>();
        for (TopicImage topic : topics) {
            for (PartitionState state : topic.partitions()) {
                partitions.add(new TopicPartitionKey(topic.name(), state.partition()));
            }
        }
        return partitions;
    }

    /** Every requested partition answered with {@code error}; v1+ also carries it at the top. */
    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        ElectLeadersRequest body = request.body();
        ElectLeadersResponse response = new ElectLeadersResponse();
        if (request.version() >= 1) {
            response.setErrorCode(error.code());
        }
        if (body.topicPartitions() != null) {
            for (ElectLeadersRequest.TopicPartitions topic : body.topicPartitions()) {
                ElectLeadersResponse.ReplicaElectionResult result = new ElectLeadersResponse.ReplicaElectionResult()
                        .setTopic(topic.topic());
                for (int partition : new LinkedHashSet<>(topic.partitions())) {
                    result.partitionResult().add(new ElectLeadersResponse.PartitionResult()
                            .setPartitionId(partition)
                            .setErrorCode(error.code())
                            .setErrorMessage(error.message()));
                }
                response.replicaElectionResults().add(result);
            }
        }
        return response;
    }
}
