package io.krill.broker.txn;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.DescribeTransactionsRequest;
import io.krill.wire.message.DescribeTransactionsResponse;
import io.krill.wire.message.EndTxnRequest;
import io.krill.wire.message.EndTxnResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.ListOffsetsResponse;
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
 * Transaction version 2 (KIP-890 part 2) over a raw socket, as a 4.x producer speaks it: Produce v12 adds
 * its partition to the transaction, EndTxn v5 ends it at the next epoch; then what the protocol exists to
 * stop: a delayed write of an ended transaction landing in the next one, a stale marker ending the next
 * one, and a transaction left open that holds back the last stable offset.
 */
class TransactionVersionTwoTest {
    private static final String ID = "raw-txn-v2";
    private static final String TOPIC = "raw-v2";
    private static final short PRODUCE_V12 = 12;
    private static TestBroker broker;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("transaction.state.log.num.partitions", "1"));
        client = new RawClient(broker.port());
        await("the transaction coordinator").atMost(Duration.ofSeconds(30)).until(() -> {
            FindCoordinatorResponse found = call(ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequest()
                    .setKeyType((byte) 1).setCoordinatorKeys(List.of(ID)));
            return found.coordinators().get(0).errorCode() == Errors.NONE.code();
        });
        call(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest().setTimeoutMs(10_000).setTopics(List.of(
                new CreateTopicsRequest.CreatableTopic().setName(TOPIC).setNumPartitions(1).setReplicationFactor((short) 1))));
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        return client.call(api, version, request);
    }

    private static short produce(long pid, short epoch, int sequence, String value) throws Exception {
        ByteBuf batch;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.producer(pid, epoch, sequence).transactional(true)
                    .append(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8));
            batch = builder.build();
        }
        try {
            ProduceResponse response = call(ApiKeys.PRODUCE, PRODUCE_V12, new ProduceRequest().setTransactionalId(ID)
                    .setAcks((short) -1).setTimeoutMs(5000).setTopicData(List.of(new ProduceRequest.TopicProduceData()
                            .setName(TOPIC).setPartitionData(List.of(new ProduceRequest.PartitionProduceData()
                                    .setIndex(0).setRecords(ByteBufRecords.of(batch)))))));
            return response.responses().get(0).partitionResponses().get(0).errorCode();
        } finally {
            batch.release();
        }
    }

    private static EndTxnResponse end(long pid, short epoch, boolean commit) throws Exception {
        return call(ApiKeys.END_TXN, (short) 5, new EndTxnRequest().setTransactionalId(ID).setProducerId(pid)
                .setProducerEpoch(epoch).setCommitted(commit));
    }

    private static void awaitState(String state) {
        await(state).atMost(Duration.ofSeconds(10)).until(() -> {
            DescribeTransactionsResponse d = call(ApiKeys.DESCRIBE_TRANSACTIONS, (short) 0,
                    new DescribeTransactionsRequest().setTransactionalIds(List.of(ID)));
            return state.equals(d.transactionStates().get(0).transactionState());
        });
    }

    /** The latest offset at {@code isolation} (0 read_uncommitted: the high watermark; 1: the last stable offset). */
    private static long latest(byte isolation) throws Exception {
        ListOffsetsResponse response = call(ApiKeys.LIST_OFFSETS, (short) 5, new ListOffsetsRequest().setReplicaId(-1)
                .setIsolationLevel(isolation).setTopics(List.of(new ListOffsetsRequest.ListOffsetsTopic().setName(TOPIC)
                        .setPartitions(List.of(new ListOffsetsRequest.ListOffsetsPartition().setPartitionIndex(0)
                                .setTimestamp(-1))))));
        return response.topics().get(0).partitions().get(0).offset();
    }

    private static short marker(long pid, short epoch, int coordinatorEpoch) throws Exception {
        WriteTxnMarkersResponse response = call(ApiKeys.WRITE_TXN_MARKERS, (short) 2, new WriteTxnMarkersRequest()
                .setMarkers(List.of(new WriteTxnMarkersRequest.WritableTxnMarker().setProducerId(pid)
                        .setProducerEpoch(epoch).setTransactionResult(true).setCoordinatorEpoch(coordinatorEpoch)
                        .setTransactionVersion((byte) 2)
                        .setTopics(List.of(new WriteTxnMarkersRequest.WritableTxnMarkerTopic().setName(TOPIC)
                                .setPartitionIndexes(List.of(0)))))));
        return response.markers().get(0).topics().get(0).partitions().get(0).errorCode();
    }

    @Test
    void eachTransactionHasAnEpochOfItsOwnSoNoLateWriteOrStaleMarkerCrossesIntoTheNext() throws Exception {
        InitProducerIdResponse init = await().atMost(Duration.ofSeconds(20)).until(
                () -> call(ApiKeys.INIT_PRODUCER_ID, (short) 5, new InitProducerIdRequest().setTransactionalId(ID)
                        .setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1)),
                r -> ((InitProducerIdResponse) r).errorCode() == 0);
        long pid = init.producerId();
        short e = init.producerEpoch();

        assertEquals(Errors.NONE.code(), produce(pid, e, 0, "first-1"), "Produce v12 adds the partition itself");
        assertEquals(Errors.NONE.code(), produce(pid, e, 1, "first-2"));
        EndTxnResponse committed = end(pid, e, true);
        assertEquals(Errors.NONE.code(), committed.errorCode());
        assertEquals(pid, committed.producerId());
        assertEquals(e + 1, committed.producerEpoch(), "EndTxn v5 hands the producer the next epoch");
        awaitState("CompleteCommit");
        assertEquals(committed.producerEpoch(), end(pid, e, true).producerEpoch(), "a retried EndTxn, answered the same");

        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), produce(pid, e, 2, "late"),
                "a delayed write of the committed transaction is fenced, not added to the next one");
        short next = committed.producerEpoch();
        assertEquals(Errors.NONE.code(), produce(pid, next, 0, "second"));
        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), marker(pid, next, Integer.MAX_VALUE),
                "a marker at the open transaction's own epoch cannot end it");
        assertEquals(3, latest((byte) 1), "the open transaction holds the last stable offset at its first record");
        EndTxnResponse aborted = end(pid, next, false);
        assertEquals(next + 1, aborted.producerEpoch());
        awaitState("CompleteAbort");

        // Every transaction ended: nothing holds back read_committed readers.
        assertEquals(latest((byte) 0), latest((byte) 1), "last stable offset at the high watermark");
        assertEquals(5, latest((byte) 0), "two records, a marker, one record, a marker: the late write is absent");
    }
}
