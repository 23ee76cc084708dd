package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.wire.error.Errors;
import io.krill.wire.message.WriteTxnMarkersResponse;
import java.util.List;

/**
 * A WriteTxnMarkers request waiting for its markers to reach the in-sync replicas (markers are written
 * with acks=all semantics, as Kafka writes them): complete when the high watermark of every appended
 * partition passed its marker or it lost leadership (NOT_LEADER_OR_FOLLOWER); on timeout the partitions
 * still short answer REQUEST_TIMED_OUT and the coordinator retries them. {@code onReplicated} runs for
 * each marker that made it, before the answer (the group coordinator learns of markers on
 * {@code __consumer_offsets} there).
 *
 * <p>Thread-safe: completion is decided once by the base class; the response is filled only then.
 */
final class DelayedTxnMarkers extends DelayedOperation {

    /** One appended marker: where it ends and the response entry to fill. */
    record MarkerStatus(Partition partition, long requiredOffset, long producerId, boolean commit,
                        WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult result) {
    }

    /** Told of each marker the in-sync replicas have. */
    @FunctionalInterface
    interface ReplicatedMarkerListener {
        void replicated(MarkerStatus status);
    }

    private final Request request;
    private final WriteTxnMarkersResponse response;
    private final List<MarkerStatus> statuses;
    private final ReplicatedMarkerListener onReplicated;

    DelayedTxnMarkers(long timeoutMs, Request request, WriteTxnMarkersResponse response, List<MarkerStatus> statuses,
                      ReplicatedMarkerListener onReplicated) {
        super(Math.max(0, timeoutMs));
        this.request = request;
        this.response = response;
        this.statuses = statuses;
        this.onReplicated = onReplicated;
    }

    @Override
    public boolean tryComplete() {
        for (MarkerStatus status : statuses) {
            Partition partition = status.partition();
            if (partition.isLeader() && partition.highWatermark() < status.requiredOffset()) {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    protected void onExpiration() {
        for (MarkerStatus status : statuses) {
            if (status.partition().highWatermark() < status.requiredOffset()) {
                status.result().setErrorCode(Errors.REQUEST_TIMED_OUT.code());
            }
        }
    }

    @Override
    protected void onComplete() {
        for (MarkerStatus status : statuses) {
            if (status.result().errorCode() != Errors.NONE.code()) {
                continue;
            }
            if (status.partition().highWatermark() < status.requiredOffset()) {
                status.result().setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
            } else {
                onReplicated.replicated(status);
            }
        }
        request.respond(response);
    }
}
