package io.krill.broker.api.handlers;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.BrokerContext;
import io.krill.broker.metrics.BrokerMetrics;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import io.krill.controller.cluster.ZooKeeperMetadataStore;
import io.krill.controller.cluster.ZooKeeperStoreConfig;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterPartitionReassignmentsRequest;
import io.krill.wire.message.AlterPartitionReassignmentsResponse;
import io.krill.wire.message.ElectLeadersRequest;
import io.krill.wire.message.ElectLeadersResponse;
import io.krill.wire.message.ListPartitionReassignmentsRequest;
import io.krill.wire.message.ListPartitionReassignmentsResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ElectLeaders, AlterPartitionReassignments and ListPartitionReassignments through the wire format at
 * each version: on the single-node store, and on two brokers of a ZooKeeper cluster where a
 * reassignment really starts and is cancelled.
 */
class OperatorHandlersTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir.resolve("local"));
        broker.metadata.createTopic(NewTopic.of("t", 2, 1));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private static ElectLeadersRequest elect(int type, String topic, Integer... partitions) {
        return new ElectLeadersRequest().setElectionType((byte) type).setTopicPartitions(new ArrayList<>(List.of(
                new ElectLeadersRequest.TopicPartitions().setTopic(topic).setPartitions(new ArrayList<>(List.of(partitions))))));
    }

    private static AlterPartitionReassignmentsRequest reassign(String topic, int partition, List<Integer> replicas) {
        return new AlterPartitionReassignmentsRequest().setTopics(new ArrayList<>(List.of(
                new AlterPartitionReassignmentsRequest.ReassignableTopic().setName(topic).setPartitions(new ArrayList<>(
                        List.of(new AlterPartitionReassignmentsRequest.ReassignablePartition().setPartitionIndex(partition)
                                .setReplicas(replicas == null ? null : new ArrayList<>(replicas))))))));
    }

    private static ListPartitionReassignmentsRequest listAll() {
        return new ListPartitionReassignmentsRequest().setTopics(null);
    }

    @Test
    void electLeadersOnOneNode() {
        ElectLeadersHandler handler = new ElectLeadersHandler(broker.context);
        for (int version = 0; version <= 2; version++) {
            ElectLeadersResponse response = broker.call(handler, version, elect(0, "t", 0, 1, 0, 9));
            List<ElectLeadersResponse.PartitionResult> results = response.replicaElectionResults().get(0).partitionResult();
            assertEquals(List.of(0, 1, 9), results.stream().map(ElectLeadersResponse.PartitionResult::partitionId).toList(),
                    "each partition once, in order");
            assertEquals(Errors.ELECTION_NOT_NEEDED.code(), results.get(0).errorCode());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), results.get(2).errorCode());
            assertEquals(Errors.NONE.code(), response.errorCode());
        }
        ElectLeadersResponse unclean = broker.call(handler, 1, elect(1, "t", 1));
        assertEquals(Errors.ELECTION_NOT_NEEDED.code(), unclean.replicaElectionResults().get(0).partitionResult().get(0)
                .errorCode());
        ElectLeadersResponse all = broker.call(handler, 2, new ElectLeadersRequest().setTopicPartitions(null));
        assertEquals(List.of(), all.replicaElectionResults(), "elections not needed are left out of 'all'");

        ElectLeadersResponse unknownType = broker.call(handler, 2, elect(5, "t", 0));
        assertEquals(Errors.INVALID_REQUEST.code(), unknownType.errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), unknownType.replicaElectionResults().get(0).partitionResult().get(0)
                .errorCode());
    }

    @Test
    void reassignmentsOnOneNode() {
        AlterPartitionReassignmentsHandler alter = new AlterPartitionReassignmentsHandler(broker.context);
        AlterPartitionReassignmentsResponse v0 = broker.call(alter, 0, reassign("t", 0, List.of(1)));
        assertEquals(Errors.NONE.code(), v0.responses().get(0).partitions().get(0).errorCode(), "already in place");
        AlterPartitionReassignmentsResponse v1 = broker.call(alter, 1,
                reassign("t", 1, null).setAllowReplicationFactorChange(false));
        assertEquals(Errors.NO_REASSIGNMENT_IN_PROGRESS.code(), v1.responses().get(0).partitions().get(0).errorCode());
        assertEquals(false, v1.allowReplicationFactorChange(), "echoed");
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), broker.<AlterPartitionReassignmentsResponse>call(alter, 1,
                reassign("t", 1, List.of(1, 1))).responses().get(0).partitions().get(0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), broker.<AlterPartitionReassignmentsResponse>call(alter, 1,
                reassign("nope", 0, List.of(1))).responses().get(0).partitions().get(0).errorCode());
        ListPartitionReassignmentsResponse listed = broker.call(new ListPartitionReassignmentsHandler(broker.context), 0,
                listAll());
        assertEquals(List.of(), listed.topics());
        assertEquals(Errors.NONE.code(), listed.errorCode());
    }

    @Test
    void aReassignmentStartsIsListedAndIsCancelledOnACluster() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore one = clusterStore(zk, 1);
             ZooKeeperMetadataStore two = clusterStore(zk, 2)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> one.image().brokers().size() == 2);
            one.createTopic(new NewTopic("moved", -1, -1, Map.of(0, List.of(1)), Map.of(), false));
            await().atMost(Duration.ofSeconds(20)).until(() -> one.image().topic("moved").partition(0).leader() == 1);
            BrokerContext context = new BrokerContext(broker.config, one, broker.partitions, null, null,
                    new BrokerMetrics(), null);

            AlterPartitionReassignmentsResponse started = broker.call(new AlterPartitionReassignmentsHandler(context), 1,
                    reassign("moved", 0, List.of(2)));
            assertEquals(Errors.NONE.code(), started.responses().get(0).partitions().get(0).errorCode());
            ListPartitionReassignmentsResponse listed = broker.call(new ListPartitionReassignmentsHandler(context), 0,
                    new ListPartitionReassignmentsRequest().setTopics(new ArrayList<>(List.of(
                            new ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics().setName("moved")
                                    .setPartitionIndexes(new ArrayList<>(Arrays.asList(0, 1)))))));
            ListPartitionReassignmentsResponse.OngoingPartitionReassignment ongoing =
                    listed.topics().get(0).partitions().get(0);
            assertEquals(List.of(2, 1), ongoing.replicas());
            assertEquals(List.of(2), ongoing.addingReplicas());
            assertEquals(List.of(1), ongoing.removingReplicas());
            assertEquals(1, listed.topics().get(0).partitions().size(), "partition 1 does not exist");

            ElectLeadersResponse preferred = broker.call(new ElectLeadersHandler(context), 2, elect(0, "moved", 0));
            assertEquals(Errors.PREFERRED_LEADER_NOT_AVAILABLE.code(),
                    preferred.replicaElectionResults().get(0).partitionResult().get(0).errorCode(),
                    "the target's first replica has not caught up");

            AlterPartitionReassignmentsResponse cancelled = broker.call(new AlterPartitionReassignmentsHandler(context),
                    0, reassign("moved", 0, null));
            assertEquals(Errors.NONE.code(), cancelled.responses().get(0).partitions().get(0).errorCode());
            assertTrue(broker.<ListPartitionReassignmentsResponse>call(new ListPartitionReassignmentsHandler(context), 0,
                    listAll()).topics().isEmpty());
            assertEquals(List.of(1), one.image().topic("moved").partition(0).replicas());
        }
    }

    private static ZooKeeperMetadataStore clusterStore(EmbeddedZooKeeper zk, int nodeId) {
        ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(ZooKeeperStoreConfig.of(zk.connectString() + "/krill",
                "handlers", nodeId).withSessionTimeoutMs(4_000));
        store.registerBroker(new BrokerInfo(nodeId, null,
                Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "127.0.0.1", 9090 + nodeId))));
        return store;
    }
}
