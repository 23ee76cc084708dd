package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.log.PartitionLog;
import io.krill.log.TimestampAndOffset;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.ListOffsetsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.Optional;

/**
 * ListOffsets: earliest (-2, and -4 earliest-local), latest-tiered (-5: none, there is no tiered
 * storage), latest (-1: the high watermark, or the last stable
 * offset under read_committed), max timestamp (-3), and the first offset at or after a timestamp.
 * As in Kafka (ReplicaManager#fetchOffset), a max timestamp or timestamp answer the consumer may not read
 * yet (at or past the high watermark, or the last stable offset) is no answer (offset -1), not clamped;
 * the earliest offsets are answered as they are.
 *
 * <p>Thread-safe: stateless.
 */
public final class ListOffsetsHandler extends AbstractApiHandler {
    private static final byte READ_COMMITTED = 1;
    private static final long UNKNOWN = -1;
    /** KIP-1005: the highest offset in remote storage. */
    private static final long LATEST_TIERED_TIMESTAMP = -5;

    private final BrokerContext context;

    public ListOffsetsHandler(BrokerContext context) {
        super(ApiKeys.LIST_OFFSETS, 1, 10);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        ListOffsetsRequest body = request.body();
        MetadataImage image = context.metadata().image();
        ListOffsetsResponse response = new ListOffsetsResponse();
        for (ListOffsetsRequest.ListOffsetsTopic topic : body.topics()) {
            ListOffsetsResponse.ListOffsetsTopicResponse topicResponse =
                    new ListOffsetsResponse.ListOffsetsTopicResponse().setName(topic.name());
            response.topics().add(topicResponse);
            boolean describable = context.authorization().topic(request, AclOperation.DESCRIBE, topic.name());
            for (ListOffsetsRequest.ListOffsetsPartition wanted : topic.partitions()) {
                ListOffsetsResponse.ListOffsetsPartitionResponse answer =
                        new ListOffsetsResponse.ListOffsetsPartitionResponse().setPartitionIndex(wanted.partitionIndex());
                topicResponse.partitions().add(answer);
                try {
                    if (!describable) {
                        throw new ApiException(Errors.TOPIC_AUTHORIZATION_FAILED, null);
                    }
                    lookUp(image, topic.name(), wanted, body.isolationLevel() == READ_COMMITTED, answer);
                    if (request.version() < 4) {
                        answer.setLeaderEpoch(-1); // not in the schema before v4 (and not ignorable)
                    }
                } catch (RuntimeException e) {
                    answer.setErrorCode(ErrorMapping.toError(e, request).code()).setTimestamp(UNKNOWN).setOffset(UNKNOWN);
                }
            }
        }
        request.respond(response);
    }

    private void lookUp(MetadataImage image, String topic, ListOffsetsRequest.ListOffsetsPartition wanted,
                        boolean readCommitted, ListOffsetsResponse.ListOffsetsPartitionResponse answer) {
        Partition partition = context.partitions().leaderPartition(image, topic, wanted.partitionIndex());
        Partition.checkLeaderEpoch(wanted.currentLeaderEpoch(), partition.state());
        long visibleEnd = readCommitted ? partition.lastStableOffset() : partition.highWatermark();
        long timestamp = wanted.timestamp();
        if (timestamp == PartitionLog.LATEST_TIMESTAMP) {
            answer.setTimestamp(UNKNOWN).setOffset(visibleEnd).setLeaderEpoch(partition.leaderEpoch());
            return;
        }
        if (timestamp == LATEST_TIERED_TIMESTAMP) {
            // Without tiered storage Kafka answers "no such offset" rather than an error.
            answer.setTimestamp(UNKNOWN).setOffset(UNKNOWN).setLeaderEpoch(-1);
            return;
        }
        if (timestamp < PartitionLog.EARLIEST_LOCAL_TIMESTAMP) {
            throw new ApiException(Errors.INVALID_REQUEST, "Unsupported special timestamp " + timestamp);
        }
        Optional<TimestampAndOffset> found = partition.log().fetchOffsetByTimestamp(timestamp);
        boolean earliest = timestamp == PartitionLog.EARLIEST_TIMESTAMP || timestamp == PartitionLog.EARLIEST_LOCAL_TIMESTAMP;
        if (found.isEmpty() || !earliest && found.get().offset() >= visibleEnd) {
            answer.setTimestamp(UNKNOWN).setOffset(UNKNOWN).setLeaderEpoch(-1);
            return;
        }
        TimestampAndOffset result = found.get();
        answer.setTimestamp(result.timestamp())
                .setOffset(result.offset())
                .setLeaderEpoch(result.leaderEpoch().orElse(-1));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        ListOffsetsRequest body = request.body();
        ListOffsetsResponse response = new ListOffsetsResponse();
        for (ListOffsetsRequest.ListOffsetsTopic topic : body.topics()) {
            ListOffsetsResponse.ListOffsetsTopicResponse t = new ListOffsetsResponse.ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsRequest.ListOffsetsPartition p : topic.partitions()) {
                t.partitions().add(new ListOffsetsResponse.ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(error.code()).setTimestamp(UNKNOWN).setOffset(UNKNOWN));
            }
            response.topics().add(t);
        }
        return response;
    }
}
