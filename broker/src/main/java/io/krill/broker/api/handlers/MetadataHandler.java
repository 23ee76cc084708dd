package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
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
import java.util.List;
import java.util.UUID;

/**
 * Metadata: brokers (their endpoints on the listener the client came in by), cluster id, controller,
 * and topics with partition leaders, leader epochs, replicas and ISR. Unknown topics are created when
 * {@code auto.create.topics.enable} and the client allow it. Answers from one metadata image.
 *
 * <p>Authorization as Kafka's: topics the principal may not DESCRIBE are left out of an all-topics
 * answer and are TOPIC_AUTHORIZATION_FAILED when named (before existence is told); auto-creation needs
 * CREATE on the cluster or the topic. Authorized-operation fields are filled when asked for (v8+).
 *
 * <p>Thread-safe: stateless.
 */
public final class MetadataHandler extends AbstractApiHandler {
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
        } else {
            boolean autoCreate = context.config().autoCreateTopicsEnable() && (version < 4 || body.allowAutoTopicCreation());
            for (MetadataRequest.MetadataRequestTopic wanted : body.topics()) {
                topics.add(lookUp(request, image, wanted, autoCreate));
            }
            image = context.metadata().image();
        }
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
        try {
            return describe(context.metadata().createTopic(NewTopic.of(name, context.config().log().numPartitions(),
                    context.config().replication().defaultReplicationFactor())), context.metadata().image());
        } catch (ApiException e) {
            if (e.error() == Errors.TOPIC_ALREADY_EXISTS) {
                TopicImage raced = context.metadata().image().topic(name);
                if (raced != null) {
                    return describe(raced, context.metadata().image());
                }
            }
            return errorTopic(name, null, e.error() == Errors.TOPIC_ALREADY_EXISTS
                    ? Errors.LEADER_NOT_AVAILABLE : e.error());
        }
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

    /** Offline replicas are those on brokers that are not live, as Kafka's metadata cache reports them. */
    private static MetadataResponse.MetadataResponseTopic describe(TopicImage topic, MetadataImage image) {
        List<MetadataResponse.MetadataResponsePartition> partitions = new ArrayList<>(topic.partitionCount());
        for (PartitionState state : topic.partitions()) {
            List<Integer> offline = new ArrayList<>();
            for (int replica : state.replicas()) {
                if (image.broker(replica) == null) {
                    offline.add(replica);
                }
            }
            partitions.add(new MetadataResponse.MetadataResponsePartition()
                    .setErrorCode(state.hasLeader() ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                    .setPartitionIndex(state.partition())
                    .setLeaderId(state.leader())
                    .setLeaderEpoch(state.leaderEpoch())
                    .setReplicaNodes(new ArrayList<>(state.replicas()))
                    .setIsrNodes(new ArrayList<>(state.isr()))
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
