package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.NewTopic;
import io.krill.wire.error.Errors;
import io.krill.wire.message.CreatePartitionsRequest;
import io.krill.wire.message.CreatePartitionsResponse;
import io.krill.wire.message.DeleteRecordsRequest;
import io.krill.wire.message.DeleteRecordsResponse;
import io.krill.wire.message.DescribeClusterRequest;
import io.krill.wire.message.DescribeClusterResponse;
import io.krill.wire.message.DescribeLogDirsRequest;
import io.krill.wire.message.DescribeLogDirsResponse;
import io.krill.wire.message.OffsetForLeaderEpochRequest;
import io.krill.wire.message.OffsetForLeaderEpochResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DeleteRecords, OffsetForLeaderEpoch, CreatePartitions, DescribeLogDirs and DescribeCluster. */
class PartitionAdminHandlersTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
        broker.metadata.createTopic(NewTopic.of("t", 2, 1));
        broker.append("t", 0, 10);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private DeleteRecordsResponse.DeleteRecordsPartitionResult deleteRecords(int version, String topic, int partition,
                                                                            long offset) {
        DeleteRecordsResponse response = broker.call(new DeleteRecordsHandler(broker.context), version,
                new DeleteRecordsRequest().setTopics(new ArrayList<>(List.of(new DeleteRecordsRequest.DeleteRecordsTopic()
                        .setName(topic).setPartitions(new ArrayList<>(List.of(new DeleteRecordsRequest.DeleteRecordsPartition()
                                .setPartitionIndex(partition).setOffset(offset))))))));
        return response.topics().get(0).partitions().get(0);
    }

    @Test
    void deleteRecordsMovesTheLogStartUpToTheHighWatermark() {
        assertEquals(3, deleteRecords(0, "t", 0, 3).lowWatermark());
        assertEquals(3, deleteRecords(1, "t", 0, 2).lowWatermark(), "never backwards");
        assertEquals(3, broker.partitions.partition("t", 0).logStartOffset());
        DeleteRecordsResponse.DeleteRecordsPartitionResult beyond = deleteRecords(2, "t", 0, 11);
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), beyond.errorCode());
        assertEquals(-1, beyond.lowWatermark());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), deleteRecords(2, "t", 0, -5).errorCode());
        assertEquals(10, deleteRecords(2, "t", 0, -1).lowWatermark(), "-1 is the high watermark");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), deleteRecords(2, "t", 7, 0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), deleteRecords(2, "missing", 0, 0).errorCode());

        broker.metadata.createTopic(new NewTopic("compacted", 1, 1, Map.of(), Map.of("cleanup.policy", "compact"), false));
        assertEquals(Errors.POLICY_VIOLATION.code(), deleteRecords(2, "compacted", 0, 0).errorCode());
        broker.metadata.createTopic(new NewTopic("__transaction_state", 1, 1, Map.of(), Map.of(), true));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), deleteRecords(2, "__transaction_state", 0, 0).errorCode());
    }

    private OffsetForLeaderEpochResponse.EpochEndOffset endOffset(int version, int partition, int currentEpoch, int epoch) {
        OffsetForLeaderEpochResponse response = broker.call(new OffsetForLeaderEpochHandler(broker.context), version,
                new OffsetForLeaderEpochRequest().setTopics(new ArrayList<>(List.of(new OffsetForLeaderEpochRequest
                        .OffsetForLeaderTopic().setTopic("t").setPartitions(new ArrayList<>(List.of(
                                new OffsetForLeaderEpochRequest.OffsetForLeaderPartition().setPartition(partition)
                                        .setCurrentLeaderEpoch(currentEpoch).setLeaderEpoch(epoch))))))));
        return response.topics().get(0).partitions().get(0);
    }

    @Test
    void offsetForLeaderEpochAnswersFromTheLeaderEpochCache() {
        for (int version = 2; version <= 4; version++) {
            OffsetForLeaderEpochResponse.EpochEndOffset latest = endOffset(version, 0, 0, 0);
            assertEquals(Errors.NONE.code(), latest.errorCode());
            assertEquals(0, latest.leaderEpoch());
            assertEquals(10, latest.endOffset(), "the latest epoch ends at the log end");
        }
        assertEquals(-1, endOffset(4, 0, -1, 5).endOffset(), "an epoch above the latest is unknown");
        assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(), endOffset(4, 0, 1, 0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), endOffset(4, 9, -1, 0).errorCode());
        OffsetForLeaderEpochResponse.EpochEndOffset empty = endOffset(4, 1, 0, 0);
        assertEquals(Errors.NONE.code(), empty.errorCode());
        assertEquals(0, empty.leaderEpoch());
        assertEquals(0, empty.endOffset(), "a leader records its epoch's start when it takes over, as Kafka does");
    }

    private CreatePartitionsResponse.CreatePartitionsTopicResult grow(boolean validateOnly, int count,
                                                                      List<List<Integer>> assignments) {
        CreatePartitionsRequest.CreatePartitionsTopic topic = new CreatePartitionsRequest.CreatePartitionsTopic()
                .setName("t").setCount(count).setAssignments(null);
        if (assignments != null) {
            topic.setAssignments(new ArrayList<>());
            assignments.forEach(a -> topic.assignments().add(new CreatePartitionsRequest.CreatePartitionsAssignment()
                    .setBrokerIds(new ArrayList<>(a))));
        }
        CreatePartitionsResponse response = broker.call(new CreatePartitionsHandler(broker.context), 3,
                new CreatePartitionsRequest().setTopics(new ArrayList<>(List.of(topic))).setValidateOnly(validateOnly));
        return response.results().get(0);
    }

    @Test
    void createPartitionsGrowsOrExplainsWhyNot() {
        assertEquals(Errors.NONE.code(), grow(true, 4, null).errorCode());
        assertEquals(2, broker.metadata.image().topic("t").partitionCount(), "validate only");
        assertEquals("Topic already has 2 partition(s).", grow(false, 2, null).errorMessage());
        assertEquals("The topic t currently has 2 partition(s); 1 would not be an increase.", grow(false, 1, null)
                .errorMessage());
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), grow(false, 3, List.of()).errorCode());
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), grow(false, 4, List.of(List.of(1))).errorCode());
        assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), grow(false, 3, List.of(List.of(2))).errorCode());
        assertEquals(Errors.NONE.code(), grow(false, 3, List.of(List.of(1))).errorCode());
        assertEquals(Errors.NONE.code(), grow(false, 5, null).errorCode());
        assertEquals(5, broker.metadata.image().topic("t").partitionCount());
        assertTrue(broker.partitions.partition("t", 4).isLeader());
        assertEquals(Errors.POLICY_VIOLATION.code(), grow(false, 20_000, null).errorCode());
    }

    @Test
    void describeLogDirsListsTheRequestedPartitionsAtEveryVersion() {
        DescribeLogDirsHandler handler = new DescribeLogDirsHandler(broker.logManager, Authorization.ALLOW_ALL);
        for (int version = handler.minVersion(); version <= handler.maxVersion(); version++) {
            DescribeLogDirsResponse all = broker.call(handler, version, new DescribeLogDirsRequest().setTopics(null));
            DescribeLogDirsResponse.DescribeLogDirsResult result = all.results().get(0);
            assertEquals(dir.toAbsolutePath().normalize().toString(), result.logDir());
            assertEquals(2, result.topics().get(0).partitions().size());
            assertEquals(version >= 4, result.totalBytes() > 0);
        }
        DescribeLogDirsResponse some = broker.call(handler, 4, new DescribeLogDirsRequest().setTopics(new ArrayList<>(List.of(
                new DescribeLogDirsRequest.DescribableLogDirTopic().setTopic("t").setPartitions(new ArrayList<>(List.of(0)))))));
        List<DescribeLogDirsResponse.DescribeLogDirsPartition> partitions = some.results().get(0).topics().get(0).partitions();
        assertEquals(1, partitions.size());
        assertEquals(broker.partitions.partition("t", 0).log().size(), partitions.get(0).partitionSize());
        assertTrue(partitions.get(0).partitionSize() > 0);
    }

    @Test
    void describeClusterAnswersForBrokersOnly() {
        DescribeClusterHandler handler = new DescribeClusterHandler(broker.context);
        for (int version = 0; version <= 2; version++) {
            DescribeClusterResponse response = broker.call(handler, version, new DescribeClusterRequest());
            assertEquals(Errors.NONE.code(), response.errorCode());
            assertEquals(broker.metadata.image().clusterId(), response.clusterId());
            assertEquals(1, response.controllerId());
            assertEquals(9092, response.brokers().get(0).port());
            assertEquals(AuthorizedOperations.OMITTED, response.clusterAuthorizedOperations());
        }
        DescribeClusterResponse withOperations = broker.call(handler, 2, new DescribeClusterRequest()
                .setIncludeClusterAuthorizedOperations(true));
        // Without an authorizer every cluster operation: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION,
        // DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE.
        assertEquals((1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12),
                withOperations.clusterAuthorizedOperations());
        assertEquals(Errors.MISMATCHED_ENDPOINT_TYPE.code(), ((DescribeClusterResponse) broker.call(handler, 1,
                new DescribeClusterRequest().setEndpointType((byte) 2))).errorCode());
        assertEquals(Errors.UNSUPPORTED_ENDPOINT_TYPE.code(), ((DescribeClusterResponse) broker.call(handler, 1,
                new DescribeClusterRequest().setEndpointType((byte) 7))).errorCode());
    }
}
