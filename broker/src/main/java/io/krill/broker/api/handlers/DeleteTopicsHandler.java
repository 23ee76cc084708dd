package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteTopicsRequest;
import io.krill.wire.message.DeleteTopicsResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufCodec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteTopics by name (v1-5) or by name or id (v6), with Kafka's controller rules: a name or id given
 * twice, or both given for one topic, is INVALID_REQUEST; unknown names UNKNOWN_TOPIC_OR_PARTITION,
 * unknown ids UNKNOWN_TOPIC_ID. With {@code delete.topic.enable=false} every topic fails with
 * TOPIC_DELETION_DISABLED (INVALID_REQUEST before v3). Internal topics (group and transaction state) are
 * refused with INVALID_TOPIC_EXCEPTION. The partition manager removes the logs when the store publishes
 * the deletion, before this answers. Deletions run on the store's administration thread ({@code
 * deleteTopicAsync}) and the answer goes out once all are done ({@link PendingAnswer}): the request
 * thread never waits for ZooKeeper.
 *
 * <p>Thread-safe: stateless; the store serialises deletions.
 */
public final class DeleteTopicsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public DeleteTopicsHandler(BrokerContext context) {
        super(ApiKeys.DELETE_TOPICS, 1, 6);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        if (!context.config().deleteTopicEnable()) {
            throw request.version() < 3
                    ? new ApiException(Errors.INVALID_REQUEST, "Topic deletion is disabled.")
                    : new ApiException(Errors.TOPIC_DELETION_DISABLED, Errors.TOPIC_DELETION_DISABLED.message());
        }
        List<DeleteTopicsResponse.DeletableTopicResult> results = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        Set<String> duplicateNames = new LinkedHashSet<>();
        Set<UUID> ids = new LinkedHashSet<>();
        Set<UUID> duplicateIds = new LinkedHashSet<>();
        for (DeleteTopicState topic : requested(request)) {
            if (topic.name() != null && !topic.id().equals(ByteBufCodec.ZERO_UUID)) {
                results.add(result(topic.name(), topic.id(), Errors.INVALID_REQUEST,
                        "You may not specify both topic name and topic id."));
            } else if (topic.name() != null) {
                addOnce(topic.name(), names, duplicateNames);
            } else if (topic.id().equals(ByteBufCodec.ZERO_UUID)) {
                results.add(result(null, ByteBufCodec.ZERO_UUID, Errors.INVALID_REQUEST,
                        "Neither topic name nor id were specified."));
            } else {
                addOnce(topic.id(), ids, duplicateIds);
            }
        }
        for (String name : duplicateNames) {
            results.add(result(name, ByteBufCodec.ZERO_UUID, Errors.INVALID_REQUEST, "Duplicate topic name."));
        }
        for (UUID id : duplicateIds) {
            results.add(result(null, id, Errors.INVALID_REQUEST, "Duplicate topic id."));
        }
        MetadataImage image = context.metadata().image();
        Map<UUID, String> toDelete = new LinkedHashMap<>();
        for (UUID id : ids) {
            TopicImage topic = image.topic(id);
            if (topic == null) {
                results.add(result(null, id, Errors.UNKNOWN_TOPIC_ID, Errors.UNKNOWN_TOPIC_ID.message()));
            } else if (!context.authorization().topic(request, AclOperation.DESCRIBE, topic.name())) {
                // As Kafka: the name is not given away to a principal that may not describe the topic.
                results.add(result(null, id, Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed."));
            } else if (!context.authorization().topic(request, AclOperation.DELETE, topic.name())) {
                results.add(result(topic.name(), id, Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed."));
            } else {
                toDelete.put(id, topic.name());
            }
        }
        for (String name : names) {
            TopicImage topic = image.topic(name);
            if (!context.authorization().topic(request, AclOperation.DELETE, name)) {
                results.add(result(name, ByteBufCodec.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED,
                        "Authorization failed."));
            } else if (topic == null) {
                results.add(result(name, ByteBufCodec.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION.message()));
            } else if (toDelete.containsKey(topic.id())) {
                toDelete.remove(topic.id());
                results.add(result(name, topic.id(), Errors.INVALID_REQUEST,
                        "The provided topic name maps to an ID that was already supplied."));
            } else {
                toDelete.put(topic.id(), name);
            }
        }
        List<CompletableFuture<Void>> deletions = new ArrayList<>(toDelete.size());
        for (Map.Entry<UUID, String> entry : toDelete.entrySet()) {
            TopicImage topic = image.topic(entry.getKey());
            if (topic.internal() || TopicNames.isInternal(topic.name())) {
                results.add(result(topic.name(), topic.id(), Errors.INVALID_TOPIC_EXCEPTION,
                        "Topic " + topic.name() + " is an internal topic and cannot be deleted."));
                continue;
            }
            DeleteTopicsResponse.DeletableTopicResult deleted = result(topic.name(), topic.id(), Errors.NONE, null);
            results.add(deleted);
            deletions.add(PendingAnswer.onFailure(context.metadata().deleteTopicAsync(topic.name()), topic.name(),
                    (error, message) -> deleted.setErrorCode(error.code()).setErrorMessage(message)));
        }
        DeleteTopicsResponse response = new DeleteTopicsResponse().setResponses(results);
        PendingAnswer.respondWhenDone(request, this, deletions, () -> response);
    }

    private static <T> void addOnce(T value, Set<T> seen, Set<T> duplicates) {
        if (duplicates.contains(value) || !seen.add(value)) {
            duplicates.add(value);
            seen.remove(value);
        }
    }

    /** A topic as the request names it: v6 by name or id, before v6 by name only. */
    private record DeleteTopicState(String name, UUID id) {
    }

    private static List<DeleteTopicState> requested(Request request) {
        DeleteTopicsRequest body = request.body();
        List<DeleteTopicState> topics = new ArrayList<>();
        if (request.version() >= 6) {
            for (DeleteTopicsRequest.DeleteTopicState topic : body.topics()) {
                topics.add(new DeleteTopicState(topic.name(), topic.topicId()));
            }
        } else {
            for (String name : body.topicNames()) {
                topics.add(new DeleteTopicState(name, ByteBufCodec.ZERO_UUID));
            }
        }
        return topics;
    }

    private static DeleteTopicsResponse.DeletableTopicResult result(String name, UUID id, Errors error, String message) {
        return new DeleteTopicsResponse.DeletableTopicResult()
                .setName(name)
                .setTopicId(id)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        List<DeleteTopicsResponse.DeletableTopicResult> results = new ArrayList<>();
        for (DeleteTopicState topic : requested(request)) {
            results.add(result(topic.name(), topic.id(), error, null));
        }
        return new DeleteTopicsResponse().setResponses(results);
    }
}
