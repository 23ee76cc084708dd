package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.config.ConfigDescriber;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.DescribedConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.config.TopicConfigValidator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreateTopics: checks each topic in Kafka's order (name, existence, configs, partitions and replicas),
 * then creates it in the metadata store, or only checks it under validateOnly. A name given twice is
 * INVALID_REQUEST for that name. From v5 a created topic is answered with its partition count,
 * replication factor and effective configs as DescribeConfigs reports them; v7 adds its id. Authorization
 * as Kafka's: CREATE on the cluster or the topic (TOPIC_AUTHORIZATION_FAILED otherwise); the v5+ configs
 * need DESCRIBE_CONFIGS on the topic (else topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED and no
 * configs).
 *
 * <p>Asynchronous: every planned topic goes to the store in one {@link io.krill.controller.metadata.MetadataStore#createTopics}
 * call, and the request is answered when its future completes (on the store's thread), so the request
 * thread never waits for ZooKeeper. timeoutMs is not applied: the answer comes when the store has
 * decided. A failed future is answered too (UNKNOWN_SERVER_ERROR per topic, logged). validateOnly and
 * the POLICY_VIOLATION refusal are answered at once.
 *
 * <p>Thread-safe: stateless (each request's state lives in its callback); the store serialises
 * concurrent creations.
 */
public final class CreateTopicsHandler extends AbstractApiHandler {
    private static final Logger LOG = LoggerFactory.getLogger(CreateTopicsHandler.class);

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
        // Every answer's body (v5+ configs included) is built here, on the request thread: the callback,
        // on the store's thread, only fills in the outcome.
        short version = request.version();
        Map<String, CreateTopicsResponse.CreatableTopicResult> answers = new HashMap<>();
        if (!tooLarge) {
            for (NewTopic spec : planned.values()) {
                answers.put(spec.name(), created(spec, version,
                        context.authorization().topic(request, AclOperation.DESCRIBE_CONFIGS, spec.name())));
            }
        }
        if (tooLarge || planned.isEmpty() || body.validateOnly()) {
            for (NewTopic spec : planned.values()) {
                results.put(spec.name(), tooLarge
                        ? error(spec.name(), Errors.POLICY_VIOLATION, "Unable to perform excessively large batch operation.")
                        : validate(spec, answers.get(spec.name())));
            }
            request.respond(response(results, duplicates));
            return;
        }
        List<NewTopic> specs = new ArrayList<>(planned.values());
        CompletableFuture<List<TopicCreation>> created;
        try {
            created = context.metadata().createTopics(specs);
        } catch (RuntimeException e) {
            created = CompletableFuture.failedFuture(e);
        }
        created.whenComplete((outcomes, failure) -> answer(request, specs, outcomes, failure, results, duplicates,
                answers));
    }

    /**
     * Answers once the store has decided (on the thread that completed its future): each planned topic
     * gets its outcome; an unexpected failure of the whole batch is UNKNOWN_SERVER_ERROR (logged) for the
     * topics it left without an outcome. Never leaves the request unanswered.
     */
    private void answer(Request request, List<NewTopic> specs, List<TopicCreation> outcomes, Throwable failure,
                        Map<String, CreateTopicsResponse.CreatableTopicResult> results, Set<String> duplicates,
                        Map<String, CreateTopicsResponse.CreatableTopicResult> answers) {
        try {
            Throwable cause = failure == null ? null : unwrap(failure);
            Errors batchError = cause == null ? null : ErrorMapping.toError(cause, "CreateTopics of " + specs.size()
                    + " topics");
            String batchMessage = cause instanceof ApiException ? cause.getMessage()
                    : batchError == null ? null : batchError.message();
            for (int i = 0; i < specs.size(); i++) {
                NewTopic spec = specs.get(i);
                TopicCreation outcome = outcomes != null && i < outcomes.size() ? outcomes.get(i) : null;
                if (outcome == null || !outcome.name().equals(spec.name())) {
                    if (batchError == null) {
                        LOG.error("CreateTopics: the store gave no outcome for topic {}", spec.name());
                    }
                    Errors error = batchError == null ? Errors.UNKNOWN_SERVER_ERROR : batchError;
                    results.put(spec.name(), error(spec.name(), error, batchError == null ? error.message() : batchMessage));
                } else if (!outcome.error().isSuccess()) {
                    results.put(spec.name(), error(spec.name(), outcome.error().error(), outcome.error().message()));
                } else {
                    CreateTopicsResponse.CreatableTopicResult answer = answers.get(spec.name());
                    TopicImage topic = outcome.topic() != null ? outcome.topic() : context.metadata().image().topic(spec.name());
                    if (topic != null) {
                        answer.setTopicId(topic.id());
                    }
                    results.put(spec.name(), answer);
                }
            }
            request.respond(response(results, duplicates));
        } catch (RuntimeException e) {
            LOG.error("CreateTopics: answering failed; every topic answered UNKNOWN_SERVER_ERROR", e);
            if (!request.isAnswered()) {
                request.respond(errorResponse(request, Errors.UNKNOWN_SERVER_ERROR));
            }
        }
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static CreateTopicsResponse response(Map<String, CreateTopicsResponse.CreatableTopicResult> results,
                                                 Set<String> duplicates) {
        CreateTopicsResponse response = new CreateTopicsResponse();
        response.topics().addAll(results.values());
        for (String name : duplicates) {
            response.topics().add(error(name, Errors.INVALID_REQUEST, "Duplicate topic name."));
        }
        return response;
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

    /** validateOnly: the store's checks on the current image, nothing created; {@code answer} if they pass. */
    private CreateTopicsResponse.CreatableTopicResult validate(NewTopic spec, CreateTopicsResponse.CreatableTopicResult answer) {
        try {
            context.metadata().checkCreateTopic(spec);
        } catch (ApiException e) {
            return error(spec.name(), e.error(), e.getMessage());
        }
        return answer;
    }

    /**
     * The answer for a topic once created (its id is set then) or checked under validateOnly.
     *
     * @param configsVisible whether the principal may DESCRIBE_CONFIGS the topic (else the v5+ configs are refused)
     */
    private CreateTopicsResponse.CreatableTopicResult created(NewTopic spec, short version, boolean configsVisible) {
        CreateTopicsResponse.CreatableTopicResult result = new CreateTopicsResponse.CreatableTopicResult()
                .setName(spec.name())
                .setTopicId(ByteBufCodec.ZERO_UUID)
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
