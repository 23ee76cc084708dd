package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerProtocolSubscription;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The classic-protocol state machine and offset store, on a manual clock and an in-memory log. */
class GroupCoordinatorTest {
    private static final int SESSION = 10_000;
    private static final int REBALANCE = 30_000;
    private static final int INITIAL_DELAY = 3_000;
    private static final short V = 9;

    private MockCoordinatorTimer timer;
    private InMemoryCoordinatorLog log;
    private GroupCoordinator coordinator;

    @BeforeEach
    void setUp() {
        timer = new MockCoordinatorTimer();
        log = new InMemoryCoordinatorLog();
        coordinator = newCoordinator(100);
    }

    private GroupCoordinator newCoordinator(int maxSize) {
        GroupConfig config = new GroupConfig(1, (short) 1, 1 << 20, 100, 24 * 3600_000L, 600_000L, 6_000, 300_000,
                INITIAL_DELAY, maxSize, 45_000, 5_000);
        GroupCoordinator c = new GroupCoordinator(1, config, log, timer);
        c.onElection(0);
        timer.advance(0);
        assertTrue(c.isLoaded(0));
        return c;
    }

    // ------------------------------------------------------------------ helpers

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static JoinGroupRequest joinRequest(String group, String memberId, String instanceId, String... protocols) {
        List<JoinGroupRequest.JoinGroupRequestProtocol> list = new ArrayList<>();
        for (String p : protocols) {
            list.add(new JoinGroupRequest.JoinGroupRequestProtocol().setName(p).setMetadata(bytes("meta-" + p)));
        }
        return new JoinGroupRequest().setGroupId(group).setMemberId(memberId).setGroupInstanceId(instanceId)
                .setSessionTimeoutMs(SESSION).setRebalanceTimeoutMs(REBALANCE).setProtocolType("consumer")
                .setProtocols(list);
    }

    private AtomicReference<JoinGroupResponse> join(JoinGroupRequest request, short version) {
        AtomicReference<JoinGroupResponse> result = new AtomicReference<>();
        coordinator.joinGroup(new RequestContext("client", "/127.0.0.1", version), request, result::set);
        return result;
    }

    private AtomicReference<JoinGroupResponse> join(String group, String memberId, String... protocols) {
        return join(joinRequest(group, memberId, null, protocols), V);
    }

    /** KIP-394: joins without an id, gets MEMBER_ID_REQUIRED, joins again with the id (pending). */
    private AtomicReference<JoinGroupResponse> joinNew(String group, String... protocols) {
        JoinGroupResponse required = join(group, "", protocols).get();
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), required.errorCode());
        assertTrue(required.memberId().startsWith("client-"));
        return join(group, required.memberId(), protocols);
    }

    private AtomicReference<SyncGroupResponse> sync(String group, String memberId, int generation,
                                                    Map<String, byte[]> assignments) {
        List<SyncGroupRequest.SyncGroupRequestAssignment> list = new ArrayList<>();
        assignments.forEach((m, a) -> list.add(new SyncGroupRequest.SyncGroupRequestAssignment().setMemberId(m)
                .setAssignment(a)));
        AtomicReference<SyncGroupResponse> result = new AtomicReference<>();
        coordinator.syncGroup(new RequestContext("client", "/127.0.0.1", (short) 5), new SyncGroupRequest()
                .setGroupId(group).setMemberId(memberId).setGenerationId(generation).setAssignments(list), result::set);
        return result;
    }

    private Errors heartbeat(String group, String memberId, int generation) {
        return coordinator.heartbeat(new HeartbeatRequest().setGroupId(group).setMemberId(memberId)
                .setGenerationId(generation));
    }

    private Errors heartbeat(String group, String memberId, String instanceId, int generation) {
        return coordinator.heartbeat(new HeartbeatRequest().setGroupId(group).setMemberId(memberId)
                .setGroupInstanceId(instanceId).setGenerationId(generation));
    }

    private OffsetCommitResponse commit(String group, String memberId, int generation, short version, String topic,
                                        int partition, long offset, String metadata) {
        AtomicReference<OffsetCommitResponse> result = new AtomicReference<>();
        OffsetCommitRequest request = new OffsetCommitRequest().setGroupId(group).setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(generation)
                .setTopics(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().setName(topic).setPartitions(List.of(
                        new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(partition)
                                .setCommittedOffset(offset).setCommittedMetadata(metadata)))));
        coordinator.commitOffsets(new RequestContext("client", "/127.0.0.1", version), request, result::set);
        assertNotNull(result.get(), "a commit to the in-memory log completes at once");
        return result.get();
    }

    private static short commitError(OffsetCommitResponse response) {
        return response.topics().get(0).partitions().get(0).errorCode();
    }

    private long committed(String group, String topic, int partition) {
        OffsetFetchResponse.OffsetFetchResponseGroup result = coordinator.fetchOffsets(group, List.of(
                new OffsetFetchRequest.OffsetFetchRequestTopics().setName(topic).setPartitionIndexes(List.of(partition))));
        assertEquals(Errors.NONE.code(), result.errorCode());
        return result.topics().get(0).partitions().get(0).committedOffset();
    }

    private String state(String group) {
        return coordinator.describeGroup(group, (short) 5).groupState();
    }

    /** Two members joined and synced: returns {leaderId, followerId}; generation 1. */
    private String[] stableGroupOfTwo(String group) {
        AtomicReference<JoinGroupResponse> first = joinNew(group, "range");
        AtomicReference<JoinGroupResponse> second = joinNew(group, "range");
        timer.advance(INITIAL_DELAY * 3); // each new member in the initial delay extends it
        assertNotNull(first.get());
        assertNotNull(second.get());
        String leader = first.get().leader();
        String follower = leader.equals(first.get().memberId()) ? second.get().memberId() : first.get().memberId();
        AtomicReference<SyncGroupResponse> followerSync = sync(group, follower, 1, Map.of());
        AtomicReference<SyncGroupResponse> leaderSync = sync(group, leader, 1, Map.of(leader, bytes("L"), follower, bytes("F")));
        assertEquals(Errors.NONE.code(), leaderSync.get().errorCode());
        assertEquals(Errors.NONE.code(), followerSync.get().errorCode());
        assertEquals("Stable", state(group));
        return new String[] {leader, follower};
    }

    // ------------------------------------------------------------------ join and sync

    @Test
    void newMemberGetsAnIdFirstThenJoinsAfterTheInitialDelay() {
        AtomicReference<JoinGroupResponse> joined = joinNew("g", "range");
        assertNull(joined.get(), "waits for the initial rebalance delay");
        assertEquals("PreparingRebalance", state("g"));
        timer.advance(INITIAL_DELAY - 1);
        assertNull(joined.get());
        timer.advance(1);
        JoinGroupResponse response = joined.get();
        assertEquals(Errors.NONE.code(), response.errorCode());
        assertEquals(1, response.generationId());
        assertEquals("range", response.protocolName());
        assertEquals(response.memberId(), response.leader());
        assertEquals(1, response.members().size());
        assertArrayEquals(bytes("meta-range"), response.members().get(0).metadata());
        assertEquals("CompletingRebalance", state("g"));
    }

    @Test
    void versionsBeforeFourJoinWithoutTheMemberIdRoundTrip() {
        AtomicReference<JoinGroupResponse> joined = join(joinRequest("g", "", null, "range"), (short) 3);
        timer.advance(INITIAL_DELAY);
        assertEquals(Errors.NONE.code(), joined.get().errorCode());
        assertTrue(joined.get().memberId().startsWith("client-"));
    }

    @Test
    void sessionTimeoutOutsideTheBrokerRangeIsRefused() {
        AtomicReference<JoinGroupResponse> joined = join(joinRequest("g", "", null, "range").setSessionTimeoutMs(1000), V);
        assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(), joined.get().errorCode());
        assertEquals("Dead", state("g"), "no group created");
    }

    @Test
    void knownMemberOfUnknownGroupIsUnknown() {
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), join("g", "someone", "range").get().errorCode());
    }

    @Test
    void leaderAssignmentReachesEveryMemberAndTheGroupIsStable() {
        AtomicReference<JoinGroupResponse> a = joinNew("g", "range");
        AtomicReference<JoinGroupResponse> b = joinNew("g", "range");
        timer.advance(INITIAL_DELAY * 3); // each new member in the initial delay extends it
        JoinGroupResponse leader = a.get().memberId().equals(a.get().leader()) ? a.get() : b.get();
        JoinGroupResponse follower = leader == a.get() ? b.get() : a.get();
        assertEquals(2, leader.members().size(), "the leader gets the members");
        assertEquals(0, follower.members().size());
        AtomicReference<SyncGroupResponse> followerSync = sync("g", follower.memberId(), 1, Map.of());
        assertNull(followerSync.get(), "waits for the leader");
        AtomicReference<SyncGroupResponse> leaderSync = sync("g", leader.memberId(), 1,
                Map.of(leader.memberId(), bytes("A"), follower.memberId(), bytes("B")));
        assertArrayEquals(bytes("A"), leaderSync.get().assignment());
        assertArrayEquals(bytes("B"), followerSync.get().assignment());
        assertEquals("range", followerSync.get().protocolName());
        assertEquals("Stable", state("g"));
        assertEquals(Errors.NONE, heartbeat("g", follower.memberId(), 1));
        // A late sync in Stable gets the stored assignment.
        assertArrayEquals(bytes("B"), sync("g", follower.memberId(), 1, Map.of()).get().assignment());
        DescribeGroupsResponse.DescribedGroup described = coordinator.describeGroup("g", (short) 5);
        assertEquals("range", described.protocolData());
        assertEquals(2, described.members().size());
        assertEquals("/127.0.0.1", described.members().get(0).clientHost());
    }

    @Test
    void syncAndHeartbeatCheckGenerationAndMember() {
        String[] members = stableGroupOfTwo("g");
        assertEquals(Errors.ILLEGAL_GENERATION, heartbeat("g", members[0], 0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", "stranger", 1));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("nogroup", "stranger", 1));
        assertEquals(Errors.ILLEGAL_GENERATION.code(), sync("g", members[1], 7, Map.of()).get().errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), sync("g", "stranger", 1, Map.of()).get().errorCode());
    }

    @Test
    void protocolIsChosenByVotesAmongThoseAllMembersSupport() {
        AtomicReference<JoinGroupResponse> a = joinNew("g", "range", "roundrobin");
        AtomicReference<JoinGroupResponse> b = joinNew("g", "roundrobin", "range");
        AtomicReference<JoinGroupResponse> c = joinNew("g", "roundrobin", "sticky", "range");
        timer.advance(INITIAL_DELAY * 3); // each new member in the initial delay extends it
        assertEquals("roundrobin", a.get().protocolName());
        assertEquals("roundrobin", c.get().protocolName());
        assertArrayEquals(bytes("meta-roundrobin"), a.get().memberId().equals(a.get().leader())
                ? a.get().members().get(0).metadata() : bytes("meta-roundrobin"));
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), join("g", "", "sticky").get().errorCode());
        assertNotNull(b.get());
    }

    @Test
    void memberWithAnUnsupportedProtocolIsRefused() {
        stableGroupOfTwo("g");
        JoinGroupResponse response = join("g", "", "roundrobin").get();
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), response.errorCode());
        JoinGroupResponse otherType = join(joinRequest("g", "", null, "range").setProtocolType("connect"), V).get();
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), otherType.errorCode());
    }

    @Test
    void groupMaxSizeRefusesExtraMembers() {
        coordinator = newCoordinator(1);
        AtomicReference<JoinGroupResponse> first = joinNew("g", "range");
        AtomicReference<JoinGroupResponse> second = join("g", "", "range");
        assertEquals(Errors.GROUP_MAX_SIZE_REACHED.code(), second.get().errorCode());
        timer.advance(INITIAL_DELAY);
        assertEquals(Errors.NONE.code(), first.get().errorCode());
    }

    // ------------------------------------------------------------------ rebalances and timeouts

    @Test
    void heartbeatsDuringARebalanceAskMembersToRejoin() {
        String[] members = stableGroupOfTwo("g");
        AtomicReference<JoinGroupResponse> third = joinNew("g", "range");
        assertEquals("PreparingRebalance", state("g"));
        assertEquals(Errors.REBALANCE_IN_PROGRESS, heartbeat("g", members[1], 1));
        AtomicReference<JoinGroupResponse> a = join("g", members[0], "range");
        assertNull(a.get());
        AtomicReference<JoinGroupResponse> b = join("g", members[1], "range");
        assertNotNull(b.get(), "completes once every member has rejoined, without waiting for the timeout");
        assertEquals(2, b.get().generationId());
        assertEquals(2, third.get().generationId());
        assertEquals(3, (a.get().memberId().equals(a.get().leader()) ? a.get() : b.get().memberId()
                .equals(b.get().leader()) ? b.get() : third.get()).members().size());
    }

    @Test
    void memberWithoutHeartbeatsIsRemovedAfterTheSessionTimeout() {
        String[] members = stableGroupOfTwo("g");
        timer.advance(SESSION - 1);
        assertEquals(Errors.NONE, heartbeat("g", members[0], 1));
        timer.advance(2);
        // members[1] sent nothing for a session timeout: it is gone and the group rebalances.
        assertEquals(Errors.REBALANCE_IN_PROGRESS, heartbeat("g", members[0], 1));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", members[1], 1));
        AtomicReference<JoinGroupResponse> rejoined = join("g", members[0], "range");
        assertEquals(2, rejoined.get().generationId());
        assertEquals(1, rejoined.get().members().size());
    }

    @Test
    void memberThatDoesNotRejoinWithinTheRebalanceTimeoutIsDropped() {
        String[] members = stableGroupOfTwo("g");
        AtomicReference<JoinGroupResponse> newcomer = joinNew("g", "range");
        AtomicReference<JoinGroupResponse> a = join("g", members[0], "range");
        for (int t = 0; t < REBALANCE; t += SESSION / 2) {
            timer.advance(SESSION / 2);
            if (newcomer.get() == null) {
                // members[1] keeps heartbeating but never rejoins
                heartbeat("g", members[1], 1);
            }
        }
        assertNotNull(a.get());
        assertEquals(2, a.get().generationId());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", members[1], 2));
    }

    @Test
    void memberThatNeverSyncsIsRemovedAndTheGroupRebalances() {
        AtomicReference<JoinGroupResponse> a = joinNew("g", "range");
        AtomicReference<JoinGroupResponse> b = joinNew("g", "range");
        timer.advance(INITIAL_DELAY * 3); // each new member in the initial delay extends it
        String leader = a.get().leader();
        String follower = leader.equals(a.get().memberId()) ? b.get().memberId() : a.get().memberId();
        sync("g", leader, 1, Map.of(leader, bytes("x")));
        assertEquals("Stable", state("g"));
        for (int t = 0; t < REBALANCE - SESSION / 2; t += SESSION / 2) {
            timer.advance(SESSION / 2);
            assertEquals(Errors.NONE, heartbeat("g", leader, 1));
            assertEquals(Errors.NONE, heartbeat("g", follower, 1), "heartbeats, but never syncs");
        }
        timer.advance(SESSION / 2);
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", follower, 1));
        assertEquals(Errors.REBALANCE_IN_PROGRESS, heartbeat("g", leader, 1));
    }

    @Test
    void lastMemberLeavingEmptiesTheGroup() {
        String[] members = stableGroupOfTwo("g");
        var response = coordinator.leaveGroup("g", List.of(
                new LeaveGroupRequest.MemberIdentity().setMemberId(members[0]),
                new LeaveGroupRequest.MemberIdentity().setMemberId(members[1]),
                new LeaveGroupRequest.MemberIdentity().setMemberId("stranger")));
        assertEquals(Errors.NONE.code(), response.members().get(0).errorCode());
        assertEquals(Errors.NONE.code(), response.members().get(1).errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), response.members().get(2).errorCode());
        assertEquals("Empty", state("g"));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", members[0], 2));
    }

    // ------------------------------------------------------------------ static membership

    @Test
    void staticMemberRejoiningWithANewIdKeepsTheGenerationAndFencesTheOldId() {
        AtomicReference<JoinGroupResponse> s = join(joinRequest("g", "", "instance-1", "range"), V);
        AtomicReference<JoinGroupResponse> d = joinNew("g", "range");
        timer.advance(INITIAL_DELAY * 3); // each new member in the initial delay extends it
        String staticId = s.get().memberId();
        String leader = s.get().leader();
        String dynamicId = d.get().memberId();
        sync("g", leader, 1, Map.of(staticId, bytes("S"), dynamicId, bytes("D")));
        sync("g", staticId.equals(leader) ? dynamicId : staticId, 1, Map.of());
        assertEquals("Stable", state("g"));

        AtomicReference<JoinGroupResponse> restarted = join(joinRequest("g", "", "instance-1", "range"), V);
        JoinGroupResponse response = restarted.get();
        assertNotNull(response, "answered at once: no rebalance");
        assertEquals(Errors.NONE.code(), response.errorCode());
        assertEquals(1, response.generationId());
        String newId = response.memberId();
        assertTrue(!newId.equals(staticId));
        assertEquals("Stable", state("g"));
        assertEquals(staticId.equals(leader), response.skipAssignment(), "a restarted leader skips the assignment");
        assertArrayEquals(bytes("S"), sync("g", newId, 1, Map.of()).get().assignment());
        assertEquals(Errors.FENCED_INSTANCE_ID, heartbeat("g", staticId, "instance-1", 1));
        assertEquals(Errors.NONE, heartbeat("g", newId, "instance-1", 1));
        assertEquals(Errors.NONE, heartbeat("g", dynamicId, 1));

        // A static member leaves by instance id (admin removeMembersFromConsumerGroup).
        var left = coordinator.leaveGroup("g", List.of(new LeaveGroupRequest.MemberIdentity()
                .setMemberId("").setGroupInstanceId("instance-1")));
        assertEquals(Errors.NONE.code(), left.members().get(0).errorCode());
        assertEquals(Errors.REBALANCE_IN_PROGRESS, heartbeat("g", dynamicId, 1));
    }

    // ------------------------------------------------------------------ offsets

    @Test
    void simpleGroupsCommitWithoutMembership() {
        assertEquals(Errors.NONE.code(), commitError(commit("simple", "", -1, (short) 9, "t", 0, 42, "m")));
        assertEquals(42, committed("simple", "t", 0));
        assertEquals(-1, committed("simple", "t", 1));
        assertEquals(-1, committed("nobody", "t", 0));
        OffsetFetchResponse.OffsetFetchResponseGroup all = coordinator.fetchOffsets("simple", null);
        assertEquals(1, all.topics().size());
        assertEquals("m", all.topics().get(0).partitions().get(0).metadata());
        assertEquals("Empty", state("simple"));
    }

    @Test
    void commitsAreCheckedAgainstGenerationAndMember() {
        String[] members = stableGroupOfTwo("g");
        assertEquals(Errors.NONE.code(), commitError(commit("g", members[0], 1, (short) 9, "t", 0, 5, null)));
        assertEquals(5, committed("g", "t", 0));
        assertEquals(Errors.ILLEGAL_GENERATION.code(), commitError(commit("g", members[0], 2, (short) 9, "t", 0, 6, null)));
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), commitError(commit("g", "stranger", 1, (short) 9, "t", 0, 6, null)));
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), commitError(commit("g", "", -1, (short) 9, "t", 0, 6, null)),
                "a simple commit to a group with members");
        assertEquals(Errors.OFFSET_METADATA_TOO_LARGE.code(),
                commitError(commit("g", members[0], 1, (short) 9, "t", 0, 6, "x".repeat(101))));
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), commitError(commit("none", "m", 3, (short) 9, "t", 0, 1, null)));
        assertEquals(Errors.ILLEGAL_GENERATION.code(), commitError(commit("none", "m", 3, (short) 8, "t", 0, 1, null)));
        assertEquals(5, committed("g", "t", 0));

        // During PreparingRebalance the old generation may still commit (consumers do in onPartitionsRevoked).
        joinNew("g", "range");
        assertEquals(Errors.NONE.code(), commitError(commit("g", members[0], 1, (short) 9, "t", 0, 7, null)));
        join("g", members[0], "range");
        join("g", members[1], "range");
        assertEquals("CompletingRebalance", state("g"));
        assertEquals(Errors.REBALANCE_IN_PROGRESS.code(), commitError(commit("g", members[0], 2, (short) 9, "t", 0, 8, null)));
        assertEquals(7, committed("g", "t", 0));
    }

    /** A broker cut off from the cluster answers nothing from memory: another may hold newer state. */
    @Test
    void aFencedCoordinatorAnswersNotCoordinator() {
        assertEquals(Errors.NONE.code(), commitError(commit("simple", "", -1, (short) 9, "t", 0, 42, "")));
        log.fenced = true;
        OffsetFetchResponse.OffsetFetchResponseGroup fetched = coordinator.fetchOffsets("simple", List.of(
                new OffsetFetchRequest.OffsetFetchRequestTopics().setName("t").setPartitionIndexes(List.of(0))));
        assertEquals(Errors.NOT_COORDINATOR.code(), fetched.errorCode());
        io.krill.wire.error.ApiException refused = org.junit.jupiter.api.Assertions.assertThrows(
                io.krill.wire.error.ApiException.class, () -> commit("simple", "", -1, (short) 9, "t", 0, 43, ""));
        assertEquals(Errors.NOT_COORDINATOR, refused.error(), "as for a group this broker does not coordinate");
        log.fenced = false;
        assertEquals(42, committed("simple", "t", 0));
    }

    @Test
    void failedWritesAreReportedAndLeaveNoTrace() {
        log.failNext = Errors.NOT_COORDINATOR;
        assertEquals(Errors.NOT_COORDINATOR.code(), commitError(commit("simple", "", -1, (short) 9, "t", 0, 42, "")));
        assertEquals(-1, committed("simple", "t", 0));
        log.failNext = Errors.RECORD_LIST_TOO_LARGE;
        assertEquals(Errors.INVALID_COMMIT_OFFSET_SIZE.code(), commitError(commit("simple", "", -1, (short) 9, "t", 0, 1, "")));
    }

    @Test
    void offsetsOfSubscribedTopicsCannotBeDeleted() {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(1);
        new ConsumerProtocolSubscription().setTopics(List.of("subscribed")).write(buf, (short) 1);
        byte[] subscription = new byte[buf.readableBytes()];
        buf.readBytes(subscription);
        JoinGroupRequest request = joinRequest("g", "", null);
        request.setProtocols(List.of(new JoinGroupRequest.JoinGroupRequestProtocol().setName("range")
                .setMetadata(subscription)));
        String memberId = join(request, V).get().memberId();
        AtomicReference<JoinGroupResponse> joined = join(request.setMemberId(memberId), V);
        timer.advance(INITIAL_DELAY);
        sync("g", memberId, 1, Map.of());
        commit("g", memberId, 1, (short) 9, "subscribed", 0, 1, null);
        commit("g", memberId, 1, (short) 9, "other", 0, 1, null);
        assertNotNull(joined.get());

        AtomicReference<OffsetDeleteResponse> deleted = new AtomicReference<>();
        coordinator.deleteOffsets(new OffsetDeleteRequest().setGroupId("g").setTopics(List.of(
                new OffsetDeleteRequest.OffsetDeleteRequestTopic().setName("subscribed").setPartitions(List.of(
                        new OffsetDeleteRequest.OffsetDeleteRequestPartition().setPartitionIndex(0))),
                new OffsetDeleteRequest.OffsetDeleteRequestTopic().setName("other").setPartitions(List.of(
                        new OffsetDeleteRequest.OffsetDeleteRequestPartition().setPartitionIndex(0))))), deleted::set);
        assertEquals(Errors.GROUP_SUBSCRIBED_TO_TOPIC.code(), deleted.get().topics().get(0).partitions().get(0).errorCode());
        assertEquals(Errors.NONE.code(), deleted.get().topics().get(1).partitions().get(0).errorCode());
        assertEquals(1, committed("g", "subscribed", 0));
        assertEquals(-1, committed("g", "other", 0));
    }

    @Test
    void emptyGroupsLoseTheirOffsetsAfterTheRetentionAndThenDisappear() {
        commit("simple", "", -1, (short) 9, "t", 0, 42, "");
        timer.advance(24 * 3600_000L - 1);
        coordinator.expireOffsets();
        assertEquals(42, committed("simple", "t", 0));
        timer.advance(1);
        coordinator.expireOffsets();
        assertEquals(-1, committed("simple", "t", 0));
        assertEquals(0, coordinator.listGroups(Set.of(), Set.of()).groups().size());
    }

    // ------------------------------------------------------------------ admin

    @Test
    void onlyEmptyGroupsCanBeDeleted() throws Exception {
        stableGroupOfTwo("busy");
        commit("idle", "", -1, (short) 9, "t", 0, 3, "");
        Map<String, Errors> results = coordinator.deleteGroups(List.of("busy", "idle", "none")).get();
        assertEquals(Errors.NON_EMPTY_GROUP, results.get("busy"));
        assertEquals(Errors.NONE, results.get("idle"));
        assertEquals(Errors.GROUP_ID_NOT_FOUND, results.get("none"));
        assertEquals(-1, committed("idle", "t", 0));
        assertEquals("Dead", state("idle"));
    }

    @Test
    void listGroupsFiltersByStateAndType() {
        stableGroupOfTwo("busy");
        commit("idle", "", -1, (short) 9, "t", 0, 3, "");
        assertEquals(2, coordinator.listGroups(Set.of(), Set.of()).groups().size());
        var stable = coordinator.listGroups(Set.of("stable"), Set.of()).groups();
        assertEquals(1, stable.size());
        assertEquals("busy", stable.get(0).groupId());
        assertEquals("consumer", stable.get(0).protocolType());
        assertEquals(2, coordinator.listGroups(Set.of(), Set.of("Classic")).groups().size());
        assertEquals(0, coordinator.listGroups(Set.of(), Set.of("consumer")).groups().size());
    }

    // ------------------------------------------------------------------ loading

    @Test
    void stateIsRebuiltFromTheLogByANewCoordinator() {
        String[] members = stableGroupOfTwo("g");
        commit("g", members[0], 1, (short) 9, "t", 0, 11, "a");
        commit("g", members[0], 1, (short) 9, "t", 0, 12, "b");
        commit("simple", "", -1, (short) 9, "t", 1, 7, "");
        commit("gone", "", -1, (short) 9, "t", 1, 7, "");
        assertEquals(Errors.NONE, assertDoesNotThrowGet(coordinator.deleteGroups(List.of("gone"))).get("gone"));

        GroupCoordinator reloaded = new GroupCoordinator(1, coordinator.config(), log, timer);
        assertThrows(ApiException.class, () -> reloaded.heartbeat(new HeartbeatRequest().setGroupId("g")));
        reloaded.onElection(0);
        ApiException loading = assertThrows(ApiException.class, () -> reloaded.heartbeat(new HeartbeatRequest()
                .setGroupId("g").setMemberId(members[0]).setGenerationId(1)));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, loading.error());
        timer.advance(0);
        coordinator = reloaded;

        assertEquals("Stable", state("g"));
        assertEquals(Errors.NONE, heartbeat("g", members[0], 1));
        assertEquals(Errors.NONE, heartbeat("g", members[1], 1));
        assertArrayEquals(bytes("F"), sync("g", members[1], 1, Map.of()).get().assignment());
        assertEquals(12, committed("g", "t", 0));
        assertEquals(7, committed("simple", "t", 1));
        assertEquals(-1, committed("gone", "t", 1));
        assertEquals("Dead", state("gone"));
        // The loaded members' sessions run: without heartbeats they expire.
        timer.advance(SESSION + 1);
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat("g", members[0], 1));
    }

    @Test
    void aLogOfKrillsLegacyLayoutIsConvertedOnLoadAndLoadsAgainFromTheNewRecordsAlone() {
        String[] members = stableGroupOfTwo("g");
        commit("g", members[0], 1, (short) 9, "t", 0, 12, "b");
        commit("simple", "", -1, (short) 9, "t", 1, 7, "");
        // The same log as the legacy writer wrote it, plus a consumer group and a share group under the legacy
        // key types 3 and 4.
        List<CoordinatorLog.Entry> legacy = new ArrayList<>();
        log.partitions.get(0).forEach(e -> legacy.add(LegacyGroupRecords.toLegacy(e)));
        legacy.add(new CoordinatorLog.Entry(LegacyGroupRecords.wholeGroupKey(3, "cg"), LegacyGroupRecords.consumerGroupValue(
                new WholeGroupRecords.ConsumerGroupValue(4, List.of(new WholeGroupRecords.ConsumerMemberValue("m1", null, null,
                        "c1", "/127.0.0.1", 30_000, null, List.of("t"), null))))));
        legacy.add(new CoordinatorLog.Entry(LegacyGroupRecords.wholeGroupKey(4, "sg"), LegacyGroupRecords.shareGroupValue(
                new WholeGroupRecords.ShareGroupValue(2, 2, List.of(), Map.of()))));
        assertTrue(legacy.stream().allMatch(e -> GroupRecords.isLegacy(GroupRecords.readKey(
                io.netty.buffer.Unpooled.wrappedBuffer(e.key())), e.value() == null ? null
                : io.netty.buffer.Unpooled.wrappedBuffer(e.value()))), "every record is of the legacy layout");
        log.replace(0, legacy);

        coordinator = newCoordinator(100);
        assertLoaded(members);
        List<CoordinatorLog.Entry> all = log.partitions.get(0);
        List<CoordinatorLog.Entry> rewritten = new ArrayList<>(all.subList(legacy.size(), all.size()));
        // g's group record, cg's records (metadata, target metadata, m1's metadata, target and current
        // assignment), sg's (metadata, target metadata, state partitions), two offsets (g/t/0, simple/t/1), and
        // the tombstone of sg's key of type 4 (cg's new metadata record replaces its key of type 3).
        assertEquals(12, rewritten.size(), rewritten.toString());

        // What compaction leaves: the latest record of each key, tombstones gone.
        Map<String, CoordinatorLog.Entry> latest = new java.util.LinkedHashMap<>();
        for (CoordinatorLog.Entry e : all) {
            latest.put(java.util.HexFormat.of().formatHex(e.key()), e);
        }
        List<CoordinatorLog.Entry> compacted = latest.values().stream().filter(e -> e.value() != null).toList();
        for (CoordinatorLog.Entry e : compacted) {
            assertFalse(GroupRecords.isLegacy(GroupRecords.readKey(io.netty.buffer.Unpooled.wrappedBuffer(e.key())),
                    io.netty.buffer.Unpooled.wrappedBuffer(e.value())), "no legacy record survives compaction");
        }
        log.replace(0, compacted);
        coordinator = newCoordinator(100);
        assertLoaded(members);
        assertEquals(compacted.size(), log.partitions.get(0).size(), "nothing is converted twice");
    }

    private void assertLoaded(String[] members) {
        assertEquals("Stable", state("g"));
        assertEquals(Errors.NONE, heartbeat("g", members[0], 1));
        assertEquals(12, committed("g", "t", 0));
        assertEquals(7, committed("simple", "t", 1));
        assertEquals(1, coordinator.listGroups(Set.of(), Set.of("consumer")).groups().size());
        assertEquals(1, coordinator.listGroups(Set.of(), Set.of("share")).groups().size());
    }

    private static <T> T assertDoesNotThrowGet(java.util.concurrent.CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void groupsMapToPartitionsAsKafkaDoes() {
        assertEquals(Math.abs("my-group".hashCode()) % 50, GroupCoordinator.partitionFor("my-group", 50));
        // Kafka's Utils.abs maps Integer.MIN_VALUE to 0.
        String minHash = "polygenelubricants";
        assertEquals(Integer.MIN_VALUE, minHash.hashCode());
        assertEquals(0, GroupCoordinator.partitionFor(minHash, 50));
    }
}
