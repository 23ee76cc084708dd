package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.epoch.EpochEndOffset;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.OffsetForLeaderEpochRequest;
import io.krill.wire.message.OffsetForLeaderEpochResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * OffsetForLeaderEpoch (KIP-101/320): the end offset of a leader epoch in the leader's log, which a
 * consumer compares with its position after a leader change to detect truncation. As Kafka's
 * Partition.lastOffsetForLeaderEpoch: the client's current leader epoch is checked first
 * (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH), then leadership; an epoch the log does not know is
 * answered with epoch and offset -1 and no error. Kafka answers from the leader for followers too, and
 * so does Krill (replicaId is not used).
 *
 * <p>Thread-safe: stateless.
 */
public final class OffsetForLeaderEpochHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public OffsetForLeaderEpochHandler(BrokerContext context) {
        super(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        OffsetForLeaderEpochRequest body = request.body();
        // Kafka: CLUSTER_ACTION (brokers, the API's first users) covers every topic, else DESCRIBE per topic.
        boolean clusterAction = context.authorization().cluster(request, AclOperation.CLUSTER_ACTION);
        MetadataImage image = context.metadata().image();
        OffsetForLeaderEpochResponse response = new OffsetForLeaderEpochResponse();
        for (OffsetForLeaderEpochRequest.OffsetForLeaderTopic topic : body.topics()) {
            OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult result =
                    new OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult().setTopic(topic.topic());
            boolean describable = clusterAction
                    || context.authorization().topic(request, AclOperation.DESCRIBE, topic.topic());
            for (OffsetForLeaderEpochRequest.OffsetForLeaderPartition wanted : topic.partitions()) {
                OffsetForLeaderEpochResponse.EpochEndOffset answer = new OffsetForLeaderEpochResponse.EpochEndOffset()
                        .setPartition(wanted.partition());
                try {
                    if (!describable) {
                        throw new ApiException(Errors.TOPIC_AUTHORIZATION_FAILED, null);
                    }
                    EpochEndOffset found = lookUp(image, topic.topic(), wanted);
                    answer.setLeaderEpoch(found.leaderEpoch()).setEndOffset(found.endOffset());
                } catch (RuntimeException e) {
                    answer.setErrorCode(ErrorMapping.toError(e, request).code())
                            .setLeaderEpoch(EpochEndOffset.UNDEFINED.leaderEpoch())
                            .setEndOffset(EpochEndOffset.UNDEFINED.endOffset());
                }
                result.partitions().add(answer);
            }
            response.topics().add(result);
        }
        request.respond(response);
    }

    private EpochEndOffset lookUp(MetadataImage image, String topicName,
                                  OffsetForLeaderEpochRequest.OffsetForLeaderPartition wanted) {
        Partition partition = context.partitions().partition(topicName, wanted.partition());
        if (partition == null) {
            TopicImage topic = image.topic(topicName);
            boolean known = topic != null && topic.partition(wanted.partition()) != null;
            throw new ApiException(known ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
        }
        Partition.checkLeaderEpoch(wanted.currentLeaderEpoch(), partition.state());
        if (!partition.isLeader()) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, null);
        }
        return partition.log().endOffsetForEpoch(wanted.leaderEpoch());
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        OffsetForLeaderEpochRequest body = request.body();
        OffsetForLeaderEpochResponse response = new OffsetForLeaderEpochResponse();
        for (OffsetForLeaderEpochRequest.OffsetForLeaderTopic topic : body.topics()) {
            OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult result =
                    new OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderEpochRequest.OffsetForLeaderPartition p : topic.partitions()) {
                result.partitions().add(new OffsetForLeaderEpochResponse.EpochEndOffset()
                        .setPartition(p.partition())
                        .setErrorCode(error.code()));
            }
            response.topics().add(result);
        }
        return response;
    }
}
