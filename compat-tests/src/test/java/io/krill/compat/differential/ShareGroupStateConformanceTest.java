package io.krill.compat.differential;

import static org.awaitility.Awaitility.await;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteShareGroupStateRequest;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.InitializeShareGroupStateRequest;
import io.krill.wire.message.ReadShareGroupStateRequest;
import io.krill.wire.message.ReadShareGroupStateSummaryRequest;
import io.krill.wire.message.WriteShareGroupStateRequest;
import io.krill.wire.protocol.ApiMessage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The share coordinator's side of KIP-932 as brokers use it: FindCoordinator key type 2 (a share-partition
 * key {@code groupId:topicId:partition}, and the keys Kafka refuses), and InitializeShareGroupState,
 * WriteShareGroupState, ReadShareGroupState, ReadShareGroupStateSummary and DeleteShareGroupState on
 * initialized share-partitions, an unknown topic, and requests Kafka answers with no results. Each
 * sequence uses share-partitions of its own (a partition per version).
 *
 * <p>Not compared, a declared difference (docs: Krill's persister contract): a read or write of a
 * share-partition never initialized, which Kafka 4.4 refuses (INVALID_REQUEST) and Krill answers (start
 * offset -1) or creates.
 */
class ShareGroupStateConformanceTest extends DifferentialTest {
    private static final byte SHARE_KEY_TYPE = 2;
    private static final String TOPIC = "diff-share-state";
    private static final int PARTITIONS = 8;
    /** The sides whose topic and share coordinator are ready (by {@link BrokerSide#name()}). */
    private static final java.util.Set<String> PREPARED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private static String base64(UUID id) {
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    private static String shareKey(BrokerSide side, String group, int partition) {
        return group + ":" + base64(side.topicId(TOPIC)) + ":" + partition;
    }

    private static FindCoordinatorRequest find(List<String> keys) {
        return new FindCoordinatorRequest().setKeyType(SHARE_KEY_TYPE).setCoordinatorKeys(keys);
    }

    /** The topic, and the share coordinator of {@code group}'s share-partitions found and loaded. */
    private static void prepare(BrokerSide side, String group) {
        if (PREPARED.contains(side.name())) {
            return;
        }
        side.createTopic(TOPIC, PARTITIONS);
        PREPARED.add(side.name());
        await(side.name() + ": share coordinator").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    FindCoordinatorResponseData found = (FindCoordinatorResponseData) side.send(ApiKeys.FIND_COORDINATOR,
                            find(List.of(shareKey(side, group, 0)))).data();
                    if (found.coordinators().get(0).errorCode() != Errors.NONE.code()) {
                        return false;
                    }
                    // Loaded once it answers a (harmless) initialization of an unknown topic's share-partition.
                    InitializeShareGroupStateResponseData init = (InitializeShareGroupStateResponseData) side.send(
                            ApiKeys.INITIALIZE_SHARE_GROUP_STATE, initialize(group, UNKNOWN_TOPIC_ID, 0, 1, 0)).data();
                    short code = init.results().get(0).partitions().get(0).errorCode();
                    return code != Errors.COORDINATOR_LOAD_IN_PROGRESS.code() && code != Errors.NOT_COORDINATOR.code()
                            && code != Errors.COORDINATOR_NOT_AVAILABLE.code();
                });
    }

    private static InitializeShareGroupStateRequest initialize(String group, UUID topicId, int partition, int stateEpoch,
                                                               long startOffset) {
        return new InitializeShareGroupStateRequest().setGroupId(group).setTopics(List.of(
                new InitializeShareGroupStateRequest.InitializeStateData().setTopicId(topicId).setPartitions(List.of(
                        new InitializeShareGroupStateRequest.PartitionData().setPartition(partition)
                                .setStateEpoch(stateEpoch).setStartOffset(startOffset)))));
    }

    private static void initialized(BrokerSide side, String group, int partition, int stateEpoch, long startOffset) {
        InitializeShareGroupStateResponseData done = (InitializeShareGroupStateResponseData) side.send(
                ApiKeys.INITIALIZE_SHARE_GROUP_STATE, initialize(group, side.topicId(TOPIC), partition, stateEpoch,
                        startOffset)).data();
        if (done.results().get(0).partitions().get(0).errorCode() != Errors.NONE.code()) {
            throw new AssertionError(side.name() + ": InitializeShareGroupState failed: " + done);
        }
    }

    private static ReadShareGroupStateRequest read(String group, UUID topicId, int partition, int leaderEpoch) {
        return new ReadShareGroupStateRequest().setGroupId(group).setTopics(List.of(
                new ReadShareGroupStateRequest.ReadStateData().setTopicId(topicId).setPartitions(List.of(
                        new ReadShareGroupStateRequest.PartitionData().setPartition(partition).setLeaderEpoch(leaderEpoch)))));
    }

    private static WriteShareGroupStateRequest write(String group, UUID topicId, int partition, int stateEpoch,
                                                     int leaderEpoch, long startOffset) {
        return new WriteShareGroupStateRequest().setGroupId(group).setTopics(List.of(
                new WriteShareGroupStateRequest.WriteStateData().setTopicId(topicId).setPartitions(List.of(
                        new WriteShareGroupStateRequest.PartitionData().setPartition(partition).setStateEpoch(stateEpoch)
                                .setLeaderEpoch(leaderEpoch).setStartOffset(startOffset).setDeliveryCompleteCount(5)
                                .setStateBatches(List.of(
                                        new WriteShareGroupStateRequest.StateBatch().setFirstOffset(startOffset)
                                                .setLastOffset(startOffset + 4).setDeliveryState((byte) 2)
                                                .setDeliveryCount((short) 1),
                                        new WriteShareGroupStateRequest.StateBatch().setFirstOffset(startOffset + 5)
                                                .setLastOffset(startOffset + 9).setDeliveryState((byte) 0)
                                                .setDeliveryCount((short) 2)))))));
    }

    private static ReadShareGroupStateSummaryRequest summary(String group, UUID topicId, int partition) {
        return new ReadShareGroupStateSummaryRequest().setGroupId(group).setTopics(List.of(
                new ReadShareGroupStateSummaryRequest.ReadStateSummaryData().setTopicId(topicId).setPartitions(List.of(
                        new ReadShareGroupStateSummaryRequest.PartitionData().setPartition(partition).setLeaderEpoch(0)))));
    }

    private static DeleteShareGroupStateRequest delete(String group, UUID topicId, int partition) {
        return new DeleteShareGroupStateRequest().setGroupId(group).setTopics(List.of(
                new DeleteShareGroupStateRequest.DeleteStateData().setTopicId(topicId).setPartitions(List.of(
                        new DeleteShareGroupStateRequest.PartitionData().setPartition(partition)))));
    }

    @Test
    void findCoordinatorOfShareKeys() {
        String group = "diff-share-fc";
        both(side -> {
            prepare(side, group);
            side.name(shareKey(side, group, 1), "<share key of " + group + " partition 1>");
        });
        sequence("FindCoordinator of a share-partition", ApiKeys.FIND_COORDINATOR).from(6)
                .request((side, version) -> find(List.of(shareKey(side, group, 1))))
                .expect("/coordinators/0/errorCode", Errors.NONE)
                .run();
        String unknownTopic = base64(UNKNOWN_TOPIC_ID);
        sequence("FindCoordinator of share keys Kafka cannot parse", ApiKeys.FIND_COORDINATOR).from(6)
                .request((side, version) -> find(List.of("nonsense", "g:not-a-topic-id:0", ":" + unknownTopic + ":0",
                        "g:" + unknownTopic + ":x", "g:" + unknownTopic)))
                .expect("/coordinators/0/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("FindCoordinator of a share key with colons in the group id", ApiKeys.FIND_COORDINATOR).from(6)
                .request((side, version) -> find(List.of("a:b:" + unknownTopic + ":3")))
                .expect("/coordinators/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void initializeReadWriteSummarizeAndDelete() {
        String group = "diff-share-rw";
        both(side -> prepare(side, group));
        sequence("InitializeShareGroupState of a share-partition", ApiKeys.INITIALIZE_SHARE_GROUP_STATE)
                .request((side, version) -> initialize(group, side.topicId(TOPIC), 0, 1, 10))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ReadShareGroupState of an initialized share-partition", ApiKeys.READ_SHARE_GROUP_STATE)
                .request((side, version) -> read(group, side.topicId(TOPIC), 0, 3))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("WriteShareGroupState of an initialized share-partition", ApiKeys.WRITE_SHARE_GROUP_STATE)
                .setUp((side, version) -> initialized(side, group, 1 + version, 1, 10))
                .request((side, version) -> write(group, side.topicId(TOPIC), 1 + version, 1, 3, 20))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ReadShareGroupState after a write", ApiKeys.READ_SHARE_GROUP_STATE)
                .request((side, version) -> read(group, side.topicId(TOPIC), 2, 3))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ReadShareGroupStateSummary after a write", ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY)
                .request((side, version) -> summary(group, side.topicId(TOPIC), 2))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("WriteShareGroupState with an older leader epoch", ApiKeys.WRITE_SHARE_GROUP_STATE)
                .request((side, version) -> write(group, side.topicId(TOPIC), 2, 1, 2, 20))
                .expect("/results/0/partitions/0/errorCode", Errors.FENCED_LEADER_EPOCH)
                .run();
        sequence("WriteShareGroupState with an older state epoch", ApiKeys.WRITE_SHARE_GROUP_STATE)
                .request((side, version) -> write(group, side.topicId(TOPIC), 2, 0, 3, 20))
                .expect("/results/0/partitions/0/errorCode", Errors.FENCED_STATE_EPOCH)
                .run();
        sequence("ReadShareGroupState with an older leader epoch", ApiKeys.READ_SHARE_GROUP_STATE)
                .request((side, version) -> read(group, side.topicId(TOPIC), 2, 1))
                .expect("/results/0/partitions/0/errorCode", Errors.FENCED_LEADER_EPOCH)
                .run();
        sequence("InitializeShareGroupState with an older state epoch", ApiKeys.INITIALIZE_SHARE_GROUP_STATE)
                .request((side, version) -> initialize(group, side.topicId(TOPIC), 2, 0, 0))
                .expect("/results/0/partitions/0/errorCode", Errors.FENCED_STATE_EPOCH)
                .run();
        sequence("DeleteShareGroupState of a share-partition", ApiKeys.DELETE_SHARE_GROUP_STATE)
                .request((side, version) -> delete(group, side.topicId(TOPIC), 2))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("ReadShareGroupStateSummary of a deleted share-partition", ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY)
                .request((side, version) -> summary(group, side.topicId(TOPIC), 2))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void unknownTopicsAndRequestsAnsweredWithoutResults() {
        String group = "diff-share-bad";
        both(side -> prepare(side, group));
        sequence("InitializeShareGroupState of an unknown topic", ApiKeys.INITIALIZE_SHARE_GROUP_STATE)
                .request((side, version) -> initialize(group, UNKNOWN_TOPIC_ID, 0, 1, 0))
                .expect("/results/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
        sequence("InitializeShareGroupState of a partition the topic does not have",
                ApiKeys.INITIALIZE_SHARE_GROUP_STATE)
                .request((side, version) -> initialize(group, side.topicId(TOPIC), PARTITIONS, 1, 0))
                .expect("/results/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
        sequence("InitializeShareGroupState with a negative state epoch", ApiKeys.INITIALIZE_SHARE_GROUP_STATE)
                .request((side, version) -> initialize(group, side.topicId(TOPIC), 0, -1, 0))
                .expect("/results/0/partitions/0/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("ReadShareGroupStateSummary of an unknown topic", ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY)
                .request((side, version) -> summary(group, UNKNOWN_TOPIC_ID, 0))
                .expect("/results/0/partitions/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
        sequence("ReadShareGroupStateSummary of a share-partition never initialized",
                ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY)
                .request((side, version) -> summary(group, side.topicId(TOPIC), 7))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("DeleteShareGroupState of a share-partition never initialized", ApiKeys.DELETE_SHARE_GROUP_STATE)
                .request((side, version) -> delete(group, side.topicId(TOPIC), 7))
                .expect("/results/0/partitions/0/errorCode", Errors.NONE)
                .run();
        sequence("WriteShareGroupState with an empty group id", ApiKeys.WRITE_SHARE_GROUP_STATE)
                .request((side, version) -> write("", side.topicId(TOPIC), 0, 1, 0, 0))
                .run();
        sequence("ReadShareGroupState of a topic without partitions", ApiKeys.READ_SHARE_GROUP_STATE)
                .request((side, version) -> (ApiMessage) new ReadShareGroupStateRequest().setGroupId(group)
                        .setTopics(List.of(new ReadShareGroupStateRequest.ReadStateData().setTopicId(side.topicId(TOPIC)))))
                .run();
    }
}
