package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.ShareGroupConfig;
import io.krill.broker.config.ShareGroupConfigs;
import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterShareGroupOffsetsRequest;
import io.krill.wire.message.AlterShareGroupOffsetsResponse;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import io.krill.wire.message.DeleteShareGroupOffsetsRequest;
import io.krill.wire.message.DeleteShareGroupOffsetsResponse;
import io.krill.wire.message.DescribeShareGroupOffsetsRequest;
import io.krill.wire.message.DescribeShareGroupOffsetsResponse;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.ShareGroupDescribeResponse;
import io.krill.wire.message.ShareGroupHeartbeatRequest;
import io.krill.wire.message.ShareGroupHeartbeatResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Share groups (KIP-932) in the coordinator: ShareGroupHeartbeat, ShareGroupDescribe, the share offsets APIs,
 * the share group record and its reload, and the other group APIs on a share group id, on a manual clock, an
 * in-memory log and an in-memory share state persister.
 */
class ShareGroupCoordinatorTest {
    private static final String TOPIC = "orders";

    private MockCoordinatorTimer timer;
    private InMemoryCoordinatorLog log;
    private InMemoryShareStatePersister persister;
    private Map<String, Integer> topics;
    private Map<String, Long> endOffsets;
    private GroupConfig config;
    private GroupCoordinator coordinator;

    @BeforeEach
    void setUp() {
        timer = new MockCoordinatorTimer();
        log = new InMemoryCoordinatorLog();
        persister = new InMemoryShareStatePersister();
        topics = new TreeMap<>(Map.of(TOPIC, 3));
        endOffsets = new HashMap<>();
        config = new GroupConfig(1, (short) 1, 1 << 20, 100, 24 * 3600_000L, 600_000L, 6_000, 300_000,
                3_000, 100, 45_000, 5_000);
        coordinator = start();
    }

    // ------------------------------------------------------------------ helpers

    private GroupCoordinator start() {
        GroupCoordinator c = new GroupCoordinator(1, config, log, timer, TxnOffsetCommitVerifier.UNVERIFIED, persister,
                ShareGroupConfigs.fixed(ShareGroupConfig.DEFAULTS),
                (topic, partition) -> CompletableFuture.completedFuture(endOffsets.getOrDefault(topic + "-" + partition, -1L)));
        c.onChange(null, image());
        timer.advance(0);
        assertTrue(c.isLoaded(0));
        return c;
    }

    private MetadataImage image() {
        List<TopicImage> images = new ArrayList<>();
        images.add(topic(GroupCoordinator.TOPIC, 1, true));
        topics.forEach((name, partitions) -> images.add(topic(name, partitions, false)));
        return new MetadataImage("cluster", 1, List.of(), images);
    }

    private static TopicImage topic(String name, int partitions, boolean internal) {
        List<PartitionState> states = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            states.add(new PartitionState(p, 1, 0, List.of(1), List.of(1), 0));
        }
        return new TopicImage(name, topicId(name), states, Map.of(), internal);
    }

    private static UUID topicId(String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    }

    private void setPartitions(String topic, int partitions) {
        MetadataImage previous = image();
        topics.put(topic, partitions);
        coordinator.onChange(previous, image());
    }

    private ShareGroupHeartbeatResponse heartbeat(ShareGroupHeartbeatRequest request) {
        AtomicReference<ShareGroupHeartbeatResponse> answer = new AtomicReference<>();
        coordinator.shareGroupHeartbeat(new RequestContext("client", "/127.0.0.1", (short) 1), request, answer::set);
        assertNotNull(answer.get(), "answered at once on the in-memory log");
        return answer.get();
    }

    private static ShareGroupHeartbeatRequest join(String group, String memberId, String... topics) {
        return new ShareGroupHeartbeatRequest().setGroupId(group).setMemberId(memberId).setMemberEpoch(0)
                .setSubscribedTopicNames(List.of(topics));
    }

    private static ShareGroupHeartbeatRequest beat(String group, String memberId, int epoch) {
        return new ShareGroupHeartbeatRequest().setGroupId(group).setMemberId(memberId).setMemberEpoch(epoch);
    }

    private static ShareGroupHeartbeatResponse ok(ShareGroupHeartbeatResponse response) {
        assertEquals(Errors.NONE.code(), response.errorCode(), response.errorMessage());
        return response;
    }

    private static void assertError(Errors error, String message, ShareGroupHeartbeatResponse response) {
        assertEquals(error.code(), response.errorCode(), response.errorMessage());
        if (message != null) {
            assertEquals(message, response.errorMessage());
        }
    }

    /** Joins and heartbeats once more, so that the member has its partitions (initialized at the join). */
    private ShareGroupHeartbeatResponse joinAndSettle(String group, String memberId, String... topics) {
        ShareGroupHeartbeatResponse joined = ok(heartbeat(join(group, memberId, topics)));
        return ok(heartbeat(beat(group, memberId, joined.memberEpoch())));
    }

    private static Set<Integer> partitions(ShareGroupHeartbeatResponse response) {
        Set<Integer> ps = new TreeSet<>();
        response.assignment().topicPartitions().forEach(tp -> ps.addAll(tp.partitions()));
        return ps;
    }

    /** Each member's partitions of {@link #TOPIC}, as described. */
    private Map<String, Set<Integer>> described(String group) {
        Map<String, Set<Integer>> byMember = new TreeMap<>();
        for (ShareGroupDescribeResponse.Member m : coordinator.shareGroupDescribe(group).members()) {
            Set<Integer> ps = new TreeSet<>();
            m.assignment().topicPartitions().forEach(tp -> ps.addAll(tp.partitions()));
            byMember.put(m.memberId(), ps);
        }
        return byMember;
    }

    /** Every member heartbeats at its current epoch (so that it takes its latest assignment). */
    private void everyoneBeats(String group) {
        for (ShareGroupDescribeResponse.Member m : coordinator.shareGroupDescribe(group).members()) {
            ok(heartbeat(beat(group, m.memberId(), m.memberEpoch())));
        }
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(5, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------ heartbeat

    @Test
    void aJoinInitializesTheSharePartitionsWhichTheNextHeartbeatAssigns() {
        ShareGroupHeartbeatResponse joined = ok(heartbeat(join("g", "m1", TOPIC)));
        assertEquals("m1", joined.memberId());
        assertEquals(2, joined.memberEpoch(), "a new group is at epoch 1; its first member's join moves it to 2");
        assertEquals(5_000, joined.heartbeatIntervalMs());
        assertNotNull(joined.assignment(), "a join is always answered with the assignment");
        assertTrue(joined.assignment().topicPartitions().isEmpty(), "nothing is initialized yet");
        for (int p = 0; p < 3; p++) {
            var state = persister.states.get(new SharePartitionKey("g", topicId(TOPIC), p));
            assertNotNull(state, "partition " + p + " initialized");
            assertEquals(2, state.stateEpoch(), "at the group epoch");
            assertEquals(-1, state.startOffset(), "the leader applies share.auto.offset.reset");
        }
        ShareGroupHeartbeatResponse assigned = ok(heartbeat(beat("g", "m1", 2)));
        assertEquals(3, assigned.memberEpoch(), "the initialized partitions move the epoch");
        assertEquals(Set.of(0, 1, 2), partitions(assigned));
        assertEquals(topicId(TOPIC), assigned.assignment().topicPartitions().get(0).topicId());
        ShareGroupHeartbeatResponse again = ok(heartbeat(beat("g", "m1", 3)));
        assertEquals(3, again.memberEpoch());
        assertNull(again.assignment(), "an unchanged assignment is not sent again");
    }

    @Test
    void aSlowInitializationAssignsNothingUntilItCompletes() {
        persister.hold = true;
        ShareGroupHeartbeatResponse joined = ok(heartbeat(join("g", "m1", TOPIC)));
        ShareGroupHeartbeatResponse waiting = ok(heartbeat(beat("g", "m1", joined.memberEpoch())));
        assertEquals(joined.memberEpoch(), waiting.memberEpoch());
        assertNull(waiting.assignment());
        assertEquals(3, persister.held.size(), "initialized once, not again by the next heartbeat");
        persister.release();
        ShareGroupHeartbeatResponse assigned = ok(heartbeat(beat("g", "m1", joined.memberEpoch())));
        assertEquals(Set.of(0, 1, 2), partitions(assigned));
        assertEquals(joined.memberEpoch() + 1, assigned.memberEpoch());
    }

    @Test
    void aFailedInitializationIsTriedAgainAtTheNextHeartbeat() {
        persister.failInitialize = Errors.COORDINATOR_NOT_AVAILABLE;
        ShareGroupHeartbeatResponse joined = ok(heartbeat(join("g", "m1", TOPIC)));
        assertNull(ok(heartbeat(beat("g", "m1", joined.memberEpoch()))).assignment());
        persister.failInitialize = null;
        ok(heartbeat(beat("g", "m1", joined.memberEpoch()))); // initializes now
        assertEquals(Set.of(0, 1, 2), partitions(ok(heartbeat(beat("g", "m1", joined.memberEpoch())))));
    }

    @Test
    void fewerMembersThanPartitionsEachPartitionGoesToOneMemberBalanced() {
        topics.put(TOPIC, 5);
        coordinator.onChange(null, image());
        joinAndSettle("g", "a", TOPIC);
        ok(heartbeat(join("g", "b", TOPIC)));
        everyoneBeats("g");
        Map<String, Set<Integer>> assignment = described("g");
        Set<Integer> all = new TreeSet<>();
        assignment.values().forEach(ps -> {
            assertTrue(ps.size() == 2 || ps.size() == 3, "balanced: " + assignment);
            ps.forEach(p -> assertTrue(all.add(p), "one member per partition: " + assignment));
        });
        assertEquals(Set.of(0, 1, 2, 3, 4), all);
    }

    @Test
    void moreMembersThanPartitionsSharePartitionsEvenly() {
        topics.put(TOPIC, 2);
        coordinator.onChange(null, image());
        joinAndSettle("g", "m1", TOPIC);
        for (String m : List.of("m2", "m3", "m4", "m5")) {
            ok(heartbeat(join("g", m, TOPIC)));
        }
        everyoneBeats("g");
        Map<String, Set<Integer>> assignment = described("g");
        Map<Integer, Integer> sharers = new TreeMap<>();
        assignment.forEach((member, ps) -> {
            assertTrue(ps.size() == 1 || ps.size() == 2, "balanced: " + assignment);
            ps.forEach(p -> sharers.merge(p, 1, Integer::sum));
        });
        assertEquals(Map.of(0, 3, 1, 3), sharers, "as Kafka: each partition shared by ceil(5 / 2) members");
    }

    @Test
    void theAssignmentIsStableAcrossHeartbeatsAndAMemberLeavingKeepsTheOthersPartitions() {
        topics.put(TOPIC, 4);
        coordinator.onChange(null, image());
        joinAndSettle("g", "a", TOPIC);
        ok(heartbeat(join("g", "b", TOPIC)));
        ok(heartbeat(join("g", "c", TOPIC)));
        everyoneBeats("g");
        Map<String, Set<Integer>> before = described("g");
        everyoneBeats("g");
        assertEquals(before, described("g"), "heartbeats alone change nothing");
        int epoch = coordinator.shareGroupDescribe("g").groupEpoch();
        ShareGroupHeartbeatResponse left = ok(heartbeat(beat("g", "c", coordinator.shareGroupDescribe("g")
                .members().stream().filter(m -> m.memberId().equals("c")).findFirst().orElseThrow().memberEpoch())
                .setMemberEpoch(-1)));
        assertEquals(-1, left.memberEpoch());
        assertEquals("c", left.memberId());
        assertEquals(epoch + 1, coordinator.shareGroupDescribe("g").groupEpoch());
        everyoneBeats("g");
        Map<String, Set<Integer>> after = described("g");
        assertTrue(after.get("a").containsAll(before.get("a")), "sticky: " + before + " -> " + after);
        assertTrue(after.get("b").containsAll(before.get("b")), "sticky: " + before + " -> " + after);
        assertEquals(4, after.get("a").size() + after.get("b").size());
    }

    @Test
    void aSubscriptionChangeAndMorePartitionsMoveTheEpoch() {
        topics.put("other", 1);
        coordinator.onChange(null, image());
        ShareGroupHeartbeatResponse settled = joinAndSettle("g", "m1", TOPIC);
        ShareGroupHeartbeatResponse changed = ok(heartbeat(beat("g", "m1", settled.memberEpoch())
                .setSubscribedTopicNames(List.of(TOPIC, "other"))));
        assertEquals(settled.memberEpoch() + 1, changed.memberEpoch());
        ShareGroupHeartbeatResponse both = ok(heartbeat(beat("g", "m1", changed.memberEpoch())));
        assertEquals(2, both.assignment().topicPartitions().size(), "the other topic once initialized");
        setPartitions(TOPIC, 4);
        ShareGroupHeartbeatResponse grown = ok(heartbeat(beat("g", "m1", both.memberEpoch())));
        assertEquals(both.memberEpoch() + 1, grown.memberEpoch(), "a partition count change moves the epoch");
        ShareGroupHeartbeatResponse withNew = ok(heartbeat(beat("g", "m1", grown.memberEpoch())));
        assertTrue(partitions(withNew).contains(3), "the new partition once initialized");
    }

    @Test
    void aSilentMemberExpiresAfterTheSessionTimeout() {
        ShareGroupHeartbeatResponse a = joinAndSettle("g", "a", TOPIC);
        ok(heartbeat(join("g", "b", TOPIC)));
        for (int i = 0; i < 5; i++) {
            timer.advance(10_000);
            a = ok(heartbeat(beat("g", "a", a.memberEpoch())));
        }
        assertEquals(Set.of("a"), described("g").keySet(), "b was silent for 50 s");
        assertEquals(Set.of(0, 1, 2), described("g").get("a"), "a was given b's partitions at its next heartbeat");
        ShareGroupHeartbeatResponse alone = a;
        timer.advance(45_000);
        assertEquals("Empty", coordinator.shareGroupDescribe("g").groupState());
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), heartbeat(beat("g", "a", alone.memberEpoch())).errorCode());
    }

    @Test
    void epochsAreFencedAsKafkaDoes() {
        ShareGroupHeartbeatResponse a = joinAndSettle("g", "a", TOPIC);
        assertError(Errors.FENCED_MEMBER_EPOCH, "The share group member has a greater member epoch (" + (a.memberEpoch() + 1)
                + ") than the one known by the group coordinator (" + a.memberEpoch()
                + "). The member must abandon all its partitions and rejoin.",
                heartbeat(beat("g", "a", a.memberEpoch() + 1)));
        ok(heartbeat(beat("g", "a", a.memberEpoch() - 1))); // the previous epoch is still accepted
        assertError(Errors.FENCED_MEMBER_EPOCH, null, heartbeat(beat("g", "a", 1)));
        assertError(Errors.UNKNOWN_MEMBER_ID, "Member zz is not a member of group g.", heartbeat(beat("g", "zz", 2)));
        assertError(Errors.UNKNOWN_MEMBER_ID, null, heartbeat(beat("g", "zz", -1)));
        assertError(Errors.GROUP_ID_NOT_FOUND, "Share group nope not found.", heartbeat(beat("nope", "a", 3)));
        assertError(Errors.GROUP_ID_NOT_FOUND, "Group nope not found.", heartbeat(beat("nope", "a", -1)));
        ShareGroupHeartbeatResponse rejoined = ok(heartbeat(join("g", "a", TOPIC)));
        assertEquals(a.memberEpoch(), rejoined.memberEpoch(), "a rejoin of a known member changes nothing");
        assertEquals(Set.of(0, 1, 2), partitions(rejoined), "and is given its whole assignment");
    }

    @Test
    void malformedRequestsAreInvalidRequestWithKafkasMessages() {
        assertError(Errors.INVALID_REQUEST, "MemberId can't be empty.", heartbeat(join("g", "", TOPIC)));
        assertError(Errors.INVALID_REQUEST, "GroupId can't be empty.", heartbeat(join("", "m", TOPIC)));
        assertError(Errors.INVALID_REQUEST, "RackId can't be empty.", heartbeat(join("g", "m", TOPIC).setRackId("")));
        assertError(Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.",
                heartbeat(join("g", "m")));
        assertError(Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.",
                heartbeat(beat("g", "m", 0)));
        assertError(Errors.INVALID_REQUEST, "MemberEpoch is invalid.", heartbeat(beat("g", "m", -2)));
        assertEquals(0, coordinator.listGroups(Set.of(), Set.of()).groups().size(), "no group left behind");
    }

    @Test
    void theGroupMaxSizeIsGroupShareMaxSize() {
        config = config.withShareMaxSize(2);
        coordinator = start();
        ok(heartbeat(join("g", "a", TOPIC)));
        ok(heartbeat(join("g", "b", TOPIC)));
        assertError(Errors.GROUP_MAX_SIZE_REACHED, "The share group has reached its maximum capacity of 2 members.",
                heartbeat(join("g", "c", TOPIC)));
        ok(heartbeat(join("g", "b", TOPIC))); // a known member may always rejoin
    }

    @Test
    void aShareGroupIdIsNotAnotherTypesAndViceVersa() {
        commitSimpleOffset("simple");
        assertError(Errors.GROUP_ID_NOT_FOUND, "Group simple is not a share group.", heartbeat(join("simple", "m", TOPIC)));

        ok(heartbeat(join("g", "m", TOPIC)));
        AtomicReference<ConsumerGroupHeartbeatResponse> consumer = new AtomicReference<>();
        coordinator.consumerGroupHeartbeat(new RequestContext("c", "/h", (short) 1), new ConsumerGroupHeartbeatRequest()
                .setGroupId("g").setMemberId("x").setMemberEpoch(0).setRebalanceTimeoutMs(30_000)
                .setSubscribedTopicNames(List.of(TOPIC)).setTopicPartitions(List.of()), consumer::set);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), consumer.get().errorCode());
        assertEquals("Group g is not a consumer group.", consumer.get().errorMessage());

        AtomicReference<JoinGroupResponse> classic = new AtomicReference<>();
        coordinator.joinGroup(new RequestContext("c", "/h", (short) 9), new JoinGroupRequest().setGroupId("g")
                .setMemberId("").setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocolType("consumer")
                .setProtocols(List.of(new JoinGroupRequest.JoinGroupRequestProtocol().setName("range")
                        .setMetadata(new byte[0]))), classic::set);
        assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), classic.get().errorCode());

        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), commit("g").topics().get(0).partitions().get(0).errorCode());
        assertEquals(Errors.NONE.code(), coordinator.fetchOffsets("g", null).errorCode(), "as a group without offsets");
        assertTrue(coordinator.fetchOffsets("g", null).topics().isEmpty());
        assertEquals(Errors.NONE.code(), coordinator.describeGroup("g", (short) 5).errorCode(), "v0-5: Dead, as a missing group");
        assertEquals("Dead", coordinator.describeGroup("g", (short) 5).groupState());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), coordinator.describeGroup("g", (short) 6).errorCode());
        assertEquals("Group g is not a classic group.", coordinator.describeGroup("g", (short) 6).errorMessage());
        assertEquals("Classic group none not found.", coordinator.describeGroup("none", (short) 6).errorMessage());
        assertEquals("Group simple is not a share group.", coordinator.shareGroupDescribe("simple").errorMessage());
        assertEquals("Group none not found.", coordinator.shareGroupDescribe("none").errorMessage());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), coordinator.shareGroupDescribe("none").errorCode());
    }

    private OffsetCommitResponse commit(String group) {
        AtomicReference<OffsetCommitResponse> result = new AtomicReference<>();
        coordinator.commitOffsets(new RequestContext("client", "/127.0.0.1", (short) 9), new OffsetCommitRequest()
                .setGroupId(group).setMemberId("").setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().setName(TOPIC).setPartitions(
                        List.of(new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(0)
                                .setCommittedOffset(5))))), result::set);
        return result.get();
    }

    private void commitSimpleOffset(String group) {
        assertEquals(Errors.NONE.code(), commit(group).topics().get(0).partitions().get(0).errorCode());
    }

    // ------------------------------------------------------------------ describe, list, record, reload

    @Test
    void describeShowsStateEpochsAssignorAndMembers() {
        ShareGroupHeartbeatResponse a = joinAndSettle("g", "a", TOPIC);
        heartbeat(beat("g", "a", a.memberEpoch()).setRackId("r1"));
        ShareGroupDescribeResponse.DescribedGroup d = coordinator.shareGroupDescribe("g");
        assertEquals(Errors.NONE.code(), d.errorCode());
        assertEquals("Stable", d.groupState());
        assertEquals("simple", d.assignorName());
        assertEquals(a.memberEpoch(), d.groupEpoch());
        assertEquals(a.memberEpoch(), d.assignmentEpoch());
        ShareGroupDescribeResponse.Member m = d.members().get(0);
        assertEquals("a", m.memberId());
        assertEquals("r1", m.rackId());
        assertEquals("client", m.clientId());
        assertEquals("/127.0.0.1", m.clientHost());
        assertEquals(List.of(TOPIC), m.subscribedTopicNames());
        assertEquals(TOPIC, m.assignment().topicPartitions().get(0).topicName());
        assertEquals(List.of(0, 1, 2), m.assignment().topicPartitions().get(0).partitions());

        var listed = coordinator.listGroups(Set.of(), Set.of("share")).groups();
        assertEquals(1, listed.size());
        assertEquals("share", listed.get(0).groupType());
        assertEquals("share", listed.get(0).protocolType());
        assertEquals("Stable", listed.get(0).groupState());
        assertEquals(0, coordinator.listGroups(Set.of(), Set.of("consumer")).groups().size());
        assertEquals(1, coordinator.listGroups(Set.of("stable"), Set.of()).groups().size());
    }

    @Test
    void theGroupSurvivesACoordinatorMoveWithItsEpochsAndAssignments() {
        ShareGroupHeartbeatResponse a = joinAndSettle("g", "a", TOPIC);
        ok(heartbeat(join("g", "b", TOPIC)));
        everyoneBeats("g");
        ShareGroupDescribeResponse.DescribedGroup before = coordinator.shareGroupDescribe("g");
        coordinator.close();
        coordinator = start();
        ShareGroupDescribeResponse.DescribedGroup after = coordinator.shareGroupDescribe("g");
        assertEquals(before, after.setAuthorizedOperations(before.authorizedOperations()));
        int epochOfA = after.members().stream().filter(m -> m.memberId().equals("a")).findFirst().orElseThrow().memberEpoch();
        ShareGroupHeartbeatResponse resumed = ok(heartbeat(beat("g", "a", epochOfA)));
        assertEquals(epochOfA, resumed.memberEpoch(), "no fencing after a move: nothing to revoke");
        assertEquals(3, persister.states.size(), "not initialized again");
        for (int i = 0; i < 5; i++) {
            timer.advance(10_000);
            resumed = ok(heartbeat(beat("g", "a", resumed.memberEpoch())));
        }
        assertEquals(Set.of("a"), described("g").keySet(), "b's session restarted at the load and expired");
        ok(heartbeat(beat("g", "a", resumed.memberEpoch()).setMemberEpoch(-1)));
        timer.advance(0);
        coordinator.close();
        coordinator = start();
        ShareGroupDescribeResponse.DescribedGroup empty = coordinator.shareGroupDescribe("g");
        assertEquals("Empty", empty.groupState(), "an empty share group lives on");
        assertEquals(a.memberEpoch() + 3, empty.groupEpoch(), "b's join and expiry, a's leave");
    }

    @Test
    void aFailedWriteIsAnsweredWithItsErrorAndWrittenAgain() {
        persister.hold = true; // the join's own write is the one that fails
        log.failNext = Errors.NOT_LEADER_OR_FOLLOWER;
        ShareGroupHeartbeatResponse failed = heartbeat(join("g", "a", TOPIC));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), failed.errorCode());
        ShareGroupHeartbeatResponse retried = ok(heartbeat(join("g", "a", TOPIC)));
        coordinator.close();
        coordinator = start();
        assertEquals(retried.memberEpoch(), coordinator.shareGroupDescribe("g").groupEpoch());
    }

    // ------------------------------------------------------------------ admin

    @Test
    void deleteGroupsDeletesAnEmptyShareGroupAndItsShareState() throws Exception {
        ShareGroupHeartbeatResponse a = joinAndSettle("g", "a", TOPIC);
        assertEquals(Errors.NON_EMPTY_GROUP, get(coordinator.deleteGroups(List.of("g"))).get("g"));
        ok(heartbeat(beat("g", "a", a.memberEpoch()).setMemberEpoch(-1)));
        assertEquals(Errors.NONE, get(coordinator.deleteGroups(List.of("g"))).get("g"));
        assertEquals(3, persister.deleted.size());
        assertTrue(persister.states.isEmpty());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), coordinator.shareGroupDescribe("g").errorCode());
        coordinator.close();
        coordinator = start();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), coordinator.shareGroupDescribe("g").errorCode(), "gone for good");
    }

    @Test
    void shareGroupOffsetsAreDescribedAlteredAndDeleted() throws Exception {
        ShareGroupHeartbeatResponse a = joinAndSettle("g", "a", TOPIC);
        endOffsets.put(TOPIC + "-0", 100L);

        DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup all =
                get(coordinator.describeShareGroupOffsets("g", null));
        assertEquals(Errors.NONE.code(), all.errorCode());
        assertEquals(3, all.topics().get(0).partitions().size());
        assertEquals(-1, all.topics().get(0).partitions().get(0).startOffset());
        assertEquals(-1, all.topics().get(0).partitions().get(0).lag(), "no lag without a start offset");

        AlterShareGroupOffsetsRequest alter = new AlterShareGroupOffsetsRequest().setGroupId("g");
        alter.topics().add(new AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic().setTopicName(TOPIC)
                .setPartitions(List.of(new AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition()
                        .setPartitionIndex(0).setStartOffset(40))));
        AlterShareGroupOffsetsResponse busy = get(coordinator.alterShareGroupOffsets(alter));
        assertEquals(Errors.NON_EMPTY_GROUP.code(), busy.errorCode());

        ok(heartbeat(beat("g", "a", a.memberEpoch()).setMemberEpoch(-1)));
        alter.topics().add(new AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic().setTopicName("nope")
                .setPartitions(List.of(new AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition()
                        .setPartitionIndex(0).setStartOffset(1))));
        AlterShareGroupOffsetsResponse altered = get(coordinator.alterShareGroupOffsets(alter));
        assertEquals(Errors.NONE.code(), altered.errorCode());
        assertEquals(Errors.NONE.code(), altered.responses().get(0).partitions().get(0).errorCode());
        assertEquals(topicId(TOPIC), altered.responses().get(0).topicId());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), altered.responses().get(1).partitions().get(0).errorCode());
        var key = new SharePartitionKey("g", topicId(TOPIC), 0);
        assertEquals(40, persister.states.get(key).startOffset());
        assertEquals(3, persister.states.get(key).stateEpoch(), "the state epoch moved past the join's");

        persister.delivered.put(key, 10L);
        DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup one = get(coordinator
                .describeShareGroupOffsets("g", List.of(new DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic()
                        .setTopicName(TOPIC).setPartitions(List.of(0, 7)),
                        new DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic()
                                .setTopicName("nope").setPartitions(List.of(0)))));
        var p0 = one.topics().get(0).partitions().get(0);
        assertEquals(40, p0.startOffset());
        assertEquals(50, p0.lag(), "end 100 - start 40 - 10 delivered");
        assertEquals(-1, one.topics().get(0).partitions().get(1).startOffset(), "no state: uninitialized");
        var unknownTopic = one.topics().get(1).partitions().get(0);
        assertEquals(Errors.NONE.code(), unknownTopic.errorCode(), "Kafka: an unknown topic is no error here");
        assertEquals(-1, unknownTopic.startOffset());
        assertEquals(0, unknownTopic.leaderEpoch());

        DeleteShareGroupOffsetsRequest delete = new DeleteShareGroupOffsetsRequest().setGroupId("g");
        delete.topics().add(new DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic().setTopicName(TOPIC));
        delete.topics().add(new DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic().setTopicName("nope"));
        DeleteShareGroupOffsetsResponse deleted = get(coordinator.deleteShareGroupOffsets(delete));
        assertEquals(Errors.NONE.code(), deleted.errorCode());
        assertEquals(Errors.NONE.code(), deleted.responses().get(0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), deleted.responses().get(1).errorCode());
        assertTrue(persister.states.isEmpty());
        assertTrue(get(coordinator.describeShareGroupOffsets("g", null)).topics().isEmpty(), "nothing initialized left");

        var none = get(coordinator.describeShareGroupOffsets("none", null));
        assertEquals(Errors.NONE.code(), none.errorCode(), "Kafka: no share group, nothing initialized");
        assertTrue(none.topics().isEmpty());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(),
                get(coordinator.alterShareGroupOffsets(new AlterShareGroupOffsetsRequest().setGroupId("none"))).errorCode());
    }
}
