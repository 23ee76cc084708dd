package io.krill.broker.txn;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AddPartitionsToTxnRequest;
import io.krill.wire.message.AddPartitionsToTxnResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.message.DescribeProducersRequest;
import io.krill.wire.message.DescribeProducersResponse;
import io.krill.wire.message.DescribeTransactionsRequest;
import io.krill.wire.message.DescribeTransactionsResponse;
import io.krill.wire.message.EndTxnRequest;
import io.krill.wire.message.EndTxnResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.message.ListTransactionsRequest;
import io.krill.wire.message.ListTransactionsResponse;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.message.WriteTxnMarkersRequest;
import io.krill.wire.message.WriteTxnMarkersResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transaction APIs over a raw socket at the versions Krill serves, including what stock clients never
 * send: InitProducerId at every version, a transactional batch for a partition outside the transaction
 * (KIP-890 part 1: refused), AddPartitionsToTxn's broker form (v4, VerifyOnly), fencing errors per
 * version, a marker from a deposed coordinator, and the admin APIs' error cases.
 */
class TransactionApiVersionsTest {
    private static final String ID = "raw-txn";
    private static final String TOPIC = "raw";
    private static TestBroker broker;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("transaction.state.log.num.partitions", "2"));
        client = new RawClient(broker.port());
        // COORDINATOR_NOT_AVAILABLE while __transaction_state is created on first use: a client retries.
        java.util.concurrent.atomic.AtomicReference<FindCoordinatorResponse> answer = new java.util.concurrent.atomic.AtomicReference<>();
        org.awaitility.Awaitility.await("the transaction coordinator").atMost(java.time.Duration.ofSeconds(30))
                .until(() -> {
                    answer.set(call(ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequest()
                            .setKeyType((byte) 1).setCoordinatorKeys(List.of(ID))));
                    return answer.get().coordinators().get(0).errorCode() != Errors.COORDINATOR_NOT_AVAILABLE.code();
                });
        FindCoordinatorResponse found = answer.get();
        assertEquals(Errors.NONE.code(), found.coordinators().get(0).errorCode());
        assertEquals(broker.port(), found.coordinators().get(0).port());
        CreateTopicsResponse created = call(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest().setTimeoutMs(10_000)
                .setTopics(List.of(new CreateTopicsRequest.CreatableTopic().setName(TOPIC).setNumPartitions(2)
                        .setReplicationFactor((short) 1))));
        assertEquals(Errors.NONE.code(), created.topics().get(0).errorCode());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        return client.call(api, version, request);
    }

    private static InitProducerIdResponse init(short version, long pid, short epoch) throws Exception {
        return call(ApiKeys.INIT_PRODUCER_ID, version, new InitProducerIdRequest().setTransactionalId(ID)
                .setTransactionTimeoutMs(60_000).setProducerId(pid).setProducerEpoch(epoch));
    }

    private static short produce(long pid, short epoch, int sequence, int partition) throws Exception {
        return produce((short) 11, pid, epoch, sequence, partition);
    }

    private static short produce(short version, long pid, short epoch, int sequence, int partition) throws Exception {
        ByteBuf batch;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.producer(pid, epoch, sequence).transactional(true)
                    .append(System.currentTimeMillis(), "k".getBytes(StandardCharsets.UTF_8),
                            "v".getBytes(StandardCharsets.UTF_8));
            batch = builder.build();
        }
        try {
            ProduceResponse response = call(ApiKeys.PRODUCE, version, new ProduceRequest().setTransactionalId(ID)
                    .setAcks((short) -1).setTimeoutMs(5000).setTopicData(List.of(new ProduceRequest.TopicProduceData()
                            .setName(TOPIC).setPartitionData(List.of(new ProduceRequest.PartitionProduceData()
                                    .setIndex(partition).setRecords(ByteBufRecords.of(batch)))))));
            return response.responses().get(0).partitionResponses().get(0).errorCode();
        } finally {
            batch.release();
        }
    }

    private static short addPartitions(short version, long pid, short epoch, String topic, int... partitions)
            throws Exception {
        AddPartitionsToTxnResponse response = call(ApiKeys.ADD_PARTITIONS_TO_TXN, version, new AddPartitionsToTxnRequest()
                .setV3AndBelowTransactionalId(ID).setV3AndBelowProducerId(pid).setV3AndBelowProducerEpoch(epoch)
                .setV3AndBelowTopics(List.of(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic().setName(topic)
                        .setPartitions(java.util.Arrays.stream(partitions).boxed().toList()))));
        return response.resultsByTopicV3AndBelow().get(0).resultsByPartition().get(0).partitionErrorCode();
    }

    private static short endTxn(short version, long pid, short epoch, boolean commit) throws Exception {
        EndTxnResponse response = call(ApiKeys.END_TXN, version, new EndTxnRequest().setTransactionalId(ID)
                .setProducerId(pid).setProducerEpoch(epoch).setCommitted(commit));
        return response.errorCode();
    }

    @Test
    void aTransactionAtEveryServedVersion() throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(() -> init((short) 0, -1, (short) -1).errorCode() == 0);
        InitProducerIdResponse current = init((short) 2, -1, (short) -1);
        for (short v = 3; v <= 5; v++) {
            InitProducerIdResponse next = init(v, current.producerId(), current.producerEpoch());
            assertEquals(Errors.NONE.code(), next.errorCode(), "v" + v);
            assertEquals(current.producerId(), next.producerId());
            assertEquals(current.producerEpoch() + 1, next.producerEpoch(), "v" + v);
            current = next;
        }
        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), init((short) 3, current.producerId(), (short) 0).errorCode(),
                "PRODUCER_FENCED below v4");
        assertEquals(Errors.PRODUCER_FENCED.code(), init((short) 4, current.producerId(), (short) 0).errorCode());
        long pid = current.producerId();
        short epoch = current.producerEpoch();

        assertEquals(Errors.TRANSACTION_ABORTABLE.code(), produce(pid, epoch, 0, 0), "not added to the transaction");
        assertEquals(Errors.INVALID_TXN_STATE.code(), produce((short) 10, pid, epoch, 0, 0),
                "clients before Produce v11 do not know TRANSACTION_ABORTABLE");
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING.code(), produce(pid + 1, epoch, 0, 0), "another producer id");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), addPartitions((short) 3, pid, epoch, "nope", 0));
        assertEquals(Errors.NONE.code(), addPartitions((short) 3, pid, epoch, TOPIC, 0));
        assertEquals(Errors.NONE.code(), produce(pid, epoch, 0, 0));
        assertEquals(Errors.NONE.code(), produce(pid, epoch, 1, 0), "the transaction is open there now");
        assertEquals(Errors.TRANSACTION_ABORTABLE.code(), produce(pid, epoch, 0, 1));

        AddPartitionsToTxnResponse verified = call(ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 5, new AddPartitionsToTxnRequest()
                .setTransactions(List.of(new AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction()
                        .setTransactionalId(ID).setProducerId(pid).setProducerEpoch(epoch).setVerifyOnly(true)
                        .setTopics(List.of(new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic().setName(TOPIC)
                                .setPartitions(List.of(0, 1)))))));
        List<AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult> results = verified.resultsByTransaction().get(0)
                .topicResults().get(0).resultsByPartition();
        assertEquals(Errors.NONE.code(), results.get(0).partitionErrorCode());
        assertEquals(Errors.TRANSACTION_ABORTABLE.code(), results.get(1).partitionErrorCode(), "as Kafka's coordinator");

        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), endTxn((short) 1, pid, (short) (epoch - 1), true));
        assertEquals(Errors.PRODUCER_FENCED.code(), endTxn((short) 2, pid, (short) (epoch - 1), true));
        assertEquals(Errors.NONE.code(), endTxn((short) 4, pid, epoch, true));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            DescribeTransactionsResponse d = call(ApiKeys.DESCRIBE_TRANSACTIONS, (short) 0,
                    new DescribeTransactionsRequest().setTransactionalIds(List.of(ID)));
            return "CompleteCommit".equals(d.transactionStates().get(0).transactionState());
        });

        DescribeProducersResponse producers = call(ApiKeys.DESCRIBE_PRODUCERS, (short) 0, new DescribeProducersRequest()
                .setTopics(List.of(new DescribeProducersRequest.TopicRequest().setName(TOPIC).setPartitionIndexes(List.of(0)))));
        DescribeProducersResponse.ProducerState state = producers.topics().get(0).partitions().get(0).activeProducers()
                .get(0);
        assertEquals(pid, state.producerId());
        assertEquals(-1, state.currentTxnStartOffset(), "the commit marker ended it");
        assertTrue(state.coordinatorEpoch() >= 0);

        WriteTxnMarkersResponse stale = call(ApiKeys.WRITE_TXN_MARKERS, (short) 2, new WriteTxnMarkersRequest()
                .setMarkers(List.of(new WriteTxnMarkersRequest.WritableTxnMarker().setProducerId(pid)
                        .setProducerEpoch(epoch).setTransactionResult(false).setCoordinatorEpoch(state.coordinatorEpoch() - 1)
                        .setTopics(List.of(new WriteTxnMarkersRequest.WritableTxnMarkerTopic().setName(TOPIC)
                                .setPartitionIndexes(List.of(0)))))));
        assertEquals(Errors.TRANSACTION_COORDINATOR_FENCED.code(),
                stale.markers().get(0).topics().get(0).partitions().get(0).errorCode(), "a deposed coordinator's marker");
    }

    @Test
    void adminErrorCases() throws Exception {
        DescribeTransactionsResponse unknown = call(ApiKeys.DESCRIBE_TRANSACTIONS, (short) 0,
                new DescribeTransactionsRequest().setTransactionalIds(List.of("never-seen")));
        short error = unknown.transactionStates().get(0).errorCode();
        assertTrue(error == Errors.TRANSACTIONAL_ID_NOT_FOUND.code() || error == Errors.NOT_COORDINATOR.code(),
                "never-seen hashes to a partition of this broker or not: " + error);
        ListTransactionsResponse badPattern = call(ApiKeys.LIST_TRANSACTIONS, (short) 2, new ListTransactionsRequest()
                .setTransactionalIdPattern("(unclosed"));
        assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), badPattern.errorCode());
        ListTransactionsResponse unknownState = call(ApiKeys.LIST_TRANSACTIONS, (short) 0, new ListTransactionsRequest()
                .setStateFilters(List.of("Sleeping")));
        assertEquals(List.of("Sleeping"), unknownState.unknownStateFilters());
        FindCoordinatorResponse empty = call(ApiKeys.FIND_COORDINATOR, (short) 3, new FindCoordinatorRequest()
                .setKeyType((byte) 1).setKey(""));
        assertEquals(Errors.INVALID_REQUEST.code(), empty.errorCode());
        InitProducerIdResponse tooLong = call(ApiKeys.INIT_PRODUCER_ID, (short) 4, new InitProducerIdRequest()
                .setTransactionalId(ID).setTransactionTimeoutMs(Integer.MAX_VALUE));
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT.code(), tooLong.errorCode());
    }
}
