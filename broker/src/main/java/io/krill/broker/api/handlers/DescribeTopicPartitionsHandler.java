package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeTopicPartitionsRequest;
import io.krill.wire.message.DescribeTopicPartitionsResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * DescribeTopicPartitions (KIP-966), what kafka-topics --describe and Admin.describeTopics use: the
 * requested topics (or all, for an empty list) in name order, from the cursor on, with at most
 * {@code min(responsePartitionLimit, max.request.partition.size.limit)} partitions; when more remain,
 * {@code nextCursor} names the topic and partition to continue from. Unknown requested topics are
 * answered with an error, unknown ones are skipped when listing all, as Kafka's KRaftMetadataCache does.
 * Krill has no eligible leader replicas, so the ELR lists are empty.
 *
 * <p>Thread-safe: stateless; one metadata image per request.
 */
public final class DescribeTopicPartitionsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public DescribeTopicPartitionsHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0, 0);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        DescribeTopicPartitionsRequest body = request.body();
        MetadataImage image = context.metadata().image();
        DescribeTopicPartitionsRequest.Cursor cursor = body.cursor();
        String cursorTopic = cursor == null ? "" : cursor.topicName();
        boolean all = body.topics().isEmpty();
        TreeSet<String> names = new TreeSet<>();
        if (all) {
            image.topics().forEach(t -> names.add(t.name()));
        } else {
            body.topics().forEach(t -> names.add(t.name()));
        }
        names.removeIf(name -> name.compareTo(cursorTopic) < 0);
        if (!all && cursor != null && !names.contains(cursorTopic)) {
            throw new ApiException(Errors.INVALID_REQUEST,
                    "DescribeTopicPartitionsRequest topic list should contain the cursor topic: " + cursorTopic);
        }
        if (cursor != null && cursor.partitionIndex() < 0) {
            throw new ApiException(Errors.INVALID_REQUEST,
                    "DescribeTopicPartitionsRequest cursor partition must be valid: " + cursor);
        }
        int limit = Math.max(Math.min(context.config().socket().maxRequestPartitionSizeLimit(),
                body.responsePartitionLimit()), 1);
        // Kafka: topics one may not DESCRIBE are left out of "all topics" and refused when named.
        Set<String> denied = context.authorization().deniedTopics(request, AclOperation.DESCRIBE, names);
        if (all) {
            names.removeAll(denied);
        }
        Authorization authorization = context.authorization();
        request.respond(describe(image, names, cursor, limit, all, request.connection().listenerName(), denied,
                name -> authorization.authorizedOperations(request, ResourceType.TOPIC, name)));
    }

    /** Kafka's paging: whole topics while the budget lasts, the cursor where it runs out. */
    static DescribeTopicPartitionsResponse describe(MetadataImage image, Iterable<String> sortedNames,
                                                    DescribeTopicPartitionsRequest.Cursor cursor, int limit,
                                                    boolean skipUnknown, String listenerName, Set<String> denied,
                                                    ToIntFunction<String> authorizedOperations) {
        DescribeTopicPartitionsResponse response = new DescribeTopicPartitionsResponse();
        int remaining = limit;
        for (String name : sortedNames) {
            if (remaining == 0) {
                response.setNextCursor(new DescribeTopicPartitionsResponse.Cursor().setTopicName(name).setPartitionIndex(0));
                break;
            }
            if (denied.contains(name)) {
                response.topics().add(new DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic()
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setName(name)
                        .setTopicId(ByteBufCodec.ZERO_UUID).setIsInternal(TopicNames.isInternal(name))
                        .setTopicAuthorizedOperations(AuthorizedOperations.OMITTED));
                continue;
            }
            TopicImage topic = image.topic(name);
            if (topic == null) {
                if (!skipUnknown) {
                    response.topics().add(unknownTopic(name));
                }
                continue;
            }
            int start = cursor != null && cursor.topicName().equals(name) ? cursor.partitionIndex() : 0;
            int end = Math.min(topic.partitionCount(), start + remaining);
            DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic described =
                    new DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic()
                            .setName(name)
                            .setTopicId(topic.id())
                            .setIsInternal(topic.internal() || TopicNames.isInternal(name))
                            .setTopicAuthorizedOperations(authorizedOperations.applyAsInt(name));
            for (int p = start; p < end; p++) {
                described.partitions().add(partition(image, topic.partition(p), listenerName));
            }
            response.topics().add(described);
            if (end < topic.partitionCount()) {
                response.setNextCursor(new DescribeTopicPartitionsResponse.Cursor().setTopicName(name).setPartitionIndex(end));
                break;
            }
            remaining -= described.partitions().size();
        }
        return response;
    }

    /**
     * One partition as Kafka describes it, the eligible leader replicas and the last known ones (KIP-966)
     * included: both are empty unless {@code eligible.leader.replicas.version} >= 1 has the controller keep
     * them.
     */
    static DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition partition(
            MetadataImage image, PartitionState state, String listenerName) {
        List<Integer> offline = new ArrayList<>();
        for (int replica : state.replicas()) {
            if (image.broker(replica) == null) {
                offline.add(replica);
            }
        }
        BrokerInfo leader = state.hasLeader() ? image.broker(state.leader()) : null;
        boolean leaderReachable = leader != null && leader.endpoint(listenerName) != null;
        return new DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition()
                .setPartitionIndex(state.partition())
                .setLeaderId(leaderReachable ? state.leader() : PartitionState.NO_LEADER)
                .setLeaderEpoch(state.leaderEpoch())
                .setReplicaNodes(new ArrayList<>(state.replicas()))
                .setIsrNodes(new ArrayList<>(state.isr()))
                .setEligibleLeaderReplicas(new ArrayList<>(state.eligibleLeaderReplicas()))
                .setLastKnownElr(new ArrayList<>(state.lastKnownElr()))
                .setOfflineReplicas(offline);
    }

    private static DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic unknownTopic(String name) {
        Errors error;
        try {
            TopicNames.validate(name);
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
        } catch (ApiException e) {
            error = Errors.INVALID_TOPIC_EXCEPTION;
        }
        return new DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic()
                .setErrorCode(error.code())
                .setName(name)
                .setTopicId(ByteBufCodec.ZERO_UUID)
                .setIsInternal(TopicNames.isInternal(name))
                .setTopicAuthorizedOperations(AuthorizedOperations.TOPIC);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DescribeTopicPartitionsRequest body = request.body();
        DescribeTopicPartitionsResponse response = new DescribeTopicPartitionsResponse();
        for (DescribeTopicPartitionsRequest.TopicRequest topic : body.topics()) {
            response.topics().add(new DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic()
                    .setErrorCode(error.code())
                    .setName(topic.name()));
        }
        return response;
    }
}
