package io.krill.compat.differential;

import io.krill.wire.message.AddOffsetsToTxnRequest;
import io.krill.wire.message.AddPartitionsToTxnRequest;
import io.krill.wire.message.DescribeProducersRequest;
import io.krill.wire.message.DescribeTransactionsRequest;
import io.krill.wire.message.EndTxnRequest;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.ListTransactionsRequest;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.TxnOffsetCommitRequest;
import java.util.List;
import java.util.UUID;

/**
 * Transaction request bodies as the 4.4 transactional producer, the Admin client and kafka-transactions
 * fill them, for the version they are written at. AddPartitionsToTxn is a client's up to v3 (v4+ is the
 * brokers' batched verification).
 *
 * <p>Stateless; thread-safe.
 */
final class TransactionRequests {
    static final byte TRANSACTION_KEY_TYPE = 1;
    static final int TRANSACTION_TIMEOUT_MS = 60_000;

    private TransactionRequests() {
    }

    static FindCoordinatorRequest findCoordinator(String transactionalId) {
        return new FindCoordinatorRequest().setKeyType(TRANSACTION_KEY_TYPE).setCoordinatorKeys(List.of(transactionalId));
    }

    /** A transactional producer's first InitProducerId (no producer id and epoch yet). */
    static InitProducerIdRequest init(String transactionalId) {
        return new InitProducerIdRequest().setTransactionalId(transactionalId)
                .setTransactionTimeoutMs(TRANSACTION_TIMEOUT_MS);
    }

    /** InitProducerId v3+ of a producer that already has {@code producerId} at {@code epoch} (a re-init after an error). */
    static InitProducerIdRequest reinit(String transactionalId, long producerId, short epoch) {
        return init(transactionalId).setProducerId(producerId).setProducerEpoch(epoch);
    }

    /** AddPartitionsToTxn v0-3 of partition 0 of {@code topic}. */
    static AddPartitionsToTxnRequest addPartition(String transactionalId, long producerId, short epoch, String topic) {
        return new AddPartitionsToTxnRequest().setV3AndBelowTransactionalId(transactionalId)
                .setV3AndBelowProducerId(producerId).setV3AndBelowProducerEpoch(epoch)
                .setV3AndBelowTopics(List.of(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic().setName(topic)
                        .setPartitions(List.of(0))));
    }

    /**
     * AddPartitionsToTxn v4+ as a partition leader sends it to verify a producer's first write to
     * partitions 0 and 1 of {@code topic} (VerifyOnly, KIP-890 part 1).
     */
    static AddPartitionsToTxnRequest verifyPartitions(String transactionalId, long producerId, short epoch,
                                                      String topic) {
        return new AddPartitionsToTxnRequest().setTransactions(List.of(
                new AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction().setTransactionalId(transactionalId)
                        .setProducerId(producerId).setProducerEpoch(epoch).setVerifyOnly(true)
                        .setTopics(List.of(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic().setName(topic)
                                .setPartitions(List.of(0, 1))))));
    }

    static AddOffsetsToTxnRequest addOffsets(String transactionalId, long producerId, short epoch, String group) {
        return new AddOffsetsToTxnRequest().setTransactionalId(transactionalId).setProducerId(producerId)
                .setProducerEpoch(epoch).setGroupId(group);
    }

    static EndTxnRequest endTxn(String transactionalId, long producerId, short epoch, boolean commit) {
        return new EndTxnRequest().setTransactionalId(transactionalId).setProducerId(producerId).setProducerEpoch(epoch)
                .setCommitted(commit);
    }

    /** TxnOffsetCommit of partition 0 of {@code topic}, outside any group generation (v3+: -1 and no member). */
    static TxnOffsetCommitRequest txnOffsetCommit(String transactionalId, String group, long producerId, short epoch,
                                                  String topic, long offset) {
        return new TxnOffsetCommitRequest().setTransactionalId(transactionalId).setGroupId(group)
                .setProducerId(producerId).setProducerEpoch(epoch).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setGroupInstanceId(null)
                .setTopics(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().setName(topic)
                        .setPartitions(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(offset).setCommittedLeaderEpoch(-1)
                                .setCommittedMetadata("")))));
    }

    /**
     * Produce, acks=all, of one transactional batch of {@code count} records (first sequence 0) to
     * partition 0 of {@code topic}, as the 4.4 transactional producer sends it (up to v11 while the
     * cluster is on transaction version 1).
     */
    static ProduceRequest transactionalProduce(String transactionalId, String topic, UUID topicId, long producerId,
                                               short epoch, int count) {
        return ClientRequests.produce(topic, topicId, 0, ClientRequests.transactionalBatch(producerId, epoch, 0, count),
                (short) -1).setTransactionalId(transactionalId);
    }

    static DescribeProducersRequest describeProducers(String topic, int partition) {
        return new DescribeProducersRequest().setTopics(List.of(new DescribeProducersRequest.TopicRequest()
                .setName(topic).setPartitionIndexes(List.of(partition))));
    }

    static DescribeTransactionsRequest describeTransactions(String transactionalId) {
        return new DescribeTransactionsRequest().setTransactionalIds(List.of(transactionalId));
    }

    /** ListTransactions in {@code states} (all when empty), with the id pattern from v2 when given. */
    static ListTransactionsRequest listTransactions(List<String> states, String pattern, short version) {
        ListTransactionsRequest request = new ListTransactionsRequest().setStateFilters(states)
                .setProducerIdFilters(List.of());
        return version >= 2 && pattern != null ? request.setTransactionalIdPattern(pattern) : request;
    }
}
