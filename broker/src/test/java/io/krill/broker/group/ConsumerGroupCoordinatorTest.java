package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The KIP-848 side of the coordinator (ConsumerGroupHeartbeat, ConsumerGroupDescribe, the consumer group
 * record and its reload) on a manual clock and an in-memory log.
 */
class ConsumerGroupCoordinatorTest {
    private static final String TOPIC = "orders";

    private MockCoordinatorTimer timer;
    private InMemoryCoordinatorLog log;
    private Map<String, Integer> topics;
    /** Topics deleted and created again: their new ids. */
    private Map<String, UUID> recreated;
    private GroupCoordinator coordinator;

    @BeforeEach
    void setUp() {
        timer = new MockCoordinatorTimer();
        log = new InMemoryCoordinatorLog();
        topics = new TreeMap<>(Map.of(TOPIC, 2));
        recreated = new TreeMap<>();
        coordinator = start();
    }

    // ------------------------------------------------------------------ helpers

    /** A coordinator leading the one partition of {@code __consumer_offsets}, loaded from {@link #log}. */
    private GroupCoordinator start() {
        GroupConfig config = new GroupConfig(1, (short) 1, 1 << 20, 100, 24 * 3600_000L, 600_000L, 6_000, 300_000,
                3_000, 100, 45_000, 5_000);
        GroupCoordinator c = new GroupCoordinator(1, config, log, timer);
        c.onChange(null, image());
        timer.advance(0);
        assertTrue(c.isLoaded(0));
        return c;
    }

    /** {@link #topics} (a topic keeps its id whatever its partition count) and the coordinator's topic. */
    private MetadataImage image() {
        List<TopicImage> images = new ArrayList<>();
        images.add(topic(GroupCoordinator.TOPIC, 1, true));
        topics.forEach((name, partitions) -> images.add(topic(name, partitions, false)));
        return new MetadataImage("cluster", 1, List.of(), images);
    }

    private TopicImage topic(String name, int partitions, boolean internal) {
        List<PartitionState> states = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            states.add(new PartitionState(p, 1, 0, List.of(1), List.of(1), 0));
        }
        return new TopicImage(name, topicId(name), states, Map.of(), internal);
    }

    private UUID topicId(String name) {
        return recreated.getOrDefault(name, UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)));
    }

    /** Deletes {@code topic} and creates it again under the same name and partition count: a new id. */
    private void recreate(String topic) {
        MetadataImage previous = image();
        recreated.put(topic, UUID.randomUUID());
        coordinator.onChange(previous, image());
    }

    private void setPartitions(String topic, int partitions) {
        MetadataImage previous = image();
        topics.put(topic, partitions);
        coordinator.onChange(previous, image());
    }

    /** The answer, or null while the coordinator has not answered yet. */
    private AtomicReference<ConsumerGroupHeartbeatResponse> send(ConsumerGroupHeartbeatRequest request) {
        AtomicReference<ConsumerGroupHeartbeatResponse> answer = new AtomicReference<>();
        coordinator.consumerGroupHeartbeat(new RequestContext("client", "/127.0.0.1", (short) 1), request, answer::set);
        return answer;
    }

    private ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequest request) {
        ConsumerGroupHeartbeatResponse response = send(request).get();
        assertNotNull(response, "answered at once on the in-memory log");
        return response;
    }

    private static ConsumerGroupHeartbeatRequest join(String group, String memberId, String... topics) {
        return new ConsumerGroupHeartbeatRequest().setGroupId(group).setMemberId(memberId).setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(topics)).setTopicPartitions(List.of());
    }

    private static ConsumerGroupHeartbeatRequest beat(String group, String memberId, int epoch) {
        return new ConsumerGroupHeartbeatRequest().setGroupId(group).setMemberId(memberId).setMemberEpoch(epoch);
    }

    private static ConsumerGroupHeartbeatRequest staticLeave(String group, String memberId, String instanceId,
                                                             int epoch) {
        return beat(group, memberId, epoch).setInstanceId(instanceId);
    }

    private ConsumerGroupDescribeResponse.DescribedGroup describe(String group) {
        return coordinator.consumerGroupDescribe(group);
    }

    private static void assertNone(ConsumerGroupHeartbeatResponse response) {
        assertEquals(Errors.NONE.code(), response.errorCode(), response.errorMessage());
    }

    private void commitSimpleOffset(String group) {
        AtomicReference<OffsetCommitResponse> result = new AtomicReference<>();
        coordinator.commitOffsets(new RequestContext("client", "/127.0.0.1", (short) 9), new OffsetCommitRequest()
                .setGroupId(group).setMemberId("").setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequest.OffsetCommitRequestTopic().setName(TOPIC).setPartitions(
                        List.of(new OffsetCommitRequest.OffsetCommitRequestPartition().setPartitionIndex(0)
                                .setCommittedOffset(5))))), result::set);
        assertEquals(Errors.NONE.code(), result.get().topics().get(0).partitions().get(0).errorCode());
    }

    // ------------------------------------------------------------------ epochs

    @Test
    void aNewGroupStartsAtEpochOneSoItsFirstMemberGetsEpochTwo() {
        ConsumerGroupHeartbeatResponse first = heartbeat(join("g", "m1", TOPIC));
        assertNone(first);
        assertEquals(2, first.memberEpoch());
        ConsumerGroupDescribeResponse.DescribedGroup described = describe("g");
        assertEquals(2, described.groupEpoch());
        assertEquals(2, described.assignmentEpoch());
    }

    @Test
    void theGroupEpochMovesByOneForEachJoinLeaveAndTopicChange() {
        int epoch = heartbeat(join("g", "m1", TOPIC)).memberEpoch();
        ConsumerGroupHeartbeatResponse second = heartbeat(join("g", "m2", TOPIC));
        assertEquals(epoch + 1, describe("g").groupEpoch(), "a member joins");
        assertEquals(epoch + 1, second.memberEpoch());

        setPartitions(TOPIC, 4);
        assertNone(heartbeat(beat("g", "m2", second.memberEpoch())));
        assertEquals(epoch + 2, describe("g").groupEpoch(), "a subscribed topic grows");

        assertNone(heartbeat(beat("g", "m2", -1)));
        assertEquals(epoch + 3, describe("g").groupEpoch(), "a member leaves");
        assertNone(heartbeat(beat("g", "m1", -1)));
        ConsumerGroupDescribeResponse.DescribedGroup empty = describe("g");
        assertEquals(epoch + 4, empty.groupEpoch(), "the last member leaves");
        assertEquals(empty.groupEpoch(), empty.assignmentEpoch(), "an empty group's assignment is at its epoch");

        assertEquals(epoch + 5, heartbeat(join("g", "m3", TOPIC)).memberEpoch(), "an empty group goes on from its epoch");
    }

    // ------------------------------------------------------------------ ConsumerGroupDescribe

    @Test
    void describeNamesTheStateAsListGroupsAndAnAbsentRegexIsEmpty() {
        assertNone(heartbeat(join("g", "m1", TOPIC)));
        ConsumerGroupDescribeResponse.DescribedGroup described = describe("g");
        assertEquals("Stable", described.groupState());
        assertEquals("", described.members().get(0).subscribedTopicRegex());

        assertNone(heartbeat(beat("g", "m1", -1)));
        assertEquals("Empty", describe("g").groupState());
    }

    // ------------------------------------------------------------------ which group a heartbeat reaches

    @Test
    void onlyAJoinCreatesAGroup() {
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), heartbeat(beat("nogroup", "m1", 3)).errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), heartbeat(beat("nogroup", "m1", -1)).errorCode(),
                "a leave too");
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("nogroup").errorCode(), "no group was created");
        assertEquals(0, log.size());
    }

    @Test
    void aHeartbeatToAClassicGroupLeavesItClassic() {
        commitSimpleOffset("simple");
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), heartbeat(beat("simple", "m1", 3)).errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("simple").errorCode(), "still a classic group");

        assertNone(heartbeat(join("simple", "m1", TOPIC)));
        assertEquals(Errors.NONE.code(), describe("simple").errorCode(), "a join makes the empty group a consumer group");
    }

    // ------------------------------------------------------------------ the group's record

    @Test
    void aJoinIsAnsweredOnceTheGroupsRecordIsCommitted() {
        log.hold = true;
        AtomicReference<ConsumerGroupHeartbeatResponse> joined = send(join("g", "m1", TOPIC));
        assertNull(joined.get(), "not answered before the group's record is committed");
        AtomicReference<ConsumerGroupHeartbeatResponse> again = send(beat("g", "m1", describe("g").groupEpoch()));
        assertNull(again.get(), "a heartbeat that wrote nothing waits for the record it follows too");

        log.release();
        assertNone(joined.get());
        assertNone(again.get());
    }

    @Test
    void aFailedWriteIsAnsweredWithItsCoordinatorErrorAndWrittenAgainAtTheNextHeartbeat() {
        log.failNext = Errors.COORDINATOR_NOT_AVAILABLE;
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), heartbeat(join("g", "m1", TOPIC)).errorCode());
        assertEquals(0, log.size());

        // The client finds the coordinator again and sends its join again.
        ConsumerGroupHeartbeatResponse joined = heartbeat(join("g", "m1", TOPIC));
        assertNone(joined);
        // Its records, all written again: m1's metadata, the group's epoch, m1's target, the target's
        // metadata, m1's current assignment.
        assertEquals(5, log.size(), "the group's records are written again");

        coordinator = start();
        assertEquals(describe("g").groupEpoch(), joined.memberEpoch(), "reloaded at the epoch the member was told");
    }

    @Test
    void anEpochMovedByTopicMetadataIsWrittenAndReloaded() {
        ConsumerGroupHeartbeatResponse joined = heartbeat(join("g", "m1", TOPIC));
        assertNone(joined);
        setPartitions(TOPIC, 3);
        ConsumerGroupHeartbeatResponse grown = heartbeat(beat("g", "m1", joined.memberEpoch()));
        assertNone(grown);
        assertEquals(joined.memberEpoch() + 1, grown.memberEpoch(), "more partitions: the group epoch moves once");

        coordinator = start();
        assertEquals(grown.memberEpoch(), describe("g").groupEpoch(), "the group epoch never goes back on reload");
    }

    /** The records appended since {@code from}: "type id" for a value, "type id -" for a tombstone. */
    private List<String> recordsSince(int from) {
        List<String> records = new ArrayList<>();
        List<io.krill.broker.coordinator.CoordinatorLog.Entry> all = log.partitions.getOrDefault(0, List.of());
        for (io.krill.broker.coordinator.CoordinatorLog.Entry e : all.subList(from, all.size())) {
            GroupRecords.Key key = GroupRecords.readKey(io.netty.buffer.Unpooled.wrappedBuffer(e.key()));
            String id = key instanceof GroupRecords.ModernKey k ? k.type() + " " + k.id() : key.toString();
            records.add(id.strip() + (e.value() == null ? " -" : ""));
        }
        return records;
    }

    /** Two members, m1 and m2, reconciled to a stable group; the topic has 4 partitions. */
    private int[] stableGroupOfTwo() {
        topics.put(TOPIC, 4);
        coordinator.onChange(null, image());
        ConsumerGroupHeartbeatResponse m1 = heartbeat(join("g", "m1", TOPIC));
        ConsumerGroupHeartbeatResponse m2 = heartbeat(join("g", "m2", TOPIC));
        // m1 gives up what the new target moves to m2, then both reach the group epoch.
        m1 = heartbeat(beat("g", "m1", m1.memberEpoch()).setTopicPartitions(owned(m1)));
        m1 = heartbeat(beat("g", "m1", m1.memberEpoch()).setTopicPartitions(owned(m1)));
        m2 = heartbeat(beat("g", "m2", m2.memberEpoch()).setTopicPartitions(List.of()));
        assertEquals("Stable", describe("g").groupState());
        return new int[] {m1.memberEpoch(), m2.memberEpoch()};
    }

    private static List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned(ConsumerGroupHeartbeatResponse response) {
        List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned = new ArrayList<>();
        if (response.assignment() != null) {
            response.assignment().topicPartitions().forEach(tp -> owned.add(new ConsumerGroupHeartbeatRequest.TopicPartitions()
                    .setTopicId(tp.topicId()).setPartitions(tp.partitions())));
        }
        return owned;
    }

    @Test
    void membersKeepTheirEpochsAndAssignmentsAcrossACoordinatorMove() {
        int[] epochs = stableGroupOfTwo();
        ConsumerGroupDescribeResponse.DescribedGroup before = describe("g");
        coordinator.close();
        coordinator = start();
        ConsumerGroupDescribeResponse.DescribedGroup after = describe("g");
        assertEquals(before, after, "members, epochs, assignments and targets as they were");
        assertEquals("Stable", after.groupState());
        ConsumerGroupHeartbeatResponse m1 = heartbeat(beat("g", "m1", epochs[0]));
        assertNone(m1);
        assertEquals(epochs[0], m1.memberEpoch(), "not fenced: the member carries on");
        int size = log.size();
        assertNone(heartbeat(beat("g", "m2", epochs[1])));
        assertEquals(size, log.size(), "a heartbeat that changes nothing writes nothing");
        // Sessions restarted at the load: a member that stays silent expires.
        for (int i = 0; i < 10; i++) {
            timer.advance(5_000);
            assertNone(heartbeat(beat("g", "m1", describe("g").members().stream()
                    .filter(m -> m.memberId().equals("m1")).findFirst().orElseThrow().memberEpoch())));
        }
        assertEquals(List.of("m1"), describe("g").members().stream().map(m -> m.memberId()).toList());
    }

    @Test
    void anOperationWritesOnlyTheRecordsItChangedInKafkasOrder() {
        topics.put(TOPIC, 4);
        coordinator.onChange(null, image());
        int from = log.size();
        ConsumerGroupHeartbeatResponse m1 = heartbeat(join("g", "m1", TOPIC));
        assertEquals(List.of("5 m1", "3", "7 m1", "6", "8 m1"), recordsSince(from), "a join");
        from = log.size();
        ConsumerGroupHeartbeatResponse m2 = heartbeat(join("g", "m2", TOPIC));
        // A new target: m1's changes too, but m1's own assignment changes only at its next heartbeat.
        assertEquals(List.of("5 m2", "3", "7 m1", "7 m2", "6", "8 m2"), recordsSince(from), "a second join");
        from = log.size();
        heartbeat(beat("g", "m1", m1.memberEpoch()).setTopicPartitions(owned(m1)));
        assertEquals(List.of("8 m1"), recordsSince(from), "m1 revokes: its current assignment only");
        from = log.size();
        heartbeat(beat("g", "m2", m2.memberEpoch()).setMemberEpoch(-1));
        assertEquals(List.of("8 m2 -", "7 m2 -", "5 m2 -", "3", "7 m1", "6"), recordsSince(from),
                "a leave: the member's tombstones, the new epoch, the new target");
    }

    @Test
    void aLeaveWhoseWriteFailedIsTombstonedByTheNextWriteSoTheMemberStaysGoneAfterAMove() {
        int[] epochs = stableGroupOfTwo();
        log.failNext = Errors.NOT_COORDINATOR;
        heartbeat(beat("g", "m2", epochs[1]).setMemberEpoch(-1));
        assertEquals(List.of("m1"), describe("g").members().stream().map(m -> m.memberId()).toList(),
                "m2 is gone from memory, its tombstones not written");

        int from = log.size();
        assertNone(heartbeat(beat("g", "m1", epochs[0])));
        List<String> rewritten = recordsSince(from);
        assertTrue(rewritten.containsAll(List.of("8 m2 -", "7 m2 -", "5 m2 -")),
                "the next write carries m2's tombstones: " + rewritten);

        coordinator.close();
        coordinator = start();
        assertEquals(List.of("m1"), describe("g").members().stream().map(m -> m.memberId()).toList(),
                "m2 stays gone after a reload");
    }

    @Test
    void aDeletionWhoseWriteFailedTombstonesEveryRecordWhenTried() throws Exception {
        ConsumerGroupHeartbeatResponse m1 = heartbeat(join("g", "m1", TOPIC));
        heartbeat(beat("g", "m1", m1.memberEpoch()).setMemberEpoch(-1));
        log.failNext = Errors.NOT_COORDINATOR;
        assertEquals(Map.of("g", Errors.NOT_COORDINATOR), coordinator.deleteGroups(List.of("g")).get());

        int from = log.size();
        assertEquals(Map.of("g", Errors.NONE), coordinator.deleteGroups(List.of("g")).get());
        assertEquals(List.of("6 -", "3 -", "GroupKey[groupId=g] -"), recordsSince(from), "tombstoned again");
        coordinator = start();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode());
    }

    @Test
    void deletingTheGroupTombstonesEveryRecordInKafkasOrder() throws Exception {
        ConsumerGroupHeartbeatResponse m1 = heartbeat(join("g", "m1", TOPIC));
        heartbeat(beat("g", "m1", m1.memberEpoch()).setMemberEpoch(-1));
        int from = log.size();
        assertEquals(Map.of("g", Errors.NONE), coordinator.deleteGroups(List.of("g")).get());
        assertEquals(List.of("6 -", "3 -", "GroupKey[groupId=g] -"), recordsSince(from));
        coordinator = start();
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode());
    }

    @Test
    void aGroupInKrillsFormerWholeGroupRecordIsConvertedOnLoadAndItsMembersRejoin() {
        WholeGroupRecords.ConsumerGroupValue former = new WholeGroupRecords.ConsumerGroupValue(5, List.of(
                new WholeGroupRecords.ConsumerMemberValue("m1", "i1", "rack", "c1", "/127.0.0.1", 30_000, "range",
                        List.of(TOPIC), null)));
        log.replace(0, List.of(new io.krill.broker.coordinator.CoordinatorLog.Entry(
                LegacyGroupRecords.wholeGroupKey(1003, "g"), LegacyGroupRecords.consumerGroupValue(former))));
        coordinator = start();
        assertEquals(List.of("GroupKey[groupId=g]", "5 m1", "3", "7 m1", "6", "8 m1",
                "WholeGroupKey[groupId=g, share=false] -").stream().filter(r -> !r.startsWith("GroupKey")).toList(),
                recordsSince(1), "the group's records in Kafka's format, the former key tombstoned");
        ConsumerGroupDescribeResponse.DescribedGroup g = describe("g");
        assertEquals(5, g.groupEpoch());
        assertEquals("range", g.assignorName());
        assertEquals("i1", g.members().get(0).instanceId());
        assertEquals(Errors.FENCED_MEMBER_EPOCH.code(), heartbeat(beat("g", "m1", 5)).errorCode(),
                "the former layout kept no member epochs: the member rejoins");
        int size = log.size();
        coordinator = start();
        assertEquals(size, log.size(), "converted once");
        assertEquals(5, describe("g").groupEpoch());
    }

    // ------------------------------------------------------------------ leaves (Kafka's consumerGroupLeave)

    @Test
    void aLeaveOfAnUnknownMemberIsUnknownMemberIdAndChangesNothing() {
        int epoch = heartbeat(join("g", "m1", TOPIC)).memberEpoch();
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), heartbeat(beat("g", "nobody", -1)).errorCode());
        assertEquals(epoch, describe("g").groupEpoch());
        assertEquals(1, describe("g").members().size());
    }

    @Test
    void aStaticLeaveNamesAKnownInstanceHeldByTheMemberId() {
        assertNone(heartbeat(join("g", "m1", TOPIC).setInstanceId("i1")));
        int epoch = describe("g").groupEpoch();
        assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(beat("g", "m1", -2)).errorCode(),
                "a temporary leave names its instance");
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), heartbeat(staticLeave("g", "m1", "i2", -2)).errorCode(),
                "an unknown instance");
        assertEquals(Errors.FENCED_INSTANCE_ID.code(), heartbeat(staticLeave("g", "m2", "i1", -2)).errorCode(),
                "the instance is another member id's");
        assertEquals(epoch, describe("g").groupEpoch());

        ConsumerGroupHeartbeatResponse left = heartbeat(staticLeave("g", "m1", "i1", -2));
        assertNone(left);
        assertEquals(-2, left.memberEpoch());
        assertEquals(epoch, describe("g").groupEpoch(), "a temporary leave reassigns nothing");
        assertEquals(1, describe("g").members().size());
    }

    // ------------------------------------------------------------------ a failed first join

    @Test
    void aFailedFirstJoinLeavesNoGroup() {
        assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(join("g", "m1").setSubscribedTopicNames(null))
                .errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode(), "no subscription: no group");
        assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), heartbeat(join("g", "m1")
                .setSubscribedTopicNames(null).setSubscribedTopicRegex("[")).errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("g").errorCode(), "an invalid regex: no group");
        assertTrue(coordinator.listGroups(java.util.Set.of(), java.util.Set.of()).groups().isEmpty());
        assertEquals(0, log.size());

        commitSimpleOffset("simple");
        assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), heartbeat(join("simple", "m1")
                .setSubscribedTopicNames(null).setSubscribedTopicRegex("[")).errorCode());
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("simple").errorCode(), "still a classic group");
    }

    @Test
    void aFailedJoinOfANewMemberLeavesTheGroupAsItWas() {
        int epoch = heartbeat(join("g", "m1", TOPIC)).memberEpoch();
        assertEquals(Errors.INVALID_REGULAR_EXPRESSION.code(), heartbeat(join("g", "m2")
                .setSubscribedTopicNames(null).setSubscribedTopicRegex("[")).errorCode());
        assertEquals(Errors.UNSUPPORTED_ASSIGNOR.code(), heartbeat(join("g", "m3", TOPIC).setServerAssignor("sticky"))
                .errorCode());
        assertEquals(epoch, describe("g").groupEpoch());
        assertEquals(1, describe("g").members().size());
    }

    // ------------------------------------------------------------------ what moves the epoch

    @Test
    void aSubscribedTopicCreatedAgainMovesTheEpochAndIsAssignedUnderItsNewId() {
        ConsumerGroupHeartbeatResponse joined = heartbeat(join("g", "m1", TOPIC));
        assertEquals(topicId(TOPIC), joined.assignment().topicPartitions().get(0).topicId());
        recreate(TOPIC);
        ConsumerGroupHeartbeatResponse revoking = heartbeat(beat("g", "m1", joined.memberEpoch()));
        assertNone(revoking);
        assertEquals(joined.memberEpoch() + 1, describe("g").groupEpoch(), "same name and partitions, another id");
        assertEquals(joined.memberEpoch(), revoking.memberEpoch(), "the old id's partitions are revoked first");
        assertTrue(revoking.assignment().topicPartitions().isEmpty());

        ConsumerGroupHeartbeatResponse after = heartbeat(beat("g", "m1", revoking.memberEpoch())
                .setTopicPartitions(List.of()));
        assertEquals(joined.memberEpoch() + 1, after.memberEpoch());
        assertNotNull(after.assignment(), "the new topic id is sent");
        assertEquals(topicId(TOPIC), after.assignment().topicPartitions().get(0).topicId());
        assertEquals(topicId(TOPIC), describe("g").members().get(0).assignment().topicPartitions().get(0).topicId());
    }

    @Test
    void aChangeOfTheGroupsPreferredAssignorMovesTheEpoch() {
        ConsumerGroupHeartbeatResponse joined = heartbeat(join("g", "m1", TOPIC));
        assertEquals("uniform", describe("g").assignorName());
        ConsumerGroupHeartbeatResponse ranged = heartbeat(beat("g", "m1", joined.memberEpoch()).setServerAssignor("range"));
        assertNone(ranged);
        assertEquals(joined.memberEpoch() + 1, ranged.memberEpoch());
        assertEquals("range", describe("g").assignorName());
        ConsumerGroupHeartbeatResponse same = heartbeat(beat("g", "m1", ranged.memberEpoch()).setServerAssignor("range"));
        assertEquals(ranged.memberEpoch(), same.memberEpoch(), "the same assignor again moves nothing");
    }

    // ------------------------------------------------------------------ the request on its own

    @Test
    void aMalformedRequestIsRefusedWhetherOrNotItsGroupExists() {
        assertNone(heartbeat(join("g", "m1", TOPIC)));
        for (String group : List.of("g", "nogroup")) {
            assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(beat(group, "", 3)).errorCode(), "no member id");
            assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(beat(group, "m1", -3)).errorCode(), "epoch -3");
            assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(join(group, "m2", TOPIC).setRebalanceTimeoutMs(-1))
                    .errorCode(), "a join without its rebalance timeout");
            assertEquals(Errors.INVALID_REQUEST.code(), heartbeat(join(group, "m2", TOPIC).setTopicPartitions(null))
                    .errorCode(), "a join without its (empty) owned partitions");
            assertEquals(Errors.UNSUPPORTED_ASSIGNOR.code(), heartbeat(beat(group, "m1", 2).setServerAssignor("sticky"))
                    .errorCode());
        }
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), describe("nogroup").errorCode());
        assertEquals(1, describe("g").members().size());
    }

    @Test
    void aMemberThatReportsTheRevokedPartitionsGoneMovesToTheNewEpochAtOnce() {
        ConsumerGroupHeartbeatResponse joined = heartbeat(join("g", "m1", TOPIC));
        recreate(TOPIC);
        ConsumerGroupHeartbeatResponse after = heartbeat(beat("g", "m1", joined.memberEpoch())
                .setTopicPartitions(List.of()));
        assertEquals(joined.memberEpoch() + 1, after.memberEpoch(), "nothing left to revoke");
        assertEquals(topicId(TOPIC), after.assignment().topicPartitions().get(0).topicId());
    }
}
