package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.PartitionReassignment;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListPartitionReassignmentsRequest;
import io.krill.wire.message.ListPartitionReassignmentsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * ListPartitionReassignments (kafka-reassign-partitions --verify and --list,
 * Admin.listPartitionReassignments): the reassignments in progress, of the requested partitions or
 * (null topics) of all, each with its replicas and the replicas being added and removed, by topic name
 * and partition. As Kafka's controller does, partitions that do not exist or are not being reassigned
 * are left out rather than answered with an error.
 *
 * <p>Thread-safe: stateless; reads one metadata image.
 */
public final class ListPartitionReassignmentsHandler extends AbstractApiHandler {
    private static final Comparator<TopicPartitionKey> ORDER =
            Comparator.comparing(TopicPartitionKey::topic).thenComparingInt(TopicPartitionKey::partition);

    private final BrokerContext context;

    public ListPartitionReassignmentsHandler(BrokerContext context) {
        super(ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0, 0);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        ListPartitionReassignmentsRequest body = request.body();
        context.authorization().requireCluster(request, AclOperation.DESCRIBE);
        Optional<Set<TopicPartitionKey>> requested = Optional.empty();
        if (body.topics() != null) {
            Set<TopicPartitionKey> partitions = new LinkedHashSet<>();
            for (ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics topic : body.topics()) {
                for (int partition : topic.partitionIndexes()) {
                    partitions.add(new TopicPartitionKey(topic.name(), partition));
                }
            }
            requested = Optional.of(partitions);
        }
        Map<TopicPartitionKey, PartitionReassignment> ongoing = new TreeMap<>(ORDER);
        ongoing.putAll(context.metadata().listPartitionReassignments(requested));
        Map<String, ListPartitionReassignmentsResponse.OngoingTopicReassignment> byTopic = new TreeMap<>();
        for (Map.Entry<TopicPartitionKey, PartitionReassignment> entry : ongoing.entrySet()) {
            PartitionReassignment reassignment = entry.getValue();
            byTopic.computeIfAbsent(entry.getKey().topic(),
                    name -> new ListPartitionReassignmentsResponse.OngoingTopicReassignment().setName(name))
                    .partitions().add(new ListPartitionReassignmentsResponse.OngoingPartitionReassignment()
                            .setPartitionIndex(entry.getKey().partition())
                            .setReplicas(new ArrayList<>(reassignment.replicas()))
                            .setAddingReplicas(new ArrayList<>(reassignment.addingReplicas()))
                            .setRemovingReplicas(new ArrayList<>(reassignment.removingReplicas())));
        }
        request.respond(new ListPartitionReassignmentsResponse().setTopics(new ArrayList<>(byTopic.values())));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ListPartitionReassignmentsResponse()
                .setErrorCode(error.code())
                .setErrorMessage(error.message());
    }
}
