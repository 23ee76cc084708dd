package io.krill.broker.group;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.Broker;
import io.krill.broker.config.BrokerConfig;
import io.krill.broker.testing.RawClient;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteGroupsRequest;
import io.krill.wire.message.DeleteGroupsResponse;
import io.krill.wire.message.DescribeGroupsRequest;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.HeartbeatResponse;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Through the real {@code __consumer_offsets} log: offsets, their tombstones (OffsetDelete,
 * DeleteGroups) and a stable group's generation, members and assignments are what a restarted broker
 * loads.
 */
class GroupPersistenceTest {
    /** A liveness bound for loading {@code __consumer_offsets}, not a speed requirement. */
    private static final Duration LOAD_PATIENCE = Duration.ofSeconds(30);

    private Path dataDir;
    private Broker broker;
    private RawClient client;

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) {
            client.close();
        }
        if (broker != null) {
            broker.close();
        }
        try (Stream<Path> paths = Files.walk(dataDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void start() throws Exception {
        boolean first = dataDir == null;
        if (first) {
            dataDir = Files.createTempDirectory("krill-group-persistence");
        }
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dataDir.toString());
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("offsets.topic.num.partitions", "4");
        broker = Broker.start(BrokerConfig.from(props));
        if (first) {
            // Offsets are committed for topic t: a commit for a topic that does not exist is refused, as in Kafka.
            broker.metadata().createTopic(io.krill.controller.metadata.NewTopic.of("t", 4, 1));
        }
        client = new RawClient(broker.boundAddresses().get(0).getPort());
        // COORDINATOR_NOT_AVAILABLE while __consumer_offsets is created on first use: a client retries.
        java.util.concurrent.atomic.AtomicReference<FindCoordinatorResponse> answer = new java.util.concurrent.atomic.AtomicReference<>();
        await("the group coordinator").atMost(Duration.ofSeconds(30)).until(() -> {
            answer.set(call(ApiKeys.FIND_COORDINATOR, (short) 3, new FindCoordinatorRequest().setKey("a")));
            return answer.get().errorCode() != Errors.COORDINATOR_NOT_AVAILABLE.code();
        });
        assertEquals(Errors.NONE.code(), answer.get().errorCode());
        await("the coordinators of groups a, b and c have loaded").atMost(LOAD_PATIENCE)
                .pollInterval(Duration.ofMillis(10)).until(this::allLoaded);
    }

    private boolean allLoaded() throws Exception {
        OffsetFetchResponse response = call(ApiKeys.OFFSET_FETCH, (short) 8, new OffsetFetchRequest().setGroups(List.of(
                group("a"), group("b"), group("c"))));
        return response.groups().stream().allMatch(g -> g.errorCode() == Errors.NONE.code());
    }

    private static OffsetFetchRequest.OffsetFetchRequestGroup group(String id) {
        return new OffsetFetchRequest.OffsetFetchRequestGroup().setGroupId(id).setTopics(null);
    }

    private void restart() throws Exception {
        client.close();
        broker.close();
        start();
    }

    @SuppressWarnings("unchecked")
    private <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        int id = client.send(api, version, request);
        return (T) client.receive(api, version, id);
    }

    private void commit(String group, int generation, String memberId, int partition, long offset) throws Exception {
        OffsetCommitResponse response = call(ApiKeys.OFFSET_COMMIT, (short) 9, new OffsetCommitRequest().setGroupId(group)
                .setGenerationIdOrMemberEpoch(generation).setMemberId(memberId).setTopics(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
                                new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(partition)
                                        .setCommittedOffset(offset).setCommittedMetadata("m" + offset))))));
        assertEquals(Errors.NONE.code(), response.topics().get(0).partitions().get(0).errorCode());
    }

    private Map<Integer, Long> committed(String group) throws Exception {
        OffsetFetchResponse response = call(ApiKeys.OFFSET_FETCH, (short) 8, new OffsetFetchRequest()
                .setGroups(List.of(group(group))));
        assertEquals(Errors.NONE.code(), response.groups().get(0).errorCode(), "offset fetch of group " + group);
        Map<Integer, Long> offsets = new HashMap<>();
        for (OffsetFetchResponse.OffsetFetchResponseTopics topic : response.groups().get(0).topics()) {
            for (OffsetFetchResponse.OffsetFetchResponsePartitions p : topic.partitions()) {
                assertEquals(Errors.NONE.code(), p.errorCode(), "offset fetch of " + group + " partition " + p.partitionIndex());
                offsets.put(p.partitionIndex(), p.committedOffset());
            }
        }
        return offsets;
    }

    private DescribeGroupsResponse.DescribedGroup describe(String group) throws Exception {
        DescribeGroupsResponse response = call(ApiKeys.DESCRIBE_GROUPS, (short) 5, new DescribeGroupsRequest()
                .setGroups(List.of(group)));
        assertEquals(Errors.NONE.code(), response.groups().get(0).errorCode(), "describe group " + group);
        return response.groups().get(0);
    }

    @Test
    void offsetsTombstonesAndMembershipSurviveARestart() throws Exception {
        start();
        commit("a", -1, "", 0, 5);
        commit("a", -1, "", 1, 6);
        commit("a", -1, "", 1, 7);
        commit("b", -1, "", 0, 9);
        OffsetDeleteResponse deletedOffset = call(ApiKeys.OFFSET_DELETE, (short) 0, new OffsetDeleteRequest()
                .setGroupId("a").setTopics(List.of(new OffsetDeleteRequest.OffsetDeleteRequestTopic().setName("t")
                        .setPartitions(List.of(new OffsetDeleteRequest.OffsetDeleteRequestPartition().setPartitionIndex(0))))));
        assertEquals(Errors.NONE.code(), deletedOffset.topics().get(0).partitions().get(0).errorCode());
        DeleteGroupsResponse deletedGroup = call(ApiKeys.DELETE_GROUPS, (short) 2, new DeleteGroupsRequest()
                .setGroupsNames(List.of("b")));
        assertEquals(Errors.NONE.code(), deletedGroup.results().get(0).errorCode());

        JoinGroupRequest join = new JoinGroupRequest().setGroupId("c").setSessionTimeoutMs(30_000)
                .setRebalanceTimeoutMs(30_000).setMemberId("").setProtocolType("consumer")
                .setProtocols(new ArrayList<>(List.of(new JoinGroupRequest.JoinGroupRequestProtocol().setName("range")
                        .setMetadata(new byte[] {7}))));
        JoinGroupResponse required = call(ApiKeys.JOIN_GROUP, (short) 9, join);
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), required.errorCode());
        JoinGroupResponse joined = call(ApiKeys.JOIN_GROUP, (short) 9, join.setMemberId(required.memberId()));
        assertEquals(Errors.NONE.code(), joined.errorCode());
        String member = joined.memberId();
        SyncGroupResponse synced = call(ApiKeys.SYNC_GROUP, (short) 5, new SyncGroupRequest().setGroupId("c")
                .setGenerationId(1).setMemberId(member).setAssignments(List.of(
                        new SyncGroupRequest.SyncGroupRequestAssignment().setMemberId(member).setAssignment(new byte[] {4, 2}))));
        assertEquals(Errors.NONE.code(), synced.errorCode());
        commit("c", 1, member, 3, 33);

        restart();

        assertEquals(Map.of(1, 7L), committed("a"), "the later commit wins, the deleted offset stays deleted");
        assertEquals(Map.of(), committed("b"));
        assertEquals("Dead", describe("b").groupState());
        assertEquals(Map.of(3, 33L), committed("c"));
        DescribeGroupsResponse.DescribedGroup c = describe("c");
        assertEquals("Stable", c.groupState());
        assertEquals("range", c.protocolData());
        assertEquals(member, c.members().get(0).memberId());
        assertArrayEquals(new byte[] {7}, c.members().get(0).memberMetadata());
        assertArrayEquals(new byte[] {4, 2}, c.members().get(0).memberAssignment());
        HeartbeatResponse beat = call(ApiKeys.HEARTBEAT, (short) 4, new HeartbeatRequest().setGroupId("c")
                .setGenerationId(1).setMemberId(member));
        assertEquals(Errors.NONE.code(), beat.errorCode(), "the member carries on in its generation");
        assertEquals("Empty", describe("a").groupState());
    }
}
