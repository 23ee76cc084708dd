package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.partition.Partition;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.controller.metadata.MetadataImage;
import io.krill.log.AppendInfo;
import io.krill.log.AppendOrigin;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.WriteTxnMarkersRequest;
import io.krill.wire.message.WriteTxnMarkersResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * WriteTxnMarkers v1-2: the transaction coordinator (any broker's, this one's included) or the
 * kafka-transactions tool's abort asks the leader to end a producer's transaction on its partitions.
 * Each marker is one control batch (the producer's id and epoch, one COMMIT or ABORT record with the
 * coordinator epoch) appended as the leader with the coordinator's origin: the log checks the producer
 * epoch and the coordinator epoch (TRANSACTION_COORDINATOR_FENCED, INVALID_PRODUCER_EPOCH), ends the
 * producer's transaction there, moves the last stable offset and, for an abort, records the aborted
 * range in the transaction index. The answer waits until the in-sync replicas have the markers (acks=all,
 * up to {@code request.timeout.ms}); then markers on {@code __consumer_offsets} partitions are reported
 * to the group coordinator, which makes the transaction's offsets visible or drops them. Errors are per
 * partition. A v2 marker of transaction version 2 must carry an epoch above the transaction's (the
 * coordinator bumped it to end the transaction, KIP-1228), so a stale marker cannot end the producer's
 * next transaction.
 *
 * <p>Thread-safe: stateless.
 */
public final class WriteTxnMarkersHandler extends AbstractApiHandler {
    private final BrokerContext context;
    private final GroupCoordinator groups;

    public WriteTxnMarkersHandler(BrokerContext context, GroupCoordinator groups) {
        super(ApiKeys.WRITE_TXN_MARKERS, 1, 2);
        this.context = context;
        this.groups = groups;
    }

    @Override
    public void handle(Request request) {
        WriteTxnMarkersRequest body = request.body();
        // Kafka: ALTER on the cluster (an operator aborting a hanging transaction) or CLUSTER_ACTION (brokers).
        if (!context.authorization().cluster(request, AclOperation.ALTER)) {
            context.authorization().requireCluster(request, AclOperation.CLUSTER_ACTION);
        }
        MetadataImage image = context.metadata().image();
        WriteTxnMarkersResponse response = new WriteTxnMarkersResponse();
        List<DelayedTxnMarkers.MarkerStatus> statuses = new ArrayList<>();
        List<TopicPartition> keys = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (WriteTxnMarkersRequest.WritableTxnMarker marker : body.markers()) {
            WriteTxnMarkersResponse.WritableTxnMarkerResult markerResult = new WriteTxnMarkersResponse.WritableTxnMarkerResult()
                    .setProducerId(marker.producerId());
            response.markers().add(markerResult);
            for (WriteTxnMarkersRequest.WritableTxnMarkerTopic topic : marker.topics()) {
                WriteTxnMarkersResponse.WritableTxnMarkerTopicResult topicResult =
                        new WriteTxnMarkersResponse.WritableTxnMarkerTopicResult().setName(topic.name());
                markerResult.topics().add(topicResult);
                for (int index : topic.partitionIndexes()) {
                    WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult result =
                            new WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult().setPartitionIndex(index);
                    topicResult.partitions().add(result);
                    try {
                        Partition partition = context.partitions().leaderPartition(image, topic.name(), index);
                        AppendInfo info = appendMarker(partition, marker, now);
                        statuses.add(new DelayedTxnMarkers.MarkerStatus(partition, info.lastOffset() + 1,
                                marker.producerId(), marker.transactionResult(), result));
                        keys.add(partition.topicPartition());
                        context.fetchPurgatory().checkAndComplete(partition.topicPartition());
                    } catch (RuntimeException e) {
                        result.setErrorCode(ErrorMapping.toError(e, request).code());
                    }
                }
            }
        }
        if (statuses.isEmpty()) {
            request.respond(response);
            return;
        }
        DelayedTxnMarkers delayed = new DelayedTxnMarkers(context.config().socket().requestTimeoutMs(), request,
                response, statuses, this::replicated);
        context.producePurgatory().tryCompleteElseWatch(delayed, keys);
    }

    private static AppendInfo appendMarker(Partition partition, WriteTxnMarkersRequest.WritableTxnMarker marker,
                                           long now) {
        ByteBuf batch;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.producer(marker.producerId(), marker.producerEpoch(), RecordBatch.NO_SEQUENCE)
                    .appendEndTransactionMarker(now, marker.transactionResult() ? ControlRecordType.COMMIT
                            : ControlRecordType.ABORT, marker.coordinatorEpoch());
            batch = builder.build();
        }
        try {
            return partition.appendRecordsToLeader(batch, -1, marker.transactionVersion() >= 2
                    ? AppendOrigin.COORDINATOR_BUMPED_EPOCH : AppendOrigin.COORDINATOR);
        } finally {
            batch.release();
        }
    }

    private void replicated(DelayedTxnMarkers.MarkerStatus status) {
        TopicPartition tp = status.partition().topicPartition();
        context.fetchPurgatory().checkAndComplete(tp);
        if (GroupCoordinator.TOPIC.equals(tp.topic())) {
            groups.onTransactionCompleted(tp.partition(), status.producerId(), status.commit());
        }
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        WriteTxnMarkersRequest body = request.body();
        WriteTxnMarkersResponse response = new WriteTxnMarkersResponse();
        for (WriteTxnMarkersRequest.WritableTxnMarker marker : body.markers()) {
            WriteTxnMarkersResponse.WritableTxnMarkerResult result = new WriteTxnMarkersResponse.WritableTxnMarkerResult()
                    .setProducerId(marker.producerId());
            for (WriteTxnMarkersRequest.WritableTxnMarkerTopic topic : marker.topics()) {
                WriteTxnMarkersResponse.WritableTxnMarkerTopicResult t =
                        new WriteTxnMarkersResponse.WritableTxnMarkerTopicResult().setName(topic.name());
                for (int index : topic.partitionIndexes()) {
                    t.partitions().add(new WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult()
                            .setPartitionIndex(index).setErrorCode(error.code()));
                }
                result.topics().add(t);
            }
            response.markers().add(result);
        }
        return response;
    }
}
