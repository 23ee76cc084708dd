package io.krill.broker.group;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.testing.RawClient;
import io.krill.broker.testing.TestBroker;
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
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.LeaveGroupResponse;
import io.krill.wire.message.ListGroupsRequest;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import io.krill.wire.protocol.ApiMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every served version of every group API over a raw socket: the whole life of a one-member group at
 * each JoinGroup version (KIP-394 from v4), and the admin APIs. Catches fields a version cannot carry.
 */
class GroupApiVersionsTest {
    /** A liveness bound for loading a partition of {@code __consumer_offsets}, not a speed requirement. */
    private static final Duration LOAD_PATIENCE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(20);

    private static TestBroker broker;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(Map.of("group.initial.rebalance.delay.ms", "0", "offsets.topic.num.partitions", "3"));
        // Offsets are committed for topic t: a commit for a topic that does not exist is refused, as in Kafka.
        broker.broker().metadata().createTopic(io.krill.controller.metadata.NewTopic.of("t", 4, 1));
        client = new RawClient(broker.port());
        // COORDINATOR_NOT_AVAILABLE while __consumer_offsets is created on first use: a client retries.
        java.util.concurrent.atomic.AtomicReference<FindCoordinatorResponse> answer = new java.util.concurrent.atomic.AtomicReference<>();
        org.awaitility.Awaitility.await("the group coordinator").atMost(java.time.Duration.ofSeconds(30))
                .until(() -> {
                    answer.set(call(ApiKeys.FIND_COORDINATOR, (short) 3,
                            new FindCoordinatorRequest().setKey("g").setKeyType((byte) 0)));
                    return answer.get().errorCode() != Errors.COORDINATOR_NOT_AVAILABLE.code();
                });
        FindCoordinatorResponse found = answer.get();
        assertEquals(Errors.NONE.code(), found.errorCode());
        assertEquals(broker.port(), found.port());
        assertEquals(1, found.nodeId());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage request) throws Exception {
        return client.call(api, version, request);
    }

    @Test
    void findCoordinatorAtEveryVersion() throws Exception {
        for (short v = 0; v <= 6; v++) {
            FindCoordinatorRequest request = v < 4 ? new FindCoordinatorRequest().setKey("group-" + v)
                    : new FindCoordinatorRequest().setCoordinatorKeys(List.of("a", "b"));
            FindCoordinatorResponse response = call(ApiKeys.FIND_COORDINATOR, v, request);
            if (v < 4) {
                assertEquals(Errors.NONE.code(), response.errorCode(), "v" + v);
                assertEquals(broker.port(), response.port());
            } else {
                assertEquals(2, response.coordinators().size());
                for (FindCoordinatorResponse.Coordinator c : response.coordinators()) {
                    assertEquals(Errors.NONE.code(), c.errorCode());
                    assertEquals(broker.port(), c.port());
                }
            }
        }
        // __transaction_state is created by this first ask: COORDINATOR_NOT_AVAILABLE until it exists.
        java.util.concurrent.atomic.AtomicReference<FindCoordinatorResponse> answer = new java.util.concurrent.atomic.AtomicReference<>();
        org.awaitility.Awaitility.await("the transaction coordinator").atMost(java.time.Duration.ofSeconds(30))
                .until(() -> {
                    answer.set(call(ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequest()
                            .setKeyType((byte) 1).setCoordinatorKeys(List.of("txn"))));
                    return answer.get().coordinators().get(0).errorCode() != Errors.COORDINATOR_NOT_AVAILABLE.code();
                });
        FindCoordinatorResponse txn = answer.get();
        assertEquals(Errors.NONE.code(), txn.coordinators().get(0).errorCode(), "the transaction coordinator");
        assertEquals(broker.port(), txn.coordinators().get(0).port());
        FindCoordinatorResponse share = call(ApiKeys.FIND_COORDINATOR, (short) 6, new FindCoordinatorRequest()
                .setKeyType((byte) 2).setCoordinatorKeys(List.of("share")));
        assertEquals(Errors.INVALID_REQUEST.code(), share.coordinators().get(0).errorCode());
    }

    @Test
    void aGroupLivesAndDiesAtEveryJoinGroupVersion() throws Exception {
        for (short v = 0; v <= 9; v++) {
            String group = "group-v" + v;
            JoinGroupRequest join = new JoinGroupRequest().setGroupId(group).setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(v >= 1 ? 10_000 : -1).setMemberId("").setProtocolType("consumer")
                    .setProtocols(new ArrayList<>(List.of(new JoinGroupRequest.JoinGroupRequestProtocol()
                            .setName("range").setMetadata(new byte[] {1, 2, 3}))));
            JoinGroupResponse joined = joinUntilLoaded(v, join);
            if (v >= 4) {
                assertEquals(Errors.MEMBER_ID_REQUIRED.code(), joined.errorCode(), "v" + v);
                joined = call(ApiKeys.JOIN_GROUP, v, join.setMemberId(joined.memberId()));
            }
            assertEquals(Errors.NONE.code(), joined.errorCode(), "join v" + v);
            assertEquals(1, joined.generationId());
            assertEquals("range", joined.protocolName());
            assertEquals(joined.memberId(), joined.leader());
            assertEquals(1, joined.members().size());
            assertArrayEquals(new byte[] {1, 2, 3}, joined.members().get(0).metadata());
            String memberId = joined.memberId();

            short syncVersion = (short) Math.min(v, 5);
            SyncGroupResponse synced = call(ApiKeys.SYNC_GROUP, syncVersion, new SyncGroupRequest().setGroupId(group)
                    .setGenerationId(1).setMemberId(memberId).setAssignments(List.of(
                            new SyncGroupRequest.SyncGroupRequestAssignment().setMemberId(memberId)
                                    .setAssignment(new byte[] {9}))));
            assertEquals(Errors.NONE.code(), synced.errorCode(), "sync v" + syncVersion);
            assertArrayEquals(new byte[] {9}, synced.assignment());

            HeartbeatResponse beat = call(ApiKeys.HEARTBEAT, (short) Math.min(v, 4), new HeartbeatRequest()
                    .setGroupId(group).setGenerationId(1).setMemberId(memberId));
            assertEquals(Errors.NONE.code(), beat.errorCode());

            short commitVersion = (short) Math.max(2, v);
            OffsetCommitResponse committed = call(ApiKeys.OFFSET_COMMIT, commitVersion, new OffsetCommitRequest()
                    .setGroupId(group).setGenerationIdOrMemberEpoch(1).setMemberId(memberId).setTopics(List.of(
                            new OffsetCommitRequest.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
                                    new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(0)
                                            .setCommittedOffset(100 + v).setCommittedMetadata("m"))))));
            assertEquals(Errors.NONE.code(), committed.topics().get(0).partitions().get(0).errorCode(),
                    "commit v" + commitVersion);

            short fetchVersion = (short) Math.max(1, v);
            assertEquals(100 + v, fetchCommitted(fetchVersion, group, "t", 0), "fetch v" + fetchVersion);

            short leaveVersion = (short) Math.min(v, 5);
            LeaveGroupRequest leave = leaveVersion >= 3 ? new LeaveGroupRequest().setGroupId(group).setMembers(List.of(
                    new LeaveGroupRequest.MemberIdentity().setMemberId(memberId)))
                    : new LeaveGroupRequest().setGroupId(group).setMemberId(memberId);
            LeaveGroupResponse left = call(ApiKeys.LEAVE_GROUP, leaveVersion, leave);
            assertEquals(Errors.NONE.code(), left.errorCode(), "leave v" + leaveVersion);
            if (leaveVersion >= 3) {
                assertEquals(Errors.NONE.code(), left.members().get(0).errorCode());
            }
            HeartbeatResponse gone = call(ApiKeys.HEARTBEAT, (short) 0, new HeartbeatRequest()
                    .setGroupId(group).setGenerationId(1).setMemberId(memberId));
            assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), gone.errorCode());
        }
    }

    /** Joins, again while the group's coordinator is loading; fails if it is still loading after {@link #LOAD_PATIENCE}. */
    private static JoinGroupResponse joinUntilLoaded(short version, JoinGroupRequest join) {
        return await("JoinGroup v" + version + " of " + join.groupId() + " answered by a loaded coordinator")
                .atMost(LOAD_PATIENCE).pollInterval(POLL)
                .until(() -> (JoinGroupResponse) call(ApiKeys.JOIN_GROUP, version, join),
                        response -> response.errorCode() != Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
    }

    private static long fetchCommitted(short version, String group, String topic, int partition) throws Exception {
        if (version >= 8) {
            OffsetFetchResponse response = call(ApiKeys.OFFSET_FETCH, version, new OffsetFetchRequest().setGroups(List.of(
                    new OffsetFetchRequest.OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(
                            new OffsetFetchRequest.OffsetFetchRequestTopics().setName(topic)
                                    .setPartitionIndexes(List.of(partition)))))));
            assertEquals(Errors.NONE.code(), response.groups().get(0).errorCode());
            OffsetFetchResponse.OffsetFetchResponsePartitions fetched =
                    response.groups().get(0).topics().get(0).partitions().get(0);
            assertEquals(partition, fetched.partitionIndex());
            assertEquals(Errors.NONE.code(), fetched.errorCode(), "offset fetch v" + version + " of partition " + partition);
            return fetched.committedOffset();
        }
        OffsetFetchResponse response = call(ApiKeys.OFFSET_FETCH, version, new OffsetFetchRequest().setGroupId(group)
                .setTopics(List.of(new OffsetFetchRequest.OffsetFetchRequestTopic().setName(topic)
                        .setPartitionIndexes(List.of(partition)))));
        assertEquals(Errors.NONE.code(), response.errorCode());
        if (version >= 2) {
            OffsetFetchResponse all = call(ApiKeys.OFFSET_FETCH, version, new OffsetFetchRequest().setGroupId(group)
                    .setTopics(null));
            assertEquals(Errors.NONE.code(), all.errorCode());
            assertEquals(1, all.topics().size(), "null topics: every committed offset");
        }
        OffsetFetchResponse.OffsetFetchResponsePartition fetched = response.topics().get(0).partitions().get(0);
        assertEquals(partition, fetched.partitionIndex());
        assertEquals(Errors.NONE.code(), fetched.errorCode(), "offset fetch v" + version + " of partition " + partition);
        return fetched.committedOffset();
    }

    @Test
    void adminApisAtEveryVersion() throws Exception {
        OffsetCommitRequest simple = new OffsetCommitRequest().setGroupId("admin-group")
                .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
                                new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(0)
                                        .setCommittedOffset(5), new OffsetCommitRequest.OffsetCommitRequestPartition()
                                        .setPartitionIndex(1).setCommittedOffset(6)))));
        OffsetCommitResponse simpleCommit = await("OffsetCommit of admin-group answered by a loaded coordinator")
                .atMost(LOAD_PATIENCE).pollInterval(POLL)
                .until(() -> (OffsetCommitResponse) call(ApiKeys.OFFSET_COMMIT, (short) 9, simple),
                        response -> response.topics().get(0).partitions().get(0).errorCode()
                                != Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        for (OffsetCommitResponse.OffsetCommitResponsePartition p : simpleCommit.topics().get(0).partitions()) {
            assertEquals(Errors.NONE.code(), p.errorCode(), "commit of partition " + p.partitionIndex());
        }
        for (short v = 0; v <= 5; v++) {
            DescribeGroupsResponse described = call(ApiKeys.DESCRIBE_GROUPS, v, new DescribeGroupsRequest()
                    .setGroups(List.of("admin-group", "no-such-group")));
            assertEquals(2, described.groups().size());
            assertEquals("Empty", described.groups().get(0).groupState(), "v" + v);
            assertEquals("Dead", described.groups().get(1).groupState());
            ListGroupsResponse listed = call(ApiKeys.LIST_GROUPS, v, new ListGroupsRequest()
                    .setStatesFilter(v >= 4 ? List.of("Empty") : List.of()).setTypesFilter(v >= 5 ? List.of("classic")
                            : List.of()));
            assertEquals(Errors.NONE.code(), listed.errorCode());
            assertTrue(listed.groups().stream().anyMatch(g -> g.groupId().equals("admin-group")), "v" + v);
        }
        OffsetDeleteResponse deleted = call(ApiKeys.OFFSET_DELETE, (short) 0, new OffsetDeleteRequest()
                .setGroupId("admin-group").setTopics(List.of(new OffsetDeleteRequest.OffsetDeleteRequestTopic()
                        .setName("t").setPartitions(List.of(new OffsetDeleteRequest.OffsetDeleteRequestPartition()
                                .setPartitionIndex(1))))));
        assertEquals(Errors.NONE.code(), deleted.errorCode());
        assertEquals(Errors.NONE.code(), deleted.topics().get(0).partitions().get(0).errorCode());
        assertEquals(-1, fetchCommitted((short) 9, "admin-group", "t", 1));
        assertEquals(5, fetchCommitted((short) 9, "admin-group", "t", 0));
        OffsetDeleteResponse unknown = call(ApiKeys.OFFSET_DELETE, (short) 0, new OffsetDeleteRequest()
                .setGroupId("no-such-group"));
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), unknown.errorCode());
        for (short v = 0; v <= 2; v++) {
            DeleteGroupsResponse result = call(ApiKeys.DELETE_GROUPS, v, new DeleteGroupsRequest()
                    .setGroupsNames(List.of("admin-group")));
            assertEquals(v == 0 ? Errors.NONE.code() : Errors.GROUP_ID_NOT_FOUND.code(),
                    result.results().get(0).errorCode(), "v" + v);
        }
        assertEquals(-1, fetchCommitted((short) 9, "admin-group", "t", 0));
    }
}
