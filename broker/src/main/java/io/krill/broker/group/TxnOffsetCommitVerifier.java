package io.krill.broker.group;

import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import java.util.concurrent.CompletableFuture;

/**
 * Asks the transaction coordinator, before a TxnOffsetCommit is written, whether the producer added the
 * group's partition of {@code __consumer_offsets} to its open transaction (AddOffsetsToTxn), as KIP-890
 * part 1 has Kafka's group coordinator do: otherwise offsets written by a producer that never began a
 * transaction, or whose transaction was already aborted, would hang pending on the partition with no
 * marker ever to end them.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface TxnOffsetCommitVerifier {
    /** Verifies nothing: for coordinators without a transaction coordinator (tests, tools). */
    TxnOffsetCommitVerifier UNVERIFIED = (partition, transactionalId, producerId, producerEpoch, version) ->
            CompletableFuture.completedFuture(Errors.NONE);

    /**
     * @param offsetsPartition the group's partition of {@code __consumer_offsets}
     * @param version          the TxnOffsetCommit version, which decides how a refusal is told
     * @return completes with NONE when the offsets may be written, else with the error to answer for
     *     every partition of the request; at once on the caller's thread, or later on another thread
     *     (when another broker coordinates the transaction), never failed
     */
    CompletableFuture<Errors> verify(TopicPartition offsetsPartition, String transactionalId, long producerId,
                                     short producerEpoch, short version);
}
