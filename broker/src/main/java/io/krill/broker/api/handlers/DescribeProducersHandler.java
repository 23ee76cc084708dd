package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.log.producer.ProducerStateEntry;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeProducersRequest;
import io.krill.wire.message.DescribeProducersResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * DescribeProducers v0: the producers a partition's leader tracks (id, epoch, last sequence and
 * timestamp, coordinator epoch of their last marker, first offset of their open transaction), from the
 * log's producer state. kafka-transactions describe-producers and find-hanging read it, and abort takes
 * the coordinator epoch from it. Errors per partition: NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION.
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeProducersHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public DescribeProducersHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_PRODUCERS, 0, 0);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        DescribeProducersRequest body = request.body();
        MetadataImage image = context.metadata().image();
        DescribeProducersResponse response = new DescribeProducersResponse();
        for (DescribeProducersRequest.TopicRequest topic : body.topics()) {
            DescribeProducersResponse.TopicResponse topicResponse = new DescribeProducersResponse.TopicResponse()
                    .setName(topic.name());
            response.topics().add(topicResponse);
            boolean readable = context.authorization().topic(request, AclOperation.READ, topic.name());
            for (int index : topic.partitionIndexes()) {
                DescribeProducersResponse.PartitionResponse partitionResponse =
                        new DescribeProducersResponse.PartitionResponse().setPartitionIndex(index);
                topicResponse.partitions().add(partitionResponse);
                try {
                    if (!readable) {
                        throw new ApiException(Errors.TOPIC_AUTHORIZATION_FAILED, null);
                    }
                    Partition partition = context.partitions().leaderPartition(image, topic.name(), index);
                    for (ProducerStateEntry entry : partition.log().activeProducers().values()) {
                        partitionResponse.activeProducers().add(new DescribeProducersResponse.ProducerState()
                                .setProducerId(entry.producerId())
                                .setProducerEpoch(entry.producerEpoch())
                                .setLastSequence(entry.lastSeq())
                                .setLastTimestamp(entry.lastTimestamp())
                                .setCoordinatorEpoch(entry.coordinatorEpoch())
                                .setCurrentTxnStartOffset(entry.currentTxnFirstOffset()));
                    }
                } catch (RuntimeException e) {
                    Errors error = ErrorMapping.toError(e, request);
                    partitionResponse.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                }
            }
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DescribeProducersRequest body = request.body();
        DescribeProducersResponse response = new DescribeProducersResponse();
        for (DescribeProducersRequest.TopicRequest topic : body.topics()) {
            DescribeProducersResponse.TopicResponse t = new DescribeProducersResponse.TopicResponse().setName(topic.name());
            for (int index : topic.partitionIndexes()) {
                t.partitions().add(new DescribeProducersResponse.PartitionResponse().setPartitionIndex(index)
                        .setErrorCode(error.code()));
            }
            response.topics().add(t);
        }
        return response;
    }
}
