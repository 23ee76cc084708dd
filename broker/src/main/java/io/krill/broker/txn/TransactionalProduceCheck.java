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
 * <p>Outcomes, per Produce version as Kafka 4.4 answers them ({@link VerificationErrors#forProduce}): not
 * in the transaction -> INVALID_TXN_STATE (v0-10) or TRANSACTION_ABORTABLE (v11+); another producer id
 * -> INVALID_PRODUCER_ID_MAPPING; an older epoch -> INVALID_PRODUCER_EPOCH; the coordinator busy
 * (loading, moving, ending the transaction) -> NOT_ENOUGH_REPLICAS, which producers retry.
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
     * @param version         the Produce request's version, which decides how a refusal is told
     * @throws ApiException when the batch may not be appended
     */
    public void check(String transactionalId, Partition partition, ByteBuf records, short version) {
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
        Errors error = VerificationErrors.forProduce(result.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR), version);
        if (error != Errors.NONE) {
            throw new ApiException(error, error == Errors.INVALID_TXN_STATE || error == Errors.TRANSACTION_ABORTABLE
                    ? tp + " was not added to the transaction of transactional id " + transactionalId
                    : "The transaction of " + transactionalId + " could not be verified for " + tp + ": " + error);
        }
    }
}
