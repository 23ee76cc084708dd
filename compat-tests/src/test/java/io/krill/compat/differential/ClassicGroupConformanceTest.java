package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The classic group protocol as the 4.4 consumer (and librdkafka) speak it: JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup with unknown members and groups and wrong generations, then DescribeGroups,
 * ListGroups, DeleteGroups and OffsetDelete as the Admin client and kafka-consumer-groups send them.
 * Member ids are random by design: each side's are named {@code <member N of GROUP>} in the order the
 * sequence learns them ({@link BrokerSide#nameMember}), so that the same member must appear in the same
 * places; their form (client id, a dash, a UUID) is checked on both sides.
 */
class ClassicGroupConformanceTest extends DifferentialTest {
    private static final String CLIENT_ID_PREFIX = "krill-differential-";

    private static String perVersion(String group, short version) {
        return group + "-v" + version;
    }

    // ---- JoinGroup

    @Test
    void joinGroupOfANewMemberWithoutAnId() {
        both(side -> side.awaitGroupCoordinator("diff-jg-id"));
        sequence("JoinGroup of a new member without a member id", ApiKeys.JOIN_GROUP).from(4)
                .request((side, version) -> GroupRequests.join(perVersion("diff-jg-id", version), "", "diff-jg-topic"))
                .learn((side, version, response) -> side.nameMember(perVersion("diff-jg-id", version),
                        ((JoinGroupResponseData) response.data()).memberId()))
                .expect("/errorCode", Errors.MEMBER_ID_REQUIRED)
                .check(answers -> assertTrue(answers.kafka().at("/memberId").asText().startsWith("<member 1 of"),
                        "the new member's id is named on both sides"))
                .run();
    }

    @Test
    void joinGroupOfANewMemberBeforeMemberIdsWereRequired() {
        both(side -> side.awaitGroupCoordinator("diff-jg-old"));
        sequence("JoinGroup of a new member, joined at once (v0-3)", ApiKeys.JOIN_GROUP).upTo(3)
                .request((side, version) -> GroupRequests.join(perVersion("diff-jg-old", version), "", "diff-jg-topic"))
                .learn((side, version, response) -> {
                    String id = ((JoinGroupResponseData) response.data()).memberId();
                    assertTrue(id.startsWith(CLIENT_ID_PREFIX), side + " member id " + id);
                    side.nameMember(perVersion("diff-jg-old", version), id);
                })
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void joinGroupWithTheIdItWasGiven() {
        both(side -> side.awaitGroupCoordinator("diff-jg-join"));
        sequence("JoinGroup of a new member with the id it was given: leader of generation 1", ApiKeys.JOIN_GROUP)
                .from(4)
                .setUp((side, version) -> {
                    JoinGroupResponseData first = (JoinGroupResponseData) side.send(ApiKeys.JOIN_GROUP, version,
                            version, GroupRequests.join(perVersion("diff-jg-join", version), "", "diff-jg-topic")).data();
                    side.nameMember(perVersion("diff-jg-join", version), first.memberId());
                    side.remember(perVersion("diff-jg-join", version), first.memberId());
                })
                .request((side, version) -> GroupRequests.join(perVersion("diff-jg-join", version),
                        side.remembered(perVersion("diff-jg-join", version)), "diff-jg-topic"))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void joinGroupWithAnUnknownMemberId() {
        both(side -> side.awaitGroupCoordinator("diff-jg-unknown"));
        sequence("JoinGroup of a new group with an unknown member id", ApiKeys.JOIN_GROUP)
                .request((side, version) -> GroupRequests.join("diff-jg-unknown", "no-such-member", "diff-jg-topic"))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }

    @Test
    void joinGroupWithAnInconsistentProtocol() {
        both(side -> side.joinAndSyncClassic("diff-jg-protocol", "diff-jg-topic"));
        sequence("JoinGroup with a protocol the group's members do not support", ApiKeys.JOIN_GROUP)
                .request((side, version) -> GroupRequests.join("diff-jg-protocol", "", "roundrobin", "diff-jg-topic",
                        GroupRequests.SESSION_TIMEOUT_MS))
                .expect("/errorCode", Errors.INCONSISTENT_GROUP_PROTOCOL)
                .run();
    }

    @Test
    void joinGroupWithASessionTimeoutOutOfRange() {
        both(side -> side.awaitGroupCoordinator("diff-jg-timeout"));
        sequence("JoinGroup with a 1 ms session timeout", ApiKeys.JOIN_GROUP)
                .request((side, version) -> GroupRequests.join("diff-jg-timeout", "", GroupRequests.RANGE,
                        "diff-jg-topic", 1))
                .expect("/errorCode", Errors.INVALID_SESSION_TIMEOUT)
                .run();
    }

    // ---- SyncGroup

    @Test
    void syncGroupOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-sg-unknown"));
        sequence("SyncGroup of an unknown group", ApiKeys.SYNC_GROUP)
                .request((side, version) -> GroupRequests.sync("diff-sg-unknown", 1, "no-such-member", null, version))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }

    @Test
    void syncGroupOfAnUnknownMember() {
        both(side -> side.joinClassic("diff-sg-member", "diff-sg-topic"));
        sequence("SyncGroup of an unknown member of a group", ApiKeys.SYNC_GROUP)
                .request((side, version) -> GroupRequests.sync("diff-sg-member", 1, "no-such-member", null, version))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }

    @Test
    void syncGroupWithAWrongGeneration() {
        both(side -> side.remember("diff-sg-generation",
                side.joinClassic("diff-sg-generation", "diff-sg-topic").memberId()));
        sequence("SyncGroup of the leader with a wrong generation", ApiKeys.SYNC_GROUP)
                .request((side, version) -> GroupRequests.sync("diff-sg-generation", 99,
                        side.remembered("diff-sg-generation"), GroupRequests.assignment("diff-sg-topic"), version))
                .expect("/errorCode", Errors.ILLEGAL_GENERATION)
                .run();
    }

    @Test
    void syncGroupOfTheLeader() {
        both(side -> side.awaitGroupCoordinator("diff-sg-leader"));
        sequence("SyncGroup of the leader: its assignment back", ApiKeys.SYNC_GROUP)
                .setUp((side, version) -> {
                    BrokerSide.Member member = side.joinClassic(perVersion("diff-sg-leader", version), "diff-sg-topic");
                    side.remember(perVersion("diff-sg-leader", version), member.memberId());
                })
                .request((side, version) -> GroupRequests.sync(perVersion("diff-sg-leader", version), 1,
                        side.remembered(perVersion("diff-sg-leader", version)), GroupRequests.assignment("diff-sg-topic"),
                        version))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    // ---- Heartbeat

    @Test
    void heartbeatOfAStableMember() {
        both(side -> side.remember("diff-hb-stable",
                side.joinAndSyncClassic("diff-hb-stable", "diff-hb-topic").memberId()));
        sequence("Heartbeat of a stable member", ApiKeys.HEARTBEAT)
                .request((side, version) -> GroupRequests.heartbeat("diff-hb-stable", 1, side.remembered("diff-hb-stable")))
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("Heartbeat with a wrong generation", ApiKeys.HEARTBEAT)
                .request((side, version) -> GroupRequests.heartbeat("diff-hb-stable", 7, side.remembered("diff-hb-stable")))
                .expect("/errorCode", Errors.ILLEGAL_GENERATION)
                .run();
        sequence("Heartbeat of an unknown member", ApiKeys.HEARTBEAT)
                .request((side, version) -> GroupRequests.heartbeat("diff-hb-stable", 1, "no-such-member"))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }

    @Test
    void heartbeatOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-hb-unknown"));
        sequence("Heartbeat of an unknown group", ApiKeys.HEARTBEAT)
                .request((side, version) -> GroupRequests.heartbeat("diff-hb-unknown", 1, "no-such-member"))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }

    @Test
    void heartbeatWhileTheGroupAwaitsItsSync() {
        both(side -> side.remember("diff-hb-sync", side.joinClassic("diff-hb-sync", "diff-hb-topic").memberId()));
        sequence("Heartbeat while the group awaits the leader's SyncGroup", ApiKeys.HEARTBEAT)
                .request((side, version) -> GroupRequests.heartbeat("diff-hb-sync", 1, side.remembered("diff-hb-sync")))
                .run();
    }

    // ---- LeaveGroup

    @Test
    void leaveGroupOfAnUnknownMember() {
        both(side -> side.joinAndSyncClassic("diff-lg-member", "diff-lg-topic"));
        sequence("LeaveGroup of an unknown member", ApiKeys.LEAVE_GROUP)
                .request((side, version) -> GroupRequests.leave("diff-lg-member", "no-such-member", version))
                .expect(version -> version >= 3 ? "/members/0/errorCode" : "/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }

    @Test
    void leaveGroupOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-lg-unknown"));
        sequence("LeaveGroup of an unknown group", ApiKeys.LEAVE_GROUP)
                .request((side, version) -> GroupRequests.leave("diff-lg-unknown", "no-such-member", version))
                .run();
    }

    @Test
    void leaveGroupOfAStableMember() {
        both(side -> side.awaitGroupCoordinator("diff-lg-stable"));
        sequence("LeaveGroup of the only member of a stable group", ApiKeys.LEAVE_GROUP)
                .setUp((side, version) -> side.remember(perVersion("diff-lg-stable", version),
                        side.joinAndSyncClassic(perVersion("diff-lg-stable", version), "diff-lg-topic").memberId()))
                .request((side, version) -> GroupRequests.leave(perVersion("diff-lg-stable", version),
                        side.remembered(perVersion("diff-lg-stable", version)), version))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    // ---- DescribeGroups, ListGroups

    @Test
    void describeGroupsOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-dg-unknown"));
        sequence("DescribeGroups of an unknown group", ApiKeys.DESCRIBE_GROUPS)
                .request((side, version) -> GroupRequests.describe("diff-dg-unknown"))
                .run();
    }

    @Test
    void describeGroupsOfAStableGroup() {
        both(side -> side.joinAndSyncClassic("diff-dg-stable", "diff-dg-topic"));
        sequence("DescribeGroups of a stable group", ApiKeys.DESCRIBE_GROUPS)
                .request((side, version) -> GroupRequests.describe("diff-dg-stable"))
                .expect("/groups/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void listGroups() {
        both(side -> {
            side.createTopic("diff-lsg-topic", 1);
            side.joinAndSyncClassic("diff-lsg-stable", "diff-lsg-topic");
            side.joinClassic("diff-lsg-syncing", "diff-lsg-topic");
            side.commitOffset("diff-lsg-empty", "diff-lsg-topic", 1L);
        });
        sequence("ListGroups (this sequence's groups)", ApiKeys.LIST_GROUPS)
                .request((side, version) -> GroupRequests.list(List.of(), List.of(), version))
                .onlyOwn("/groups", "groupId", "diff-lsg-")
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("ListGroups of the Stable state", ApiKeys.LIST_GROUPS).from(4)
                .request((side, version) -> GroupRequests.list(List.of("Stable"), List.of(), version))
                .onlyOwn("/groups", "groupId", "diff-lsg-")
                .expect("/errorCode", Errors.NONE)
                .run();
        sequence("ListGroups of the classic type", ApiKeys.LIST_GROUPS).from(5)
                .request((side, version) -> GroupRequests.list(List.of(), List.of("classic"), version))
                .onlyOwn("/groups", "groupId", "diff-lsg-")
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    // ---- DeleteGroups, OffsetDelete

    @Test
    void deleteGroupsOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-del-unknown"));
        sequence("DeleteGroups of an unknown group", ApiKeys.DELETE_GROUPS)
                .request((side, version) -> GroupRequests.delete("diff-del-unknown"))
                .expect("/results/0/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
    }

    @Test
    void deleteGroupsOfANonEmptyGroup() {
        both(side -> side.joinAndSyncClassic("diff-del-busy", "diff-del-topic"));
        sequence("DeleteGroups of a group with a member", ApiKeys.DELETE_GROUPS)
                .request((side, version) -> GroupRequests.delete("diff-del-busy"))
                .expect("/results/0/errorCode", Errors.NON_EMPTY_GROUP)
                .run();
    }

    @Test
    void deleteGroupsOfAnEmptyGroupWithOffsets() {
        both(side -> {
            side.createTopic("diff-del-topic", 1);
            side.awaitGroupCoordinator("diff-del-empty");
        });
        sequence("DeleteGroups of an empty group with committed offsets", ApiKeys.DELETE_GROUPS)
                .setUp((side, version) -> side.commitOffset(perVersion("diff-del-empty", version), "diff-del-topic", 3L))
                .request((side, version) -> GroupRequests.delete(perVersion("diff-del-empty", version)))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void offsetDeleteOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-od-unknown"));
        sequence("OffsetDelete of an unknown group", ApiKeys.OFFSET_DELETE)
                .request((side, version) -> GroupRequests.offsetDelete("diff-od-unknown", "diff-od-topic", 0))
                .expect("/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
    }

    @Test
    void offsetDeleteOfAnEmptyGroup() {
        both(side -> {
            side.createTopic("diff-od-topic", 1);
            side.awaitGroupCoordinator("diff-od-empty");
        });
        sequence("OffsetDelete of an empty group's committed offset", ApiKeys.OFFSET_DELETE)
                .setUp((side, version) -> side.commitOffset("diff-od-empty", "diff-od-topic", 2L))
                .request((side, version) -> GroupRequests.offsetDelete("diff-od-empty", "diff-od-topic", 0))
                .expect("/errorCode", Errors.NONE)
                .expect("/topics/0/partitions/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void offsetDeleteOfATopicTheGroupIsSubscribedTo() {
        both(side -> {
            side.createTopic("diff-od-subscribed", 1);
            side.commitAsMember(side.joinAndSyncClassic("diff-od-busy", "diff-od-subscribed"), "diff-od-subscribed", 1L);
        });
        sequence("OffsetDelete of a topic a stable group is subscribed to", ApiKeys.OFFSET_DELETE)
                .request((side, version) -> GroupRequests.offsetDelete("diff-od-busy", "diff-od-subscribed", 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.GROUP_SUBSCRIBED_TO_TOPIC)
                .run();
    }

    // ---- OffsetCommit by members

    @Test
    void offsetCommitOfAMemberWithAWrongGenerationOrAnUnknownId() {
        both(side -> {
            side.createTopic("diff-ocm-topic", 1);
            side.remember("diff-ocm", side.joinAndSyncClassic("diff-ocm", "diff-ocm-topic").memberId());
        });
        sequence("OffsetCommit of a member with a wrong generation", ApiKeys.OFFSET_COMMIT).from(2)
                .request((side, version) -> GroupRequests.memberCommit("diff-ocm", 5, side.remembered("diff-ocm"),
                        "diff-ocm-topic", 1L))
                .expect("/topics/0/partitions/0/errorCode", Errors.ILLEGAL_GENERATION)
                .run();
        sequence("OffsetCommit of an unknown member", ApiKeys.OFFSET_COMMIT).from(2)
                .request((side, version) -> GroupRequests.memberCommit("diff-ocm", 1, "no-such-member",
                        "diff-ocm-topic", 1L))
                .expect("/topics/0/partitions/0/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
    }
}
