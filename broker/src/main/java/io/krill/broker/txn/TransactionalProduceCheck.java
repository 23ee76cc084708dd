package io.krill.broker.txn;

import io.krill.broker.partition.Partition;
import io.krill.log.TopicPartition;
import io.krill.log.producer.ProducerStateEntry;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The leader's check of a transactional batch before it appends it (KIP-890 part 1, with
 * {@code transaction.partition.verification.enable}): the first batch of a producer's transaction on a
 * partition must belong to a partition the coordinator has in that open transaction, else a late or
 * stray write would open a transaction nobody ends (a hanging transaction). Later batches of the same
 * transaction pass on the producer state alone (it already has the transaction open here at this epoch).
 *
 * <p>Outcomes: not in the transaction -> INVALID_TXN_STATE; an older epoch -> INVALID_PRODUCER_EPOCH;
 * the coordinator busy (loading, moving, completing the previous transaction) -> NOT_ENOUGH_REPLICAS,
 * which producers retry, as Kafka converts them.
 *
 * <p>Limit: only a transaction coordinated by this broker is checked; when another broker coordinates the
 * transactional id the batch is accepted unverified, as brokers before KIP-890 did (docs/transactions.md).
 *
 * <p>Thread-safe: stateless besides the coordinator it asks.
 */
public final class TransactionalProduceCheck {
    private final TransactionCoordinator coordinator;

    public TransactionalProduceCheck(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    /**
     * @param transactionalId the produce request's transactional id (null for non-transactional producers)
     * @param records         the partition's batch as validated (one batch, header read only)
     * @throws ApiException when the batch may not be appended
     */
    public void check(String transactionalId, Partition partition, ByteBuf records) {
        if (!coordinator.config().partitionVerification() || records.readableBytes() < RecordBatch.HEADER_SIZE) {
            return;
        }
        RecordBatch batch = new RecordBatch().wrap(records, records.readerIndex());
        if (!batch.isTransactional() || batch.isControl()) {
            return;
        }
        long producerId = batch.producerId();
        short epoch = batch.producerEpoch();
        Optional<ProducerStateEntry> state = partition.log().producerState(producerId);
        if (state.isPresent() && state.get().producerEpoch() == epoch && state.get().hasOngoingTxn()) {
            return;
        }
        if (transactionalId == null || transactionalId.isEmpty()) {
            throw new ApiException(Errors.INVALID_TXN_STATE, "A transactional batch of producer " + producerId
                    + " without a transactional id");
        }
        if (!coordinator.isCoordinatorFor(transactionalId)) {
            return;
        }
        TopicPartition tp = partition.topicPartition();
        Map<TopicPartition, Errors> result = coordinator.verify(transactionalId, producerId, epoch, Set.of(tp));
        Errors error = result.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR);
        switch (error) {
            case NONE -> {
            }
            case INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> throw new ApiException(Errors.INVALID_TXN_STATE,
                    tp + " is not in the open transaction of transactional id " + transactionalId);
            case PRODUCER_FENCED, INVALID_PRODUCER_EPOCH -> throw new ApiException(Errors.INVALID_PRODUCER_EPOCH,
                    "Producer " + producerId + " epoch " + epoch + " is not the current epoch of " + transactionalId);
            default -> throw new ApiException(Errors.NOT_ENOUGH_REPLICAS, "The transaction of " + transactionalId
                    + " cannot be verified now (" + error + "); retry");
        }
    }
}
