package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Producer ids and transactions as the 4.4 producer, the Admin client and kafka-transactions send them:
 * InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and TxnOffsetCommit with an unknown producer
 * id or a wrong producer epoch, and DescribeProducers, DescribeTransactions, ListTransactions. A request
 * that names a producer id names the one this side gave (as a request names this side's topic id).
 */
class TransactionsConformanceTest extends DifferentialTest {
    /** A producer id neither broker gave out. */
    private static final long UNKNOWN_PRODUCER_ID = 987_654_321L;

    private static String perVersion(String id, short version) {
        return id + "-v" + version;
    }

    private static BrokerSide.Producer producer(BrokerSide side, String transactionalId) {
        return side.producer(transactionalId);
    }

    // ---- InitProducerId

    @Test
    void initProducerIdWithoutTransactionalId() {
        both(BrokerSide::awaitProducerIds);
        sequence("InitProducerId of an idempotent producer", ApiKeys.INIT_PRODUCER_ID)
                .request((side, version) -> ClientRequests.idempotentInitProducerId())
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void initProducerIdOfANewTransactionalId() {
        both(side -> side.awaitTransactionCoordinator("diff-txn-new"));
        sequence("InitProducerId of a new transactional id", ApiKeys.INIT_PRODUCER_ID)
                .setUp((side, version) -> side.awaitTransactionCoordinator(perVersion("diff-txn-new", version)))
                .request((side, version) -> TransactionRequests.init(perVersion("diff-txn-new", version)))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void initProducerIdWithAWrongEpochOrAnUnknownProducerId() {
        both(side -> side.keep(side.initTransactional("diff-txn-reinit")));
        sequence("InitProducerId of a transactional id with a wrong producer epoch", ApiKeys.INIT_PRODUCER_ID).from(3)
                .request((side, version) -> TransactionRequests.reinit("diff-txn-reinit",
                        producer(side, "diff-txn-reinit").producerId(), (short) 7))
                .expect("/errorCode", version -> version >= 4 ? Errors.PRODUCER_FENCED : Errors.INVALID_PRODUCER_EPOCH)
                .run();
        sequence("InitProducerId of a transactional id with another producer id", ApiKeys.INIT_PRODUCER_ID).from(3)
                .request((side, version) -> TransactionRequests.reinit("diff-txn-reinit", UNKNOWN_PRODUCER_ID,
                        (short) 0))
                .expect("/errorCode", version -> version >= 4 ? Errors.PRODUCER_FENCED : Errors.INVALID_PRODUCER_EPOCH)
                .run();
    }

    // ---- AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit

    @Test
    void addPartitionsToTxnWithAnUnknownProducerIdOrAWrongEpoch() {
        both(side -> {
            side.createTopic("diff-aptt-topic", 1);
            side.keep(side.initTransactional("diff-txn-aptt"));
        });
        sequence("AddPartitionsToTxn with an unknown producer id", ApiKeys.ADD_PARTITIONS_TO_TXN).upTo(3)
                .request((side, version) -> TransactionRequests.addPartition("diff-txn-aptt", UNKNOWN_PRODUCER_ID,
                        (short) 0, "diff-aptt-topic"))
                .expect("/resultsByTopicV3AndBelow/0/resultsByPartition/0/partitionErrorCode",
                        Errors.INVALID_PRODUCER_ID_MAPPING)
                .run();
        sequence("AddPartitionsToTxn with a wrong producer epoch", ApiKeys.ADD_PARTITIONS_TO_TXN).upTo(3)
                .request((side, version) -> TransactionRequests.addPartition("diff-txn-aptt",
                        producer(side, "diff-txn-aptt").producerId(), (short) 3, "diff-aptt-topic"))
                .run();
        sequence("AddPartitionsToTxn of an unknown transactional id", ApiKeys.ADD_PARTITIONS_TO_TXN).upTo(3)
                .request((side, version) -> TransactionRequests.addPartition("diff-txn-aptt-unknown",
                        UNKNOWN_PRODUCER_ID, (short) 0, "diff-aptt-topic"))
                .run();
        sequence("AddPartitionsToTxn of partition 0", ApiKeys.ADD_PARTITIONS_TO_TXN).upTo(3)
                .request((side, version) -> TransactionRequests.addPartition("diff-txn-aptt",
                        producer(side, "diff-txn-aptt").producerId(), producer(side, "diff-txn-aptt").epoch(),
                        "diff-aptt-topic"))
                .expect("/resultsByTopicV3AndBelow/0/resultsByPartition/0/partitionErrorCode", Errors.NONE)
                .run();
    }

    /**
     * The brokers' verification (AddPartitionsToTxn v4+ VerifyOnly, what a partition leader asks before
     * a transaction's first write): NONE for the partition in the transaction, TRANSACTION_ABORTABLE for
     * the other, whatever the version; an unknown producer id for every partition.
     */
    @Test
    void addPartitionsToTxnVerifyOnly() {
        both(side -> {
            side.createTopic("diff-apv-topic", 2);
            BrokerSide.Producer producer = side.initTransactional("diff-txn-apv");
            side.keep(producer);
            side.addPartition(producer, "diff-apv-topic");
        });
        sequence("AddPartitionsToTxn VerifyOnly of a partition in the transaction and one not", ApiKeys.ADD_PARTITIONS_TO_TXN)
                .from(4)
                .request((side, version) -> TransactionRequests.verifyPartitions("diff-txn-apv",
                        producer(side, "diff-txn-apv").producerId(), producer(side, "diff-txn-apv").epoch(),
                        "diff-apv-topic"))
                .expect("/resultsByTransaction/0/topicResults/0/resultsByPartition/1/partitionErrorCode",
                        Errors.TRANSACTION_ABORTABLE)
                .run();
        sequence("AddPartitionsToTxn VerifyOnly of an unknown producer id", ApiKeys.ADD_PARTITIONS_TO_TXN).from(4)
                .request((side, version) -> TransactionRequests.verifyPartitions("diff-txn-apv", UNKNOWN_PRODUCER_ID,
                        (short) 0, "diff-apv-topic"))
                .expect("/resultsByTransaction/0/topicResults/0/resultsByPartition/0/partitionErrorCode",
                        Errors.INVALID_PRODUCER_ID_MAPPING)
                .run();
    }

    @Test
    void addOffsetsToTxnWithAnUnknownProducerIdOrAWrongEpoch() {
        both(side -> side.keep(side.initTransactional("diff-txn-aott")));
        sequence("AddOffsetsToTxn with an unknown producer id", ApiKeys.ADD_OFFSETS_TO_TXN)
                .request((side, version) -> TransactionRequests.addOffsets("diff-txn-aott", UNKNOWN_PRODUCER_ID,
                        (short) 0, "diff-aott-group"))
                .expect("/errorCode", Errors.INVALID_PRODUCER_ID_MAPPING)
                .run();
        sequence("AddOffsetsToTxn with a wrong producer epoch", ApiKeys.ADD_OFFSETS_TO_TXN)
                .request((side, version) -> TransactionRequests.addOffsets("diff-txn-aott",
                        producer(side, "diff-txn-aott").producerId(), (short) 4, "diff-aott-group"))
                .run();
    }

    @Test
    void endTxnOutsideATransactionAndWithAWrongEpoch() {
        both(side -> side.keep(side.initTransactional("diff-txn-end")));
        sequence("EndTxn commit without a transaction", ApiKeys.END_TXN)
                .request((side, version) -> TransactionRequests.endTxn("diff-txn-end",
                        producer(side, "diff-txn-end").producerId(), producer(side, "diff-txn-end").epoch(), true))
                .expect("/errorCode", Errors.INVALID_TXN_STATE)
                .run();
        sequence("EndTxn with an unknown producer id", ApiKeys.END_TXN)
                .request((side, version) -> TransactionRequests.endTxn("diff-txn-end", UNKNOWN_PRODUCER_ID, (short) 0,
                        false))
                .expect("/errorCode", Errors.INVALID_PRODUCER_ID_MAPPING)
                .run();
        sequence("EndTxn with a wrong producer epoch", ApiKeys.END_TXN)
                .request((side, version) -> TransactionRequests.endTxn("diff-txn-end",
                        producer(side, "diff-txn-end").producerId(), (short) 9, false))
                .run();
    }

    /**
     * Transaction version 2 (EndTxn v5): an abort with no transaction open is done, at the next epoch,
     * which the answer carries (it fences whatever the producer had in flight).
     */
    @Test
    void endTxnV5AbortWithNoTransactionOpen() {
        both(side -> side.keep(side.initTransactional("diff-txn-end-v5")));
        sequence("EndTxn v5 abort with no transaction open", ApiKeys.END_TXN)
                .from(5)
                .upTo(5)
                .request((side, version) -> TransactionRequests.endTxn("diff-txn-end-v5",
                        producer(side, "diff-txn-end-v5").producerId(), producer(side, "diff-txn-end-v5").epoch(),
                        false))
                .expect("/errorCode", Errors.NONE)
                .check(answers -> assertEquals(answers.kafka().get("producerEpoch").asInt(),
                        answers.krill().get("producerEpoch").asInt(), "the epoch after the abort"))
                .run();
    }

    /**
     * KIP-890 part 1 on the produce path: a transactional batch for a partition the producer did not add
     * to its transaction is refused by the leader (INVALID_TXN_STATE, or TRANSACTION_ABORTABLE from v11,
     * whose clients know it); one of a producer id the coordinator does not know, with
     * INVALID_PRODUCER_ID_MAPPING. Compared up to v11: the 4.4 producer sends v12+ only with transaction
     * version 2 (whose implicit partition adding Kafka does at v12+ and Krill does not serve).
     */
    @Test
    void transactionalProduceOutsideTheTransaction() {
        both(side -> {
            side.createTopic("diff-tp-topic", 1);
            side.keep(side.initTransactional("diff-txn-tp"));
        });
        sequence("transactional Produce to a partition not added to the transaction", ApiKeys.PRODUCE).upTo(11)
                .request((side, version) -> TransactionRequests.transactionalProduce("diff-txn-tp", "diff-tp-topic",
                        side.topicId("diff-tp-topic"), producer(side, "diff-txn-tp").producerId(),
                        producer(side, "diff-txn-tp").epoch(), 2))
                .expect("/responses/0/partitionResponses/0/errorCode",
                        version -> version >= 11 ? Errors.TRANSACTION_ABORTABLE : Errors.INVALID_TXN_STATE)
                .run();
        sequence("transactional Produce with a producer id the coordinator does not know", ApiKeys.PRODUCE).upTo(11)
                .request((side, version) -> TransactionRequests.transactionalProduce("diff-txn-tp", "diff-tp-topic",
                        side.topicId("diff-tp-topic"), UNKNOWN_PRODUCER_ID, (short) 0, 2))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.INVALID_PRODUCER_ID_MAPPING)
                .run();
    }

    /**
     * KIP-890 part 1 at the group coordinator: a TxnOffsetCommit of a producer that did not add the
     * group's offsets to its transaction (AddOffsetsToTxn) is verified with the transaction coordinator
     * and refused (INVALID_TXN_STATE, TRANSACTION_ABORTABLE from v4); from v5 (part 2) it adds them.
     */
    @Test
    void txnOffsetCommitWithoutAddOffsetsToTxn() {
        both(side -> {
            side.createTopic("diff-toc-topic", 1);
            side.awaitGroupCoordinator("diff-toc-group");
            side.keep(side.initTransactional("diff-txn-toc"));
        });
        sequence("TxnOffsetCommit of a producer that did not add the group's offsets", ApiKeys.TXN_OFFSET_COMMIT)
                .upTo(4)
                .request((side, version) -> TransactionRequests.txnOffsetCommit("diff-txn-toc", "diff-toc-group",
                        producer(side, "diff-txn-toc").producerId(), producer(side, "diff-txn-toc").epoch(),
                        "diff-toc-topic", 1L))
                .expect("/topics/0/partitions/0/errorCode",
                        version -> version >= 4 ? Errors.TRANSACTION_ABORTABLE : Errors.INVALID_TXN_STATE)
                .run();
        // Transaction version 2 (KIP-890 part 2): from v5 the request stands for AddOffsetsToTxn.
        sequence("TxnOffsetCommit v5+ adds the group's offsets to the transaction", ApiKeys.TXN_OFFSET_COMMIT)
                .from(5)
                .request((side, version) -> TransactionRequests.txnOffsetCommit("diff-txn-toc", "diff-toc-group",
                        producer(side, "diff-txn-toc").producerId(), producer(side, "diff-txn-toc").epoch(),
                        "diff-toc-topic", 1L))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    /** The same verification refuses a producer id the transaction coordinator does not know. */
    @Test
    void txnOffsetCommitWithAnUnknownProducerId() {
        both(side -> {
            side.createTopic("diff-toc-unknown-topic", 1);
            side.awaitGroupCoordinator("diff-toc-unknown-group");
            side.awaitTransactionCoordinator("diff-txn-toc-unknown");
        });
        sequence("TxnOffsetCommit with an unknown producer id", ApiKeys.TXN_OFFSET_COMMIT)
                .request((side, version) -> TransactionRequests.txnOffsetCommit("diff-txn-toc-unknown",
                        "diff-toc-unknown-group", UNKNOWN_PRODUCER_ID, (short) 0, "diff-toc-unknown-topic", 1L))
                .expect("/topics/0/partitions/0/errorCode", Errors.INVALID_PRODUCER_ID_MAPPING)
                .run();
    }

    @Test
    void endTxnAbortOfAnOngoingTransaction() {
        both(side -> side.createTopic("diff-abort-topic", 1));
        sequence("EndTxn abort of a transaction with a partition", ApiKeys.END_TXN)
                .setUp((side, version) -> {
                    BrokerSide.Producer producer = side.initTransactional(perVersion("diff-txn-abort", version));
                    side.keep(producer);
                    side.addPartition(producer, "diff-abort-topic");
                })
                .request((side, version) -> {
                    BrokerSide.Producer producer = producer(side, perVersion("diff-txn-abort", version));
                    return TransactionRequests.endTxn(producer.transactionalId(), producer.producerId(), producer.epoch(),
                            false);
                })
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    /** read_committed Fetch of a partition with an open transaction (KIP-98): only what precedes it. */
    @Test
    void readCommittedFetchOfOpenAndAbortedTransactions() {
        both(side -> {
            side.createTopic("diff-rc-topic", 1);
            side.produce("diff-rc-topic", 0, 2);
            BrokerSide.Producer producer = side.initTransactional("diff-txn-rc");
            side.keep(producer);
            side.addPartition(producer, "diff-rc-topic");
            side.produceTransactional(producer, "diff-rc-topic", 3);
        });
        sequence("read_committed Fetch with an open transaction (up to the last stable offset)", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch("diff-rc-topic", side.topicId("diff-rc-topic"), 0, 0L,
                        side.leaderEpoch("diff-rc-topic", 0), true))
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeProducers of a partition with an open transaction", ApiKeys.DESCRIBE_PRODUCERS)
                .request((side, version) -> TransactionRequests.describeProducers("diff-rc-topic", 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    /**
     * Fetch from offset 0 after an abort: the records, not the marker. The records carry
     * {@link ClientRequests#BASE_TIMESTAMP} (2023) and the marker the coordinator's clock, more than segment.ms
     * (7 days) later in record time, so the marker opens a new segment (Kafka's LogSegment#shouldRoll counts
     * segment.ms from the segment's first timestamp) and a Fetch, which reads one segment, stops before it.
     * The aborted transaction is listed all the same (it is indexed with the marker, in the next segment).
     */
    @Test
    void readCommittedFetchAfterAnAbort() {
        both(side -> {
            side.createTopic("diff-rca-topic", 1);
            side.produce("diff-rca-topic", 0, 2);
            BrokerSide.Producer producer = side.initTransactional("diff-txn-rca");
            side.keep(producer);
            side.addPartition(producer, "diff-rca-topic");
            side.produceTransactional(producer, "diff-rca-topic", 3);
            side.endTransaction(producer, false, "diff-rca-topic");
        });
        sequence("read_committed Fetch after the abort (the aborted transaction listed)", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch("diff-rca-topic", side.topicId("diff-rca-topic"), 0,
                        0L, side.leaderEpoch("diff-rca-topic", 0), true))
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("read_uncommitted Fetch after the abort", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch("diff-rca-topic", side.topicId("diff-rca-topic"), 0,
                        0L, side.leaderEpoch("diff-rca-topic", 0), false))
                .expect("/responses/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- DescribeProducers, DescribeTransactions, ListTransactions

    @Test
    void describeProducersOfAPartitionWithoutAndAnUnknownPartition() {
        both(side -> {
            side.createTopic("diff-dp-topic", 1);
            side.produce("diff-dp-topic", 0, 2);
        });
        sequence("DescribeProducers of a partition without idempotent producers", ApiKeys.DESCRIBE_PRODUCERS)
                .request((side, version) -> TransactionRequests.describeProducers("diff-dp-topic", 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeProducers of an unknown partition", ApiKeys.DESCRIBE_PRODUCERS)
                .request((side, version) -> TransactionRequests.describeProducers("diff-dp-topic", 3))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void describeTransactions() {
        both(side -> {
            side.createTopic("diff-dtx-topic", 1);
            side.keep(side.initTransactional("diff-txn-empty"));
        });
        sequence("DescribeTransactions of an unknown transactional id", ApiKeys.DESCRIBE_TRANSACTIONS)
                .request((side, version) -> TransactionRequests.describeTransactions("diff-txn-nobody"))
                .expect("/transactionStates/0/errorCode", Errors.TRANSACTIONAL_ID_NOT_FOUND)
                .run();
        sequence("DescribeTransactions of a transactional id without a transaction", ApiKeys.DESCRIBE_TRANSACTIONS)
                .request((side, version) -> TransactionRequests.describeTransactions("diff-txn-empty"))
                .expect("/transactionStates/0/errorCode", Errors.NONE)
                .run();
        both(side -> side.addPartition(producer(side, "diff-txn-empty"), "diff-dtx-topic"));
        sequence("DescribeTransactions of an ongoing transaction", ApiKeys.DESCRIBE_TRANSACTIONS)
                .request((side, version) -> TransactionRequests.describeTransactions("diff-txn-empty"))
                .expect("/transactionStates/0/errorCode", Errors.NONE)
                .check(answers -> answers.both().forEach(answer -> assertTrue(
                        answer.at("/transactionStates/0/transactionStartTimeMs").asLong() > 0,
                        "an ongoing transaction has a start time: " + answer)))
                .run();
    }

    @Test
    void listTransactions() {
        both(side -> {
            side.createTopic("diff-ltx-topic", 1);
            side.keep(side.initTransactional("diff-ltx-empty"));
            BrokerSide.Producer ongoing = side.initTransactional("diff-ltx-ongoing");
            side.addPartition(ongoing, "diff-ltx-topic");
        });
        sequence("ListTransactions (this sequence's)", ApiKeys.LIST_TRANSACTIONS)
                .request((side, version) -> TransactionRequests.listTransactions(List.of(), null, version))
                .onlyOwn("/transactionStates", "transactionalId", "diff-ltx-")
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("ListTransactions in state Ongoing", ApiKeys.LIST_TRANSACTIONS)
                .request((side, version) -> TransactionRequests.listTransactions(List.of("Ongoing"), null, version))
                .onlyOwn("/transactionStates", "transactionalId", "diff-ltx-")
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("ListTransactions by id pattern", ApiKeys.LIST_TRANSACTIONS).from(2)
                .request((side, version) -> TransactionRequests.listTransactions(List.of(), "diff-ltx-.*", version))
                .unordered("/transactionStates", "transactionalId")
                .expect("/errorCode", Errors.NONE)
                .run();
    }
}
