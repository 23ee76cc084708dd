package io.krill.broker.txn;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AddOffsetsToTxnRequest;
import io.krill.wire.message.AddOffsetsToTxnResponse;
import io.krill.wire.message.AddPartitionsToTxnRequest;
import io.krill.wire.message.AddPartitionsToTxnResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.message.ProduceRequest;
import io.krill.wire.message.ProduceResponse;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KIP-890 part 1 across brokers: when the transactional id is coordinated by another broker, the
 * partition leader (Produce) and the group coordinator (TxnOffsetCommit) ask that broker with
 * AddPartitionsToTxn VerifyOnly, and refuse what is not in the transaction as they do when they
 * coordinate it themselves; what is in it is taken. Three brokers on one ZooKeeper, internal topics
 * spread over all three, a data topic with one partition on each.
 */
class RemoteVerificationTest {
    private static final String ID = "rv-app";
    private static final String TOPIC = "rv-in";
    private static Path dir;
    private static EmbeddedZooKeeper zooKeeper;
    private static final Map<Integer, TestBroker> brokers = new LinkedHashMap<>();
    private static final Map<Integer, RawClient> clients = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("krill-remote-verification");
        zooKeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 0);
        for (int id = 1; id <= 3; id++) {
            brokers.put(id, TestBroker.start(Map.of("node.id", Integer.toString(id),
                    "zookeeper.connect", zooKeeper.connectString() + "/krill-verify",
                    "zookeeper.session.timeout.ms", "4000",
                    "transaction.state.log.num.partitions", "6",
                    "transaction.state.log.replication.factor", "1",
                    "transaction.state.log.min.isr", "1",
                    "offsets.topic.num.partitions", "6",
                    "offsets.topic.replication.factor", "1")));
            clients.put(id, new RawClient(brokers.get(id).port()));
        }
        await("three brokers").atMost(Duration.ofSeconds(30)).until(() ->
                brokers.get(1).broker().metadata().image().brokers().size() == 3);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            for (RawClient client : clients.values()) {
                client.close();
            }
            for (TestBroker broker : brokers.values()) {
                broker.close();
            }
            zooKeeper.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends ApiMessage> T call(int broker, ApiKeys api, short version, ApiMessage request)
            throws IOException {
        RawClient client = clients.get(broker);
        int id = client.send(api, version, request);
        return (T) client.receive(api, version, id);
    }

    /** The broker coordinating {@code key} (a transactional id or a group), once it serves it. */
    private static int coordinator(byte keyType, String key) {
        AtomicReference<FindCoordinatorResponse.Coordinator> found = new AtomicReference<>();
        await("the coordinator of " + key).atMost(Duration.ofSeconds(30)).until(() -> {
            FindCoordinatorResponse response = call(1, ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequest()
                    .setKeyType(keyType).setCoordinatorKeys(List.of(key)));
            found.set(response.coordinators().get(0));
            return found.get().errorCode() == Errors.NONE.code();
        });
        return found.get().nodeId();
    }

    private static short produce(int broker, short version, long pid, short epoch, int sequence, int partition)
            throws IOException {
        ByteBuf batch;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.producer(pid, epoch, sequence).transactional(true).append(System.currentTimeMillis(),
                    "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
            batch = builder.build();
        }
        try {
            ProduceResponse response = call(broker, ApiKeys.PRODUCE, version, new ProduceRequest().setTransactionalId(ID)
                    .setAcks((short) -1).setTimeoutMs(5000).setTopicData(List.of(new ProduceRequest.TopicProduceData()
                            .setName(TOPIC).setPartitionData(List.of(new ProduceRequest.PartitionProduceData()
                                    .setIndex(partition).setRecords(ByteBufRecords.of(batch)))))));
            return response.responses().get(0).partitionResponses().get(0).errorCode();
        } finally {
            batch.release();
        }
    }

    private static short txnOffsetCommit(int broker, short version, String group, long pid, short epoch)
            throws IOException {
        TxnOffsetCommitResponse response = call(broker, ApiKeys.TXN_OFFSET_COMMIT, version, new TxnOffsetCommitRequest()
                .setTransactionalId(ID).setGroupId(group).setProducerId(pid).setProducerEpoch(epoch)
                .setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().setName(TOPIC)
                        .setPartitions(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(3).setCommittedLeaderEpoch(-1)
                                .setCommittedMetadata(""))))));
        return response.topics().get(0).partitions().get(0).errorCode();
    }

    @Test
    void theCoordinatorOnAnotherBrokerIsAskedAndItsAnswerKept() throws Exception {
        int txnCoordinator = coordinator((byte) 1, ID);
        int leader = txnCoordinator % 3 + 1;
        // Partition p on broker p + 1: partition leader - 1 is led away from the transaction coordinator.
        List<CreateTopicsRequest.CreatableReplicaAssignment> assignments = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            assignments.add(new CreateTopicsRequest.CreatableReplicaAssignment().setPartitionIndex(p)
                    .setBrokerIds(List.of(p + 1)));
        }
        CreateTopicsResponse created = call(1, ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest()
                .setTimeoutMs(10_000).setTopics(List.of(new CreateTopicsRequest.CreatableTopic().setName(TOPIC)
                        .setNumPartitions(-1).setReplicationFactor((short) -1).setAssignments(assignments))));
        assertEquals(Errors.NONE.code(), created.topics().get(0).errorCode());
        int partition = leader - 1;

        AtomicReference<InitProducerIdResponse> init = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            init.set(call(txnCoordinator, ApiKeys.INIT_PRODUCER_ID, (short) 4, new InitProducerIdRequest()
                    .setTransactionalId(ID).setTransactionTimeoutMs(60_000).setProducerId(-1)
                    .setProducerEpoch((short) -1)));
            return init.get().errorCode() == Errors.NONE.code();
        });
        long pid = init.get().producerId();
        short epoch = init.get().producerEpoch();

        await("the leader of " + TOPIC + "-" + partition).atMost(Duration.ofSeconds(20)).until(() ->
                produce(leader, (short) 11, pid, epoch, 0, partition) == Errors.TRANSACTION_ABORTABLE.code());
        assertEquals(Errors.INVALID_TXN_STATE.code(), produce(leader, (short) 10, pid, epoch, 0, partition));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING.code(), produce(leader, (short) 11, pid + 1, epoch, 0, partition));
        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), produce(leader, (short) 11, pid, (short) (epoch + 1), 0,
                partition), "another epoch is fenced");

        String group = null;
        int groupCoordinator = -1;
        for (int i = 0; group == null; i++) {
            int node = coordinator((byte) 0, "rv-group-" + i);
            if (node != txnCoordinator) {
                group = "rv-group-" + i;
                groupCoordinator = node;
            }
        }
        assertNotEquals(txnCoordinator, groupCoordinator);
        String away = group;
        int at = groupCoordinator;
        await("the group coordinator loaded").atMost(Duration.ofSeconds(20)).until(() ->
                txnOffsetCommit(at, (short) 4, away, pid, epoch) != Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        assertEquals(Errors.TRANSACTION_ABORTABLE.code(), txnOffsetCommit(at, (short) 4, away, pid, epoch));
        assertEquals(Errors.INVALID_TXN_STATE.code(), txnOffsetCommit(at, (short) 3, away, pid, epoch));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING.code(), txnOffsetCommit(at, (short) 4, away, pid + 1, epoch));

        AddPartitionsToTxnResponse added = call(txnCoordinator, ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 3,
                new AddPartitionsToTxnRequest().setV3AndBelowTransactionalId(ID).setV3AndBelowProducerId(pid)
                        .setV3AndBelowProducerEpoch(epoch).setV3AndBelowTopics(List.of(
                                new AddPartitionsToTxnRequest.AddPartitionsToTxnTopic().setName(TOPIC)
                                        .setPartitions(List.of(partition)))));
        assertEquals(Errors.NONE.code(), added.resultsByTopicV3AndBelow().get(0).resultsByPartition().get(0)
                .partitionErrorCode());
        assertEquals(Errors.NONE.code(), produce(leader, (short) 11, pid, epoch, 0, partition), "in the transaction");
        AddOffsetsToTxnResponse offsets = call(txnCoordinator, ApiKeys.ADD_OFFSETS_TO_TXN, (short) 3,
                new AddOffsetsToTxnRequest().setTransactionalId(ID).setProducerId(pid).setProducerEpoch(epoch)
                        .setGroupId(away));
        assertEquals(Errors.NONE.code(), offsets.errorCode());
        assertEquals(Errors.NONE.code(), txnOffsetCommit(at, (short) 4, away, pid, epoch), "in the transaction");
    }
}
