package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.config.ConfigDescriber;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.DescribedConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.config.TopicConfigValidator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufCodec;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CreateTopics: checks each topic in Kafka's order (name, existence, configs, partitions and replicas),
 * then creates it in the metadata store, or only checks it under validateOnly. A name given twice is
 * INVALID_REQUEST for that name. From v5 a created topic is answered with its partition count,
 * replication factor and effective configs as DescribeConfigs reports them; v7 adds its id. The store
 * is synchronous, so timeoutMs never expires. Authorization as Kafka's: CREATE on the cluster or the
 * topic (TOPIC_AUTHORIZATION_FAILED otherwise); the v5+ configs need DESCRIBE_CONFIGS on the topic
 * (else topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED and no configs).
 *
 * <p>Thread-safe: stateless; the store serialises concurrent creations.
 */
public final class CreateTopicsHandler extends AbstractApiHandler {
    /**
     * Kafka's controller refuses an operation writing more than 10,000 metadata records (about one per
     * partition); Krill keeps that bound, which also caps the log directories one request creates.
     */
    static final int MAX_PARTITIONS_PER_REQUEST = 10_000;

    private final BrokerContext context;

    public CreateTopicsHandler(BrokerContext context) {
        super(ApiKeys.CREATE_TOPICS, 2, 7);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        CreateTopicsRequest body = request.body();
        Map<String, Integer> occurrences = new HashMap<>();
        for (CreateTopicsRequest.CreatableTopic topic : body.topics()) {
            occurrences.merge(topic.name(), 1, Integer::sum);
        }
        MetadataImage image = context.metadata().image();
        Map<String, CreateTopicsResponse.CreatableTopicResult> results = new LinkedHashMap<>();
        Map<String, NewTopic> planned = new LinkedHashMap<>();
        Set<String> duplicates = new LinkedHashSet<>();
        long partitions = 0;
        boolean clusterCreate = context.authorization().cluster(request, AclOperation.CREATE);
        for (CreateTopicsRequest.CreatableTopic topic : body.topics()) {
            if (occurrences.get(topic.name()) > 1) {
                duplicates.add(topic.name());
                continue;
            }
            if (!clusterCreate && !context.authorization().topic(request, AclOperation.CREATE, topic.name())) {
                results.put(topic.name(), error(topic.name(), Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed."));
                continue;
            }
            try {
                NewTopic spec = plan(image, topic);
                planned.put(topic.name(), spec);
                partitions += partitionCount(spec);
                results.put(topic.name(), null); // its place in request order; answered below
            } catch (ApiException e) {
                results.put(topic.name(), error(topic.name(), e.error(), e.getMessage()));
            }
        }
        boolean tooLarge = partitions > MAX_PARTITIONS_PER_REQUEST;
        for (Map.Entry<String, NewTopic> entry : planned.entrySet()) {
            results.put(entry.getKey(), tooLarge
                    ? error(entry.getKey(), Errors.POLICY_VIOLATION, "Unable to perform excessively large batch operation.")
                    : create(entry.getValue(), body.validateOnly(), request.version(),
                            context.authorization().topic(request, AclOperation.DESCRIBE_CONFIGS, entry.getKey())));
        }
        CreateTopicsResponse response = new CreateTopicsResponse();
        response.topics().addAll(results.values());
        for (String name : duplicates) {
            response.topics().add(error(name, Errors.INVALID_REQUEST, "Duplicate topic name."));
        }
        request.respond(response);
    }

    /** Kafka's checks before placement, and the -1 defaults resolved; the store checks the rest. */
    private NewTopic plan(MetadataImage image, CreateTopicsRequest.CreatableTopic topic) {
        String name = topic.name();
        TopicNames.validate(name);
        if (image.topic(name) != null) {
            throw new ApiException(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
        }
        for (TopicImage existing : image.topics()) {
            if (TopicNames.collide(existing.name(), name)) {
                throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + name
                        + "' collides with existing topic: " + existing.name());
            }
        }
        Map<String, String> configs = validatedConfigs(topic);
        if (!topic.assignments().isEmpty()) {
            return new NewTopic(name, -1, -1, manualAssignments(topic), configs, TopicNames.isInternal(name));
        }
        if (topic.replicationFactor() < -1 || topic.replicationFactor() == 0) {
            throw new ApiException(Errors.INVALID_REPLICATION_FACTOR,
                    "Replication factor must be larger than 0, or -1 to use the default value.");
        }
        if (topic.numPartitions() < -1 || topic.numPartitions() == 0) {
            throw new ApiException(Errors.INVALID_PARTITIONS,
                    "Number of partitions was set to an invalid non-positive value.");
        }
        int numPartitions = topic.numPartitions() == -1 ? context.config().log().numPartitions() : topic.numPartitions();
        int replicationFactor = topic.replicationFactor() == -1
                ? context.config().replication().defaultReplicationFactor() : topic.replicationFactor();
        return new NewTopic(name, numPartitions, replicationFactor, Map.of(), configs, TopicNames.isInternal(name));
    }

    private Map<String, String> validatedConfigs(CreateTopicsRequest.CreatableTopic topic) {
        Map<String, String> configs = new HashMap<>();
        for (CreateTopicsRequest.CreatableTopicConfig config : topic.configs()) {
            configs.put(config.name(), config.value());
        }
        try {
            return TopicConfigValidator.validate(configs, context.config());
        } catch (ConfigException e) {
            throw new ApiException(Errors.INVALID_CONFIG, e.getMessage());
        }
    }

    private static Map<Integer, List<Integer>> manualAssignments(CreateTopicsRequest.CreatableTopic topic) {
        if (topic.replicationFactor() != -1) {
            throw new ApiException(Errors.INVALID_REQUEST,
                    "A manual partition assignment was specified, but replication factor was not set to -1.");
        }
        if (topic.numPartitions() != -1) {
            throw new ApiException(Errors.INVALID_REQUEST,
                    "A manual partition assignment was specified, but numPartitions was not set to -1.");
        }
        Map<Integer, List<Integer>> assignments = new HashMap<>();
        for (CreateTopicsRequest.CreatableReplicaAssignment assignment : topic.assignments()) {
            if (assignments.put(assignment.partitionIndex(), assignment.brokerIds()) != null) {
                throw new ApiException(Errors.INVALID_REPLICA_ASSIGNMENT,
                        "Found multiple manual partition assignments for partition " + assignment.partitionIndex());
            }
        }
        return assignments;
    }

    /** @param configsVisible whether the principal may DESCRIBE_CONFIGS the topic (else the v5+ configs are refused) */
    private CreateTopicsResponse.CreatableTopicResult create(NewTopic spec, boolean validateOnly, short version,
                                                             boolean configsVisible) {
        TopicImage created;
        try {
            if (validateOnly) {
                context.metadata().checkCreateTopic(spec);
                created = null;
            } else {
                created = context.metadata().createTopic(spec);
            }
        } catch (ApiException e) {
            return error(spec.name(), e.error(), e.getMessage());
        }
        CreateTopicsResponse.CreatableTopicResult result = new CreateTopicsResponse.CreatableTopicResult()
                .setName(spec.name())
                .setTopicId(created == null ? ByteBufCodec.ZERO_UUID : created.id())
                .setErrorMessage(null);
        if (version >= 5) {
            int replicas = spec.assignments().isEmpty() ? spec.replicationFactor() : spec.assignments().get(0).size();
            result.setNumPartitions(partitionCount(spec)).setReplicationFactor((short) replicas);
            if (!configsVisible) {
                return result.setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            TopicConfig config = TopicConfig.resolve(spec.configs(), context.config());
            for (DescribedConfig entry : ConfigDescriber.describeTopic(config, context.config())) {
                result.configs().add(new CreateTopicsResponse.CreatableTopicConfigs()
                        .setName(entry.name())
                        .setValue(entry.value())
                        .setReadOnly(entry.readOnly())
                        .setConfigSource((byte) entry.source().id())
                        .setIsSensitive(entry.sensitive()));
            }
        }
        return result;
    }

    private static int partitionCount(NewTopic spec) {
        return spec.assignments().isEmpty() ? spec.numPartitions() : spec.assignments().size();
    }

    private static CreateTopicsResponse.CreatableTopicResult error(String name, Errors error, String message) {
        return new CreateTopicsResponse.CreatableTopicResult()
                .setName(name)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        CreateTopicsRequest body = request.body();
        CreateTopicsResponse response = new CreateTopicsResponse();
        for (CreateTopicsRequest.CreatableTopic topic : body.topics()) {
            response.topics().add(error(topic.name(), error, error.message()));
        }
        return response;
    }
}
