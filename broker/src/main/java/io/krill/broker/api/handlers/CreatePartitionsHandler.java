package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreatePartitionsRequest;
import io.krill.wire.message.CreatePartitionsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * CreatePartitions: grows topics to a new partition count, placing the new partitions automatically or
 * as the request assigns them, or only checks that it could (validateOnly). Errors as Kafka's
 * controller gives them: a topic named twice INVALID_REQUEST, UNKNOWN_TOPIC_OR_PARTITION,
 * INVALID_PARTITIONS for no increase, INVALID_REPLICA_ASSIGNMENT for a wrong number of assignments or a
 * replica list this cluster cannot host, POLICY_VIOLATION past {@link
 * CreateTopicsHandler#MAX_PARTITIONS_PER_REQUEST} new partitions.
 *
 * <p>Thread-safe: stateless; the store serialises changes.
 */
public final class CreatePartitionsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public CreatePartitionsHandler(BrokerContext context) {
        super(ApiKeys.CREATE_PARTITIONS, 0, 3);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        CreatePartitionsRequest body = request.body();
        Map<String, Integer> occurrences = new HashMap<>();
        for (CreatePartitionsRequest.CreatePartitionsTopic topic : body.topics()) {
            occurrences.merge(topic.name(), 1, Integer::sum);
        }
        Set<String> duplicates = new LinkedHashSet<>();
        MetadataImage image = context.metadata().image();
        long added = 0;
        for (CreatePartitionsRequest.CreatePartitionsTopic topic : body.topics()) {
            TopicImage existing = image.topic(topic.name());
            if (occurrences.get(topic.name()) == 1 && existing != null && topic.count() > existing.partitionCount()) {
                added += topic.count() - existing.partitionCount();
            }
        }
        CreatePartitionsResponse response = new CreatePartitionsResponse();
        List<CompletableFuture<Void>> changes = new ArrayList<>();
        for (CreatePartitionsRequest.CreatePartitionsTopic topic : body.topics()) {
            if (occurrences.get(topic.name()) > 1) {
                duplicates.add(topic.name());
            } else if (!context.authorization().topic(request, AclOperation.ALTER, topic.name())) {
                response.results().add(result(topic.name(), Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed."));
            } else if (added > CreateTopicsHandler.MAX_PARTITIONS_PER_REQUEST) {
                response.results().add(result(topic.name(), Errors.POLICY_VIOLATION,
                        "Unable to perform excessively large batch operation."));
            } else {
                CreatePartitionsResponse.CreatePartitionsTopicResult result = result(topic.name(), Errors.NONE, null);
                response.results().add(result);
                CompletableFuture<?> change = grow(image, topic, body.validateOnly());
                changes.add(PendingAnswer.onFailure(change, topic.name(),
                        (error, message) -> result.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        for (String name : duplicates) {
            response.results().add(result(name, Errors.INVALID_REQUEST, "Duplicate topic name."));
        }
        PendingAnswer.respondWhenDone(request, this, changes, () -> response);
    }

    /**
     * The topic's growth, or only its check (validateOnly, read from the image on this thread); the store
     * grows it on its administration thread, so the request thread never waits for ZooKeeper.
     */
    private CompletableFuture<?> grow(MetadataImage image, CreatePartitionsRequest.CreatePartitionsTopic topic,
                                      boolean validateOnly) {
        try {
            List<List<Integer>> assignments = assignments(image, topic);
            if (validateOnly) {
                context.metadata().checkCreatePartitions(topic.name(), topic.count(), assignments);
                return CompletableFuture.completedFuture(null);
            }
            return context.metadata().createPartitionsAsync(topic.name(), topic.count(), assignments);
        } catch (ApiException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The replica lists of the new partitions, empty for automatic placement. The store reads an empty
     * list as "place them yourself", so a present but empty list is refused here, as Kafka does.
     */
    private static List<List<Integer>> assignments(MetadataImage image, CreatePartitionsRequest.CreatePartitionsTopic topic) {
        if (topic.assignments() == null) {
            return List.of();
        }
        TopicImage existing = image.topic(topic.name());
        if (topic.assignments().isEmpty() && existing != null && topic.count() > existing.partitionCount()) {
            throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT, "Attempted to add "
                    + (topic.count() - existing.partitionCount()) + " additional partition(s), but only 0 assignment(s)"
                    + " were specified.");
        }
        List<List<Integer>> assignments = new ArrayList<>(topic.assignments().size());
        for (CreatePartitionsRequest.CreatePartitionsAssignment assignment : topic.assignments()) {
            assignments.add(assignment.brokerIds());
        }
        return assignments;
    }

    private static CreatePartitionsResponse.CreatePartitionsTopicResult result(String name, Errors error, String message) {
        return new CreatePartitionsResponse.CreatePartitionsTopicResult()
                .setName(name)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        CreatePartitionsRequest body = request.body();
        CreatePartitionsResponse response = new CreatePartitionsResponse();
        List<CompletableFuture<Void>> changes = new ArrayList<>();
        for (CreatePartitionsRequest.CreatePartitionsTopic topic : body.topics()) {
            response.results().add(result(topic.name(), error, error.message()));
        }
        return response;
    }
}
