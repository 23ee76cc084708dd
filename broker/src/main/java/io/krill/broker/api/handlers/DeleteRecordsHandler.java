package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicNames;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteRecordsRequest;
import io.krill.wire.message.DeleteRecordsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DeleteRecords: moves each partition's log start offset up to the requested offset (-1: the high
 * watermark) and answers the new low watermark; whole segments below it are deleted. As Kafka's
 * Partition.deleteRecordsOnLeader: only on the leader, only when cleanup.policy includes delete
 * (POLICY_VIOLATION otherwise), never past the high watermark (OFFSET_OUT_OF_RANGE), never on internal
 * topics (INVALID_TOPIC_EXCEPTION). On one node the low watermark is the leader's log start offset, so the
 * answer does not wait (timeoutMs is not needed).
 *
 * <p>Thread-safe: stateless; the log serialises changes of its start offset.
 */
public final class DeleteRecordsHandler extends AbstractApiHandler {
    /** Kafka's "truncate to the high watermark" offset, and the low watermark of a failed partition. */
    private static final long HIGH_WATERMARK = -1L;
    private static final long INVALID_LOW_WATERMARK = -1L;

    private final BrokerContext context;

    public DeleteRecordsHandler(BrokerContext context) {
        super(ApiKeys.DELETE_RECORDS, 0, 2);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        DeleteRecordsRequest body = request.body();
        MetadataImage image = context.metadata().image();
        // One result per topic and partition (the response is keyed so): a repeated one is answered once.
        Map<String, Map<Integer, DeleteRecordsResponse.DeleteRecordsPartitionResult>> results = new LinkedHashMap<>();
        for (DeleteRecordsRequest.DeleteRecordsTopic topic : body.topics()) {
            boolean deletable = context.authorization().topic(request, AclOperation.DELETE, topic.name());
            for (DeleteRecordsRequest.DeleteRecordsPartition partition : topic.partitions()) {
                DeleteRecordsResponse.DeleteRecordsPartitionResult result =
                        new DeleteRecordsResponse.DeleteRecordsPartitionResult().setPartitionIndex(partition.partitionIndex());
                try {
                    if (!deletable) {
                        throw new ApiException(Errors.TOPIC_AUTHORIZATION_FAILED, null);
                    }
                    result.setLowWatermark(delete(image, topic.name(), partition.partitionIndex(), partition.offset()));
                } catch (RuntimeException e) {
                    result.setErrorCode(ErrorMapping.toError(e, request).code()).setLowWatermark(INVALID_LOW_WATERMARK);
                }
                results.computeIfAbsent(topic.name(), t -> new LinkedHashMap<>()).put(partition.partitionIndex(), result);
            }
        }
        DeleteRecordsResponse response = new DeleteRecordsResponse();
        results.forEach((name, partitions) -> response.topics().add(new DeleteRecordsResponse.DeleteRecordsTopicResult()
                .setName(name)
                .setPartitions(new ArrayList<>(partitions.values()))));
        request.respond(response);
    }

    /** Deletes the records of one partition below {@code offset}; returns the new low watermark. */
    private long delete(MetadataImage image, String topicName, int partitionIndex, long offset) {
        TopicImage topic = image.topic(topicName);
        if (topic == null || topic.partition(partitionIndex) == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
        }
        if (topic.internal() || TopicNames.isInternal(topicName)) {
            throw new ApiException(Errors.INVALID_TOPIC_EXCEPTION, "Cannot delete records of internal topic " + topicName);
        }
        Partition partition = context.partitions().leaderPartition(image, topicName, partitionIndex);
        if (!partition.config().delete()) {
            throw new ApiException(Errors.POLICY_VIOLATION, "Records of partition " + partition.topicPartition()
                    + " can not be deleted due to the configured policy");
        }
        long highWatermark = partition.highWatermark();
        long target = offset == HIGH_WATERMARK ? highWatermark : offset;
        if (target < 0) {
            throw new ApiException(Errors.OFFSET_OUT_OF_RANGE, "The offset " + target + " for partition "
                    + partition.topicPartition() + " is not valid");
        }
        if (target > highWatermark) {
            throw new ApiException(Errors.OFFSET_OUT_OF_RANGE, "Cannot increment the log start offset to " + target
                    + " of partition " + partition.topicPartition() + " since it is larger than the high watermark "
                    + highWatermark);
        }
        return partition.log().deleteRecordsBefore(target);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DeleteRecordsRequest body = request.body();
        DeleteRecordsResponse response = new DeleteRecordsResponse();
        for (DeleteRecordsRequest.DeleteRecordsTopic topic : body.topics()) {
            DeleteRecordsResponse.DeleteRecordsTopicResult result = new DeleteRecordsResponse.DeleteRecordsTopicResult()
                    .setName(topic.name());
            for (DeleteRecordsRequest.DeleteRecordsPartition partition : topic.partitions()) {
                result.partitions().add(new DeleteRecordsResponse.DeleteRecordsPartitionResult()
                        .setPartitionIndex(partition.partitionIndex())
                        .setErrorCode(error.code())
                        .setLowWatermark(INVALID_LOW_WATERMARK));
            }
            response.topics().add(result);
        }
        return response;
    }
}
