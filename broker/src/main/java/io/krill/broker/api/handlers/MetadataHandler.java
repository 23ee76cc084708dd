package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.MetadataResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata: brokers (their endpoints on the listener the client came in by), cluster id, controller,
 * and topics with partition leaders, leader epochs, replicas and ISR. Unknown topics are created when
 * {@code auto.create.topics.enable} and the client allow it: all missing topics of one request in one
 * {@link io.krill.controller.metadata.MetadataStore#createTopics} call, and the request is answered when
 * its future completes (on the store's thread; a failure is the error of each of those topics), so the
 * request thread never waits for ZooKeeper. Answers from one metadata image (the one after creation
 * when topics were created).
 *
 * <p>Authorization as Kafka's: topics the principal may not DESCRIBE are left out of an all-topics
 * answer and are TOPIC_AUTHORIZATION_FAILED when named (before existence is told); auto-creation needs
 * CREATE on the cluster or the topic. Authorized-operation fields are filled when asked for (v8+).
 *
 * <p>Thread-safe: stateless (a request's state lives in its callback).
 */
public final class MetadataHandler extends AbstractApiHandler {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataHandler.class);
    /** Kafka's value for "authorized operations not requested". */
    private static final int AUTHORIZED_OPERATIONS_OMITTED = Integer.MIN_VALUE;

    private final BrokerContext context;

    public MetadataHandler(BrokerContext context) {
        super(ApiKeys.METADATA, 0, 13);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        MetadataRequest body = request.body();
        short version = request.version();
        MetadataImage image = context.metadata().image();
        Authorization authorization = context.authorization();
        List<MetadataResponse.MetadataResponseTopic> topics = new ArrayList<>();
        boolean all = body.topics() == null || (version == 0 && body.topics().isEmpty());
        if (all) {
            for (TopicImage topic : image.topics()) {
                if (authorization.topic(request, AclOperation.DESCRIBE, topic.name())) {
                    topics.add(describe(topic, image));
                }
            }
            respond(request, body, topics, image);
            return;
        }
        boolean autoCreate = context.config().autoCreateTopicsEnable() && (version < 4 || body.allowAutoTopicCreation());
        Map<String, NewTopic> toCreate = new LinkedHashMap<>();
        for (MetadataRequest.MetadataRequestTopic wanted : body.topics()) {
            MetadataResponse.MetadataResponseTopic found = lookUp(request, image, wanted, autoCreate);
            if (found == null) {
                toCreate.computeIfAbsent(wanted.name(), name -> NewTopic.of(name, context.config().log().numPartitions(),
                        context.config().replication().defaultReplicationFactor()));
            }
            topics.add(found); // null: its place, filled once the topic is created
        }
        if (toCreate.isEmpty()) {
            respond(request, body, topics, context.metadata().image());
            return;
        }
        List<NewTopic> specs = new ArrayList<>(toCreate.values());
        CompletableFuture<List<TopicCreation>> created;
        try {
            created = context.metadata().createTopics(specs);
        } catch (RuntimeException e) {
            created = CompletableFuture.failedFuture(e);
        }
        created.whenComplete((outcomes, failure) -> {
            try {
                MetadataImage now = context.metadata().image();
                Map<String, MetadataResponse.MetadataResponseTopic> answers = autoCreated(specs, outcomes, failure, now);
                for (int i = 0; i < topics.size(); i++) {
                    if (topics.get(i) == null) {
                        topics.set(i, answers.get(body.topics().get(i).name()));
                    }
                }
                respond(request, body, topics, now);
            } catch (RuntimeException e) {
                LOG.error("Metadata: answering after auto-creation failed; answered UNKNOWN_SERVER_ERROR", e);
                if (!request.isAnswered()) {
                    request.respond(errorResponse(request, Errors.UNKNOWN_SERVER_ERROR));
                }
            }
        });
    }

    /**
     * The answer for each auto-created topic: LEADER_NOT_AVAILABLE once created (Kafka's answer), or, if
     * someone else created it meanwhile, its description (LEADER_NOT_AVAILABLE if this broker does not see
     * it yet), or the store's error. A failure of the whole batch is that error for every topic.
     */
    private static Map<String, MetadataResponse.MetadataResponseTopic> autoCreated(List<NewTopic> specs,
            List<TopicCreation> outcomes, Throwable failure, MetadataImage image) {
        Errors batchError = failure == null ? null : ErrorMapping.toError(unwrap(failure), "Metadata auto-creation of "
                + specs.size() + " topics");
        Map<String, MetadataResponse.MetadataResponseTopic> answers = new HashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            String name = specs.get(i).name();
            TopicCreation outcome = outcomes != null && i < outcomes.size() ? outcomes.get(i) : null;
            if (outcome == null || !outcome.name().equals(name)) {
                answers.put(name, errorTopic(name, null, batchError == null ? Errors.UNKNOWN_SERVER_ERROR : batchError));
            } else if (outcome.error().isSuccess()) {
                // As Kafka answers a topic it auto-creates: LEADER_NOT_AVAILABLE, so that the client asks
                // again before producing. Its leader may not have created the partition's log yet, and a
                // producer without idempotence whose first batch is refused by it would retry that batch
                // behind later ones: out of order.
                answers.put(name, errorTopic(name, null, Errors.LEADER_NOT_AVAILABLE));
            } else if (outcome.error().error() == Errors.TOPIC_ALREADY_EXISTS) {
                TopicImage raced = image.topic(name);
                answers.put(name, raced != null ? describe(raced, image)
                        : errorTopic(name, null, Errors.LEADER_NOT_AVAILABLE));
            } else {
                answers.put(name, errorTopic(name, null, outcome.error().error()));
            }
        }
        return answers;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private void respond(Request request, MetadataRequest body, List<MetadataResponse.MetadataResponseTopic> topics,
                         MetadataImage image) {
        Authorization authorization = context.authorization();
        if (body.includeTopicAuthorizedOperations()) {
            for (MetadataResponse.MetadataResponseTopic topic : topics) {
                if (topic.errorCode() == Errors.NONE.code()) {
                    topic.setTopicAuthorizedOperations(
                            authorization.authorizedOperations(request, ResourceType.TOPIC, topic.name()));
                }
            }
        }
        request.respond(new MetadataResponse()
                .setBrokers(brokers(image, request.connection().listenerName()))
                .setClusterId(image.clusterId())
                .setControllerId(image.controllerId())
                .setTopics(topics)
                .setClusterAuthorizedOperations(body.includeClusterAuthorizedOperations()
                        ? authorization.clusterAuthorizedOperations(request)
                        : AUTHORIZED_OPERATIONS_OMITTED));
    }

    /** The topic's answer from {@code image}, or null when it is to be auto-created (every check passed). */
    private MetadataResponse.MetadataResponseTopic lookUp(Request request, MetadataImage image,
                                                          MetadataRequest.MetadataRequestTopic wanted, boolean autoCreate) {
        Authorization authorization = context.authorization();
        String name = wanted.name();
        UUID id = wanted.topicId();
        // By id whenever one is given (v12+), as Kafka does: the Java AdminClient sends the name "" with it.
        boolean byTopicId = id != null && !id.equals(ByteBufCodec.ZERO_UUID);
        if (name == null || byTopicId) {
            TopicImage byId = byTopicId ? image.topic(id) : null;
            if (byId == null) {
                return errorTopic(null, id, Errors.UNKNOWN_TOPIC_ID);
            }
            return authorization.topic(request, AclOperation.DESCRIBE, byId.name()) ? describe(byId, image)
                    : errorTopic(null, id, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        if (!authorization.topic(request, AclOperation.DESCRIBE, name)) {
            return errorTopic(name, null, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        TopicImage topic = image.topic(name);
        if (topic != null) {
            return describe(topic, image);
        }
        try {
            TopicNames.validate(name);
        } catch (ApiException e) {
            return errorTopic(name, null, Errors.INVALID_TOPIC_EXCEPTION);
        }
        if (!autoCreate || TopicNames.isInternal(name)) {
            return errorTopic(name, null, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        if (!authorization.cluster(request, AclOperation.CREATE)
                && !authorization.topic(request, AclOperation.CREATE, name)) {
            return errorTopic(name, null, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        return null;
    }

    private static List<MetadataResponse.MetadataResponseBroker> brokers(MetadataImage image, String listenerName) {
        List<MetadataResponse.MetadataResponseBroker> brokers = new ArrayList<>();
        for (BrokerInfo broker : image.brokers()) {
            BrokerInfo.Endpoint endpoint = broker.endpoint(listenerName);
            if (endpoint != null) {
                brokers.add(new MetadataResponse.MetadataResponseBroker()
                        .setNodeId(broker.nodeId())
                        .setHost(endpoint.host())
                        .setPort(endpoint.port())
                        .setRack(broker.rack()));
            }
        }
        return brokers;
    }

    /**
     * Offline replicas are those on brokers that are not live, as Kafka's metadata cache reports them. The
     * response shares the image's immutable replica and ISR lists (it is only encoded): a Metadata request
     * for all topics allocates one object per partition, not four.
     */
    private static MetadataResponse.MetadataResponseTopic describe(TopicImage topic, MetadataImage image) {
        List<MetadataResponse.MetadataResponsePartition> partitions = new ArrayList<>(topic.partitionCount());
        for (PartitionState state : topic.partitions()) {
            List<Integer> offline = List.of();
            for (int replica : state.replicas()) {
                if (image.broker(replica) == null) {
                    if (offline.isEmpty()) {
                        offline = new ArrayList<>(state.replicas().size());
                    }
                    offline.add(replica);
                }
            }
            partitions.add(new MetadataResponse.MetadataResponsePartition()
                    .setErrorCode(state.hasLeader() ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                    .setPartitionIndex(state.partition())
                    .setLeaderId(state.leader())
                    .setLeaderEpoch(state.leaderEpoch())
                    .setReplicaNodes(state.replicas())
                    .setIsrNodes(state.isr())
                    .setOfflineReplicas(offline));
        }
        return new MetadataResponse.MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.id())
                .setIsInternal(topic.internal())
                .setPartitions(partitions)
                .setTopicAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
    }

    private static MetadataResponse.MetadataResponseTopic errorTopic(String name, UUID id, Errors error) {
        MetadataResponse.MetadataResponseTopic topic = new MetadataResponse.MetadataResponseTopic()
                .setErrorCode(error.code())
                .setName(name)
                .setTopicAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
        if (id != null) {
            topic.setTopicId(id);
        }
        return topic;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        MetadataRequest body = request.body();
        List<MetadataResponse.MetadataResponseTopic> topics = new ArrayList<>();
        if (body.topics() != null) {
            for (MetadataRequest.MetadataRequestTopic t : body.topics()) {
                topics.add(errorTopic(t.name(), t.topicId(), error));
            }
        }
        return new MetadataResponse().setTopics(topics).setErrorCode(error.code());
    }
}
