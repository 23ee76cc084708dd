package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ProduceResponse;
import java.util.List;

/**
 * An acks=all produce waiting for the ISR: complete when every appended partition's high watermark has
 * reached the end of its batch, or when it lost leadership (NOT_LEADER_OR_FOLLOWER); on timeout the
 * partitions still short answer REQUEST_TIMED_OUT; a batch that made it while the ISR shrank below
 * {@code min.insync.replicas} answers NOT_ENOUGH_REPLICAS_AFTER_APPEND, as Kafka does. Woken by high watermark moves of its partitions.
 *
 * <p>Thread-safe: completion is decided once by the base class; the response is filled only then.
 */
final class DelayedProduce extends DelayedOperation {

    /** One appended partition: where its batch ends and the response entry to fill. */
    record PartitionStatus(Partition partition, long requiredOffset, ProduceResponse.PartitionProduceResponse response) {
    }

    private final Request request;
    private final ProduceResponse response;
    private final List<PartitionStatus> statuses;
    private final Runnable beforeAnswer;

    /** @param beforeAnswer completes the response once its errors are final (KIP-951's leader hints) */
    DelayedProduce(long timeoutMs, Request request, ProduceResponse response, List<PartitionStatus> statuses,
                   Runnable beforeAnswer) {
        super(Math.max(0, timeoutMs));
        this.request = request;
        this.response = response;
        this.statuses = statuses;
        this.beforeAnswer = beforeAnswer;
    }

    @Override
    public boolean tryComplete() {
        for (PartitionStatus status : statuses) {
            Partition partition = status.partition();
            if (partition.isLeader() && partition.highWatermark() < status.requiredOffset()) {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    protected void onExpiration() {
        for (PartitionStatus status : statuses) {
            if (status.partition().highWatermark() < status.requiredOffset()) {
                status.response().setErrorCode(Errors.REQUEST_TIMED_OUT.code());
            }
        }
    }

    @Override
    protected void onComplete() {
        for (PartitionStatus status : statuses) {
            Partition partition = status.partition();
            if (status.response().errorCode() != Errors.NONE.code()) {
                continue;
            }
            if (partition.highWatermark() < status.requiredOffset()) {
                status.response().setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
            } else if (partition.state().isr().size() < partition.config().minInsyncReplicas()) {
                // Written everywhere the ISR says, but the ISR shrank below min.insync.replicas meanwhile.
                status.response().setErrorCode(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code());
            }
        }
        beforeAnswer.run();
        request.respond(response);
    }
}
