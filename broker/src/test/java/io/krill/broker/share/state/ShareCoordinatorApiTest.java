package io.krill.broker.share.state;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateTopicsRequest;
import io.krill.wire.message.CreateTopicsResponse;
import io.krill.wire.message.DeleteShareGroupStateRequest;
import io.krill.wire.message.DeleteShareGroupStateResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.InitializeShareGroupStateRequest;
import io.krill.wire.message.InitializeShareGroupStateResponse;
import io.krill.wire.message.ReadShareGroupStateRequest;
import io.krill.wire.message.ReadShareGroupStateResponse;
import io.krill.wire.message.ReadShareGroupStateSummaryRequest;
import io.krill.wire.message.ReadShareGroupStateSummaryResponse;
import io.krill.wire.message.WriteShareGroupStateRequest;
import io.krill.wire.message.WriteShareGroupStateResponse;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The share coordinator's RPCs over a raw socket against one in-process broker: FindCoordinator key type 2
 * (and Kafka's refusals of bad keys), then InitializeShareGroupState, WriteShareGroupState v0-1,
 * ReadShareGroupState, ReadShareGroupStateSummary v0-1 and DeleteShareGroupState, with the errors of
 * stale epochs, unknown topics and requests Kafka answers with no results.
 */
class ShareCoordinatorApiTest {
    private static final String GROUP = "raw-share";
    private static TestBroker broker;
    private static RawClient client;
    private static UUID topicId;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("share.coordinator.state.topic.num.partitions", "3"));
        client = new RawClient(broker.port());
        CreateTopicsResponse created = call(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest().setTimeoutMs(10_000)
                .setTopics(List.of(new CreateTopicsRequest.CreatableTopic().setName("shared").setNumPartitions(2)
                        .setReplicationFactor((short) 1))));
        assertEquals(Errors.NONE.code(), created.topics().get(0).errorCode());
        topicId = broker.broker().metadata().image().topic("shared").id();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        return client.call(api, version, request);
    }

    private static String key(int partition) {
        return GROUP + ":" + SharePartitionKey.kafkaString(topicId) + ":" + partition;
    }

    private static FindCoordinatorResponse.Coordinator find(short version, String key) throws Exception {
        FindCoordinatorResponse response = call(ApiKeys.FIND_COORDINATOR, version, new FindCoordinatorRequest()
                .setKeyType((byte) 2).setCoordinatorKeys(List.of(key)));
        return response.coordinators().get(0);
    }

    /** The coordinator of {@link #GROUP}'s share-partitions, once __share_group_state exists and is loaded. */
    private static void awaitCoordinator() {
        await("the share coordinator").atMost(Duration.ofSeconds(30)).until(() ->
                find((short) 6, key(0)).errorCode() == Errors.NONE.code()
                        && initialize(1, 0, 0) != Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
    }

    private static short initialize(int partition, int stateEpoch, long startOffset) throws Exception {
        InitializeShareGroupStateResponse response = call(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, (short) 0,
                new InitializeShareGroupStateRequest().setGroupId(GROUP).setTopics(List.of(
                        new InitializeShareGroupStateRequest.InitializeStateData().setTopicId(topicId).setPartitions(List.of(
                                new InitializeShareGroupStateRequest.PartitionData().setPartition(partition)
                                        .setStateEpoch(stateEpoch).setStartOffset(startOffset))))));
        return response.results().get(0).partitions().get(0).errorCode();
    }

    private static short write(short version, UUID topic, int partition, int stateEpoch, int leaderEpoch, long start,
                               int deliveryComplete, WriteShareGroupStateRequest.StateBatch... batches) throws Exception {
        WriteShareGroupStateResponse response = call(ApiKeys.WRITE_SHARE_GROUP_STATE, version,
                new WriteShareGroupStateRequest().setGroupId(GROUP).setTopics(List.of(
                        new WriteShareGroupStateRequest.WriteStateData().setTopicId(topic).setPartitions(List.of(
                                new WriteShareGroupStateRequest.PartitionData().setPartition(partition)
                                        .setStateEpoch(stateEpoch).setLeaderEpoch(leaderEpoch).setStartOffset(start)
                                        .setDeliveryCompleteCount(deliveryComplete)
                                        .setStateBatches(List.of(batches)))))));
        return response.results().get(0).partitions().get(0).errorCode();
    }

    private static ReadShareGroupStateResponse.PartitionResult read(int partition, int leaderEpoch) throws Exception {
        ReadShareGroupStateResponse response = call(ApiKeys.READ_SHARE_GROUP_STATE, (short) 0,
                new ReadShareGroupStateRequest().setGroupId(GROUP).setTopics(List.of(
                        new ReadShareGroupStateRequest.ReadStateData().setTopicId(topicId).setPartitions(List.of(
                                new ReadShareGroupStateRequest.PartitionData().setPartition(partition)
                                        .setLeaderEpoch(leaderEpoch))))));
        return response.results().get(0).partitions().get(0);
    }

    private static ReadShareGroupStateSummaryResponse.PartitionResult summary(short version, int partition)
            throws Exception {
        ReadShareGroupStateSummaryResponse response = call(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, version,
                new ReadShareGroupStateSummaryRequest().setGroupId(GROUP).setTopics(List.of(
                        new ReadShareGroupStateSummaryRequest.ReadStateSummaryData().setTopicId(topicId)
                                .setPartitions(List.of(new ReadShareGroupStateSummaryRequest.PartitionData()
                                        .setPartition(partition).setLeaderEpoch(0))))));
        return response.results().get(0).partitions().get(0);
    }

    private static WriteShareGroupStateRequest.StateBatch batch(long first, long last, int state, int count) {
        return new WriteShareGroupStateRequest.StateBatch().setFirstOffset(first).setLastOffset(last)
                .setDeliveryState((byte) state).setDeliveryCount((short) count);
    }

    @Test
    void findCoordinatorAnswersShareKeysAndRefusesWhatKafkaRefuses() throws Exception {
        awaitCoordinator();
        FindCoordinatorResponse.Coordinator found = find((short) 6, key(1));
        assertEquals(Errors.NONE.code(), found.errorCode());
        assertEquals(broker.port(), found.port());
        assertEquals(3, broker.broker().metadata().image().topic(ShareGroupStateTopic.NAME).partitionCount());
        for (String bad : List.of("nonsense", "g:not-a-topic-id:0", ":" + SharePartitionKey.kafkaString(topicId) + ":0",
                GROUP + ":" + SharePartitionKey.kafkaString(topicId) + ":x", "")) {
            assertEquals(Errors.INVALID_REQUEST.code(), find((short) 6, bad).errorCode(), bad);
        }
        assertEquals(Errors.INVALID_REQUEST.code(), find((short) 5, key(0)).errorCode(), "share keys from v6");
        assertEquals(Errors.NONE.code(), find((short) 6, "a:b:" + SharePartitionKey.kafkaString(topicId) + ":0")
                .errorCode(), "a group id may contain colons");
    }

    @Test
    void initializeWriteReadSummarizeAndDelete() throws Exception {
        awaitCoordinator();
        assertEquals(Errors.NONE.code(), initialize(0, 1, 100));
        ReadShareGroupStateResponse.PartitionResult initialized = read(0, 3);
        assertEquals(Errors.NONE.code(), initialized.errorCode());
        assertEquals(100, initialized.startOffset());
        assertEquals(1, initialized.stateEpoch());

        assertEquals(Errors.NONE.code(), write((short) 0, topicId, 0, 1, 3, 100, -1, batch(100, 109, 0, 1),
                batch(110, 119, 2, 1)));
        assertEquals(Errors.NONE.code(), write((short) 1, topicId, 0, 1, 3, 100, 14, batch(105, 112, 4, 2)));
        ReadShareGroupStateResponse.PartitionResult written = read(0, 3);
        assertEquals(List.of(new ReadShareGroupStateResponse.StateBatch().setFirstOffset(100).setLastOffset(104)
                        .setDeliveryState((byte) 0).setDeliveryCount((short) 1),
                new ReadShareGroupStateResponse.StateBatch().setFirstOffset(105).setLastOffset(112)
                        .setDeliveryState((byte) 4).setDeliveryCount((short) 2),
                new ReadShareGroupStateResponse.StateBatch().setFirstOffset(113).setLastOffset(119)
                        .setDeliveryState((byte) 2).setDeliveryCount((short) 1)), written.stateBatches());

        ReadShareGroupStateSummaryResponse.PartitionResult v1 = summary((short) 1, 0);
        assertEquals(Errors.NONE.code(), v1.errorCode());
        assertEquals(100, v1.startOffset());
        assertEquals(3, v1.leaderEpoch());
        assertEquals(1, v1.stateEpoch());
        assertEquals(14, v1.deliveryCompleteCount());
        assertEquals(-1, summary((short) 0, 0).deliveryCompleteCount(), "v0 does not carry the count");

        DeleteShareGroupStateResponse deleted = call(ApiKeys.DELETE_SHARE_GROUP_STATE, (short) 0,
                new DeleteShareGroupStateRequest().setGroupId(GROUP).setTopics(List.of(
                        new DeleteShareGroupStateRequest.DeleteStateData().setTopicId(topicId).setPartitions(List.of(
                                new DeleteShareGroupStateRequest.PartitionData().setPartition(0))))));
        assertEquals(Errors.NONE.code(), deleted.results().get(0).partitions().get(0).errorCode());
        assertEquals(-1, read(0, 3).startOffset());
        assertEquals(-1, summary((short) 1, 0).startOffset());
    }

    @Test
    void staleEpochsUnknownTopicsAndEmptyRequestsGetKafkasAnswers() throws Exception {
        awaitCoordinator();
        assertEquals(Errors.NONE.code(), initialize(1, 5, 0));
        assertEquals(Errors.NONE.code(), read(1, 7).errorCode());
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), write((short) 1, topicId, 1, 5, 6, 0, -1));
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), read(1, 6).errorCode());
        assertEquals(Errors.FENCED_STATE_EPOCH.code(), write((short) 1, topicId, 1, 4, 7, 0, -1));
        assertEquals(Errors.FENCED_STATE_EPOCH.code(), initialize(1, 4, 0));
        assertEquals(Errors.INVALID_REQUEST.code(), write((short) 1, topicId, 1, 5, -1, 0, -1));
        assertEquals(Errors.INVALID_REQUEST.code(), write((short) 1, topicId, 1, 5, 7, 0, -1, batch(9, 3, 0, 1)),
                "a batch ending before it starts");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), write((short) 1, UUID.randomUUID(), 0, 0, 0, 0, -1));

        WriteShareGroupStateResponse noGroup = call(ApiKeys.WRITE_SHARE_GROUP_STATE, (short) 1,
                new WriteShareGroupStateRequest().setGroupId("").setTopics(List.of(
                        new WriteShareGroupStateRequest.WriteStateData().setTopicId(topicId).setPartitions(List.of(
                                new WriteShareGroupStateRequest.PartitionData().setPartition(1))))));
        assertTrue(noGroup.results().isEmpty(), "Kafka answers an empty group id with no results");
        ReadShareGroupStateResponse noPartitions = call(ApiKeys.READ_SHARE_GROUP_STATE, (short) 0,
                new ReadShareGroupStateRequest().setGroupId(GROUP).setTopics(List.of(
                        new ReadShareGroupStateRequest.ReadStateData().setTopicId(topicId))));
        assertTrue(noPartitions.results().isEmpty(), "and a topic without partitions too");
    }
}
