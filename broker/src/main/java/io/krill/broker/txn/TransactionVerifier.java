package io.krill.broker.txn;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Asks the coordinator of a transactional id whether partitions are in the producer's open transaction
 * before the transaction's first write to them (KIP-890 part 1, {@code transaction.partition.verification.enable}):
 * a partition leader before a transactional batch, the group coordinator before a TxnOffsetCommit. A
 * write the coordinator does not know of would open a transaction on the partition that no marker ever
 * ends (a hanging transaction), or commit offsets outside the transaction.
 *
 * <p>Where the coordinator is: the leader of the id's partition of {@code __transaction_state}. This
 * broker's own coordinator is asked directly and answers at once, on the caller's thread; another
 * broker is asked through {@link Remote} ({@link RemoteVerificationSender}: AddPartitionsToTxn v5
 * verify-only), whose answer arrives later on another thread; no leader is COORDINATOR_NOT_AVAILABLE.
 * Answers are the coordinator's errors per partition (NONE when verified), which callers translate for
 * their API and version ({@link VerificationErrors}).
 *
 * <p>Thread-safe: stateless besides the parts it asks.
 */
public final class TransactionVerifier {
    /** Asks the transaction coordinator on another broker. */
    @FunctionalInterface
    public interface Remote {
        /**
         * @param add adds the partitions to the transaction (transaction version 2) instead of checking them
         * @return completes with an error per partition of {@code partitions} (NONE when verified or added),
         *     never failed; network failures are NETWORK_EXCEPTION
         */
        CompletableFuture<Map<TopicPartition, Errors>> verify(int brokerId, String transactionalId, long producerId,
                                                             short producerEpoch, Set<TopicPartition> partitions,
                                                             boolean add);
    }

    /** The first TxnOffsetCommit version that adds the group's partition to the transaction (KIP-890 part 2). */
    public static final short TXN_OFFSET_COMMIT_ADDS_VERSION = 5;

    private final int nodeId;
    private final TransactionCoordinator coordinator;
    private final Supplier<MetadataImage> image;
    private final Remote remote;

    public TransactionVerifier(int nodeId, TransactionCoordinator coordinator, Supplier<MetadataImage> image,
                               Remote remote) {
        this.nodeId = nodeId;
        this.coordinator = coordinator;
        this.image = image;
        this.remote = remote;
    }

    /** Whether transactional writes are verified at all ({@code transaction.partition.verification.enable}). */
    public boolean enabled() {
        return coordinator.config().partitionVerification();
    }

    /**
     * Verifies {@code partitions} in the transaction of {@code transactionalId}: completes with an error
     * per partition (NONE when in the open transaction), at once when this broker coordinates the id.
     * A null transactional id (a non-transactional write) and disabled verification pass.
     */
    public CompletableFuture<Map<TopicPartition, Errors>> verify(String transactionalId, long producerId,
                                                                short producerEpoch, Set<TopicPartition> partitions) {
        if (transactionalId == null || !enabled()) {
            return CompletableFuture.completedFuture(all(partitions, Errors.NONE));
        }
        return ask(transactionalId, producerId, producerEpoch, partitions, false);
    }

    /**
     * Adds {@code partitions} to the transaction of {@code transactionalId} (transaction version 2: a Produce
     * v12+ or TxnOffsetCommit v5+ stands for the AddPartitionsToTxn the producer no longer sends), once the
     * coordinator has written them: completes with an error per partition (NONE when added). Done whether
     * or not verification is enabled, since nothing else adds them.
     */
    public CompletableFuture<Map<TopicPartition, Errors>> add(String transactionalId, long producerId,
                                                             short producerEpoch, Set<TopicPartition> partitions) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(all(partitions, Errors.INVALID_TXN_STATE));
        }
        return ask(transactionalId, producerId, producerEpoch, partitions, true);
    }

    private CompletableFuture<Map<TopicPartition, Errors>> ask(String transactionalId, long producerId,
                                                              short producerEpoch, Set<TopicPartition> partitions,
                                                              boolean add) {
        int leader = coordinatorOf(transactionalId);
        if (leader == nodeId) {
            if (!add) {
                return CompletableFuture.completedFuture(coordinator.verify(transactionalId, producerId, producerEpoch,
                        partitions));
            }
            CompletableFuture<Map<TopicPartition, Errors>> added = new CompletableFuture<>();
            coordinator.addPartitions(transactionalId, producerId, producerEpoch, partitions, true,
                    error -> added.complete(all(partitions, error)));
            return added;
        }
        if (leader == PartitionState.NO_LEADER) {
            return CompletableFuture.completedFuture(all(partitions, Errors.COORDINATOR_NOT_AVAILABLE));
        }
        return remote.verify(leader, transactionalId, producerId, producerEpoch, partitions, add);
    }

    /**
     * The verification of a TxnOffsetCommit of {@code version} to the group's partition
     * {@code offsetsPartition}, as that request answers it (NONE to go on); from v5 (transaction version 2)
     * the partition is added to the transaction instead, as AddOffsetsToTxn did.
     */
    public CompletableFuture<Errors> verifyTxnOffsetCommit(TopicPartition offsetsPartition, String transactionalId,
                                                           long producerId, short producerEpoch, short version) {
        Set<TopicPartition> partitions = Set.of(offsetsPartition);
        CompletableFuture<Map<TopicPartition, Errors>> asked = version >= TXN_OFFSET_COMMIT_ADDS_VERSION
                ? add(transactionalId, producerId, producerEpoch, partitions)
                : verify(transactionalId, producerId, producerEpoch, partitions);
        return asked.thenApply(errors ->
                VerificationErrors.forTxnOffsetCommit(errors.getOrDefault(offsetsPartition, Errors.NONE), version));
    }

    /** The broker leading the id's partition of {@code __transaction_state}, or NO_LEADER. */
    private int coordinatorOf(String transactionalId) {
        MetadataImage current = image.get();
        TopicImage topic = current.topic(TransactionStateTopic.NAME);
        if (topic == null) {
            return PartitionState.NO_LEADER;
        }
        PartitionState state = topic.partition(coordinator.partitionFor(transactionalId));
        if (state == null || !state.hasLeader() || (state.leader() != nodeId && current.broker(state.leader()) == null)) {
            return PartitionState.NO_LEADER;
        }
        return state.leader();
    }

    static Map<TopicPartition, Errors> all(Set<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, Errors> result = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            result.put(tp, error);
        }
        return result;
    }
}
