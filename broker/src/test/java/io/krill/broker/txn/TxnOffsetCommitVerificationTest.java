package io.krill.broker.txn;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AddOffsetsToTxnRequest;
import io.krill.wire.message.AddOffsetsToTxnResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.message.EndTxnRequest;
import io.krill.wire.message.EndTxnResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker checks a TxnOffsetCommit with the transaction coordinator before it writes it (KIP-890 part
 * 1): offsets of a producer that did not add the group to its transaction (AddOffsetsToTxn) are refused,
 * as Kafka 4.4 refuses them (INVALID_TXN_STATE below v4, TRANSACTION_ABORTABLE from v4), and so are
 * those of a producer id the coordinator does not know; neither leaves anything pending. Once the group
 * is in the transaction its offsets are taken and committed with it.
 */
class TxnOffsetCommitVerificationTest {
    private static final String ID = "toc-app";
    private static final String GROUP = "toc-group";
    private static final String TOPIC = "toc-in";
    private static TestBroker broker;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("transaction.state.log.num.partitions", "2",
                "offsets.topic.num.partitions", "2"));
        client = new RawClient(broker.port());
        awaitCoordinator((byte) 1, ID);
        awaitCoordinator((byte) 0, GROUP);
        CreateTopicsResponse created = call(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest().setTimeoutMs(10_000)
                .setTopics(List.of(new CreateTopicsRequest.CreatableTopic().setName(TOPIC).setNumPartitions(1)
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

    /** COORDINATOR_NOT_AVAILABLE while the internal topic is created on first use: a client retries. */
    private static void awaitCoordinator(byte keyType, String key) {
        AtomicReference<Short> error = new AtomicReference<>();
        await("the coordinator of " + key).atMost(Duration.ofSeconds(30)).until(() -> {
            FindCoordinatorResponse found = call(ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequest()
                    .setKeyType(keyType).setCoordinatorKeys(List.of(key)));
            error.set(found.coordinators().get(0).errorCode());
            return error.get() != Errors.COORDINATOR_NOT_AVAILABLE.code();
        });
        assertEquals(Errors.NONE.code(), error.get());
    }

    private static short txnOffsetCommit(short version, long producerId, short epoch, long offset) throws Exception {
        TxnOffsetCommitResponse response = call(ApiKeys.TXN_OFFSET_COMMIT, version, new TxnOffsetCommitRequest()
                .setTransactionalId(ID).setGroupId(GROUP).setProducerId(producerId).setProducerEpoch(epoch)
                .setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().setName(TOPIC)
                        .setPartitions(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(offset).setCommittedLeaderEpoch(-1)
                                .setCommittedMetadata(""))))));
        return response.topics().get(0).partitions().get(0).errorCode();
    }

    /** OffsetFetch v7 with require_stable of partition 0: its error and committed offset. */
    private static OffsetFetchResponse.OffsetFetchResponsePartition fetchStable() throws Exception {
        OffsetFetchResponse response = call(ApiKeys.OFFSET_FETCH, (short) 7, new OffsetFetchRequest().setGroupId(GROUP)
                .setRequireStable(true).setTopics(List.of(new OffsetFetchRequest.OffsetFetchRequestTopic().setName(TOPIC)
                        .setPartitionIndexes(List.of(0)))));
        return response.topics().get(0).partitions().get(0);
    }

    @Test
    void offsetsOutsideTheTransactionAreRefusedAndOffsetsInItAreCommitted() throws Exception {
        AtomicReference<InitProducerIdResponse> init = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            init.set(call(ApiKeys.INIT_PRODUCER_ID, (short) 4, new InitProducerIdRequest().setTransactionalId(ID)
                    .setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1)));
            return init.get().errorCode() == Errors.NONE.code();
        });
        long pid = init.get().producerId();
        short epoch = init.get().producerEpoch();
        await("the group coordinator loaded").atMost(Duration.ofSeconds(20)).until(() ->
                txnOffsetCommit((short) 4, pid, epoch, 5) != Errors.COORDINATOR_LOAD_IN_PROGRESS.code());

        for (short version = 0; version <= 3; version++) {
            assertEquals(Errors.INVALID_TXN_STATE.code(), txnOffsetCommit(version, pid, epoch, 5), "v" + version);
        }
        assertEquals(Errors.TRANSACTION_ABORTABLE.code(), txnOffsetCommit((short) 4, pid, epoch, 5));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING.code(), txnOffsetCommit((short) 4, pid + 1, epoch, 5));
        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), txnOffsetCommit((short) 3, pid, (short) (epoch + 1), 5),
                "another epoch: fenced");
        OffsetFetchResponse.OffsetFetchResponsePartition nothing = fetchStable();
        assertEquals(Errors.NONE.code(), nothing.errorCode(), "nothing pending");
        assertEquals(-1, nothing.committedOffset());

        AddOffsetsToTxnResponse added = call(ApiKeys.ADD_OFFSETS_TO_TXN, (short) 3, new AddOffsetsToTxnRequest()
                .setTransactionalId(ID).setProducerId(pid).setProducerEpoch(epoch).setGroupId(GROUP));
        assertEquals(Errors.NONE.code(), added.errorCode());
        assertEquals(Errors.NONE.code(), txnOffsetCommit((short) 4, pid, epoch, 7));
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT.code(), fetchStable().errorCode());
        EndTxnResponse ended = call(ApiKeys.END_TXN, (short) 3, new EndTxnRequest().setTransactionalId(ID)
                .setProducerId(pid).setProducerEpoch(epoch).setCommitted(true));
        assertEquals(Errors.NONE.code(), ended.errorCode());
        await("the commit marker").atMost(Duration.ofSeconds(20)).until(() -> fetchStable().committedOffset() == 7);
    }
}
