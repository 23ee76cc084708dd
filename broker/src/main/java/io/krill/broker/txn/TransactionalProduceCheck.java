package io.krill.broker.txn;

import io.krill.broker.partition.Partition;
import io.krill.log.TopicPartition;
import io.krill.log.producer.ProducerStateEntry;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The leader's check of transactional batches before it appends them (KIP-890 part 1, with
 * {@code transaction.partition.verification.enable}): the first batch of a producer's transaction on a
 * partition must belong to a partition the coordinator has in that open transaction, else a late or
 * stray write would open a transaction nobody ends (a hanging transaction). Later batches of the same
 * transaction pass on the producer state alone (it already has the transaction open here at this epoch).
 * The coordinator is asked through the {@link TransactionVerifier}: at once when this broker coordinates
 * the transactional id, else over the network, answered later.
 *
 * <p>Outcomes, per Produce version as Kafka 4.4 answers them ({@link VerificationErrors#forProduce}): not
 * in the transaction -> INVALID_TXN_STATE (v0-10) or TRANSACTION_ABORTABLE (v11+); another producer id
 * -> INVALID_PRODUCER_ID_MAPPING; an older epoch -> INVALID_PRODUCER_EPOCH; the coordinator busy or out of
 * reach (loading, moving, ending the transaction) -> NOT_ENOUGH_REPLICAS, which producers retry.
 *
 * <p>Thread-safe: stateless besides the verifier it asks.
 */
public final class TransactionalProduceCheck {
    /** The first Produce version that adds its partitions to the transaction (KIP-890 part 2). */
    public static final short PRODUCE_ADDS_VERSION = 12;
    private final TransactionVerifier verifier;

    /** The producer and epoch of a transactional batch. */
    public record Producer(long producerId, short epoch) {
    }

    public TransactionalProduceCheck(TransactionVerifier verifier) {
        this.verifier = verifier;
    }

    /**
     * The producer of {@code records} when the batch must be verified (or, from Produce v12, added to the
     * transaction) before it is appended to {@code partition}, or null when it need not be (not
     * transactional, verification off below v12, or the producer's transaction already open there at this
     * epoch: with transaction version 2 every transaction has an epoch of its own).
     *
     * @param transactionalId the produce request's transactional id (null for non-transactional producers)
     * @param records         the partition's batch as validated (one batch, header read only)
     * @throws ApiException INVALID_TXN_STATE for a transactional batch sent without a transactional id
     */
    public Producer toVerify(String transactionalId, Partition partition, ByteBuf records, short version) {
        boolean adds = version >= PRODUCE_ADDS_VERSION;
        if ((!adds && !verifier.enabled()) || records.readableBytes() < RecordBatch.HEADER_SIZE) {
            return null;
        }
        RecordBatch batch = new RecordBatch().wrap(records, records.readerIndex());
        if (!batch.isTransactional() || batch.isControl()) {
            return null;
        }
        long producerId = batch.producerId();
        short epoch = batch.producerEpoch();
        Optional<ProducerStateEntry> state = partition.log().producerState(producerId);
        if (state.isPresent() && state.get().producerEpoch() == epoch && state.get().hasOngoingTxn()) {
            return null;
        }
        if (transactionalId == null || transactionalId.isEmpty()) {
            throw new ApiException(Errors.INVALID_TXN_STATE, "A transactional batch of producer " + producerId
                    + " without a transactional id");
        }
        return new Producer(producerId, epoch);
    }

    /**
     * Verifies {@code partitions} in the producer's transaction, or from v12 adds them to it: completes with
     * the error each partition of a Produce of {@code version} answers (NONE: append it); a verification at
     * once when this broker coordinates the transactional id, else later on another thread. Never fails.
     */
    public CompletableFuture<Map<TopicPartition, Errors>> verify(String transactionalId, Producer producer,
                                                                Set<TopicPartition> partitions, short version) {
        CompletableFuture<Map<TopicPartition, Errors>> asked = version >= PRODUCE_ADDS_VERSION
                ? verifier.add(transactionalId, producer.producerId(), producer.epoch(), partitions)
                : verifier.verify(transactionalId, producer.producerId(), producer.epoch(), partitions);
        return asked.thenApply(errors -> {
                    Map<TopicPartition, Errors> told = new LinkedHashMap<>();
                    for (TopicPartition tp : partitions) {
                        told.put(tp, VerificationErrors.forProduce(errors.getOrDefault(tp, Errors.NONE), version));
                    }
                    return told;
                });
    }

    /** The text a refused partition's error_message carries. */
    public static String message(String transactionalId, TopicPartition tp, Errors error) {
        return error == Errors.INVALID_TXN_STATE || error == Errors.TRANSACTION_ABORTABLE
                ? tp + " was not added to the transaction of transactional id " + transactionalId
                : "The transaction of " + transactionalId + " could not be verified for " + tp + ": " + error;
    }
}
