package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The KIP-848 consumer group protocol as the 4.4 consumer ({@code group.protocol=consumer}) and the Admin
 * client speak it: ConsumerGroupHeartbeat (join, unknown group, unknown member id, fenced member epoch,
 * invalid regular expression, leave, leave of an unknown member or instance, failed first joins, a
 * subscribed topic created again, a new server assignor) and ConsumerGroupDescribe. From v1 the
 * consumer makes its member id itself (the same text to both sides); at v0 the coordinator makes it, and
 * each side's is named as in {@link ClassicGroupConformanceTest}.
 */
class ConsumerGroupConformanceTest extends DifferentialTest {

    private static String perVersion(String group, short version) {
        return group + "-v" + version;
    }

    /**
     * Waits out Kafka 4.4's group.consumer.assignment.interval.ms (1 s by default): Kafka computes a
     * group's next target assignment at most once an interval, so a heartbeat sooner after the last one
     * moves the group epoch but leaves the member at its epoch. Krill computes it at once (a known
     * difference); the sequences that compare what a new epoch assigns send their request after the interval.
     */
    private static void awaitAssignmentInterval() {
        try {
            Thread.sleep(1_100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String memberIdFor(String group, short version) {
        return version >= 1 ? BrokerSide.clientMemberId(group) : "";
    }

    @Test
    void consumerGroupHeartbeatJoinsANewMember() {
        both(side -> {
            side.createTopic("diff-cgh-topic", 2);
            side.awaitGroupCoordinator("diff-cgh-join");
        });
        sequence("ConsumerGroupHeartbeat of a new member (epoch 0)", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat(perVersion("diff-cgh-join", version),
                        memberIdFor(perVersion("diff-cgh-join", version), version), 0, List.of("diff-cgh-topic"), null))
                .learn((side, version, response) -> {
                    if (version == 0) {
                        side.nameMember(perVersion("diff-cgh-join", version),
                                ((ConsumerGroupHeartbeatResponseData) response.data()).memberId());
                    }
                })
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void consumerGroupHeartbeatOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-nogroup"));
        sequence("ConsumerGroupHeartbeat of a member of an unknown group (epoch 3)", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-nogroup",
                        BrokerSide.clientMemberId("diff-cgh-nogroup"), 3, List.of("diff-cgh-topic"), null))
                .expect("/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
    }

    @Test
    void consumerGroupHeartbeatOfAnUnknownMemberAndAFencedEpoch() {
        both(side -> {
            side.createTopic("diff-cgh-fence-topic", 1);
            side.awaitGroupCoordinator("diff-cgh-fence");
            BrokerSide.ConsumerMember member = side.joinConsumerGroup("diff-cgh-fence", "diff-cgh-fence-topic");
            side.remember("diff-cgh-fence", member.memberId());
        });
        sequence("ConsumerGroupHeartbeat of an unknown member id", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-fence",
                        BrokerSide.clientMemberId("no-such-member"), 1, List.of("diff-cgh-fence-topic"), null))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
        sequence("ConsumerGroupHeartbeat with a member epoch ahead of the member's", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-fence",
                        side.remembered("diff-cgh-fence"), 5, null, null))
                .expect("/errorCode", Errors.FENCED_MEMBER_EPOCH)
                .run();
    }

    @Test
    void consumerGroupHeartbeatWithAnInvalidRegularExpression() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-regex"));
        sequence("ConsumerGroupHeartbeat subscribing to the regular expression '['", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .from(1)
                .request((side, version) -> GroupRequests.consumerHeartbeat(perVersion("diff-cgh-regex", version),
                        BrokerSide.clientMemberId(perVersion("diff-cgh-regex", version)), 0, null, "["))
                .expect("/errorCode", Errors.INVALID_REGULAR_EXPRESSION)
                .run();
    }

    @Test
    void consumerGroupHeartbeatLeaves() {
        both(side -> {
            side.createTopic("diff-cgh-leave-topic", 1);
            side.awaitGroupCoordinator("diff-cgh-leave");
        });
        sequence("ConsumerGroupHeartbeat leaving the group (epoch -1)", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .setUp((side, version) -> side.remember(perVersion("diff-cgh-leave", version),
                        side.joinConsumerGroup(perVersion("diff-cgh-leave", version), "diff-cgh-leave-topic").memberId()))
                .request((side, version) -> GroupRequests.consumerHeartbeat(perVersion("diff-cgh-leave", version),
                        side.remembered(perVersion("diff-cgh-leave", version)), -1, null, null))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void consumerGroupDescribe() {
        both(side -> {
            side.createTopic("diff-cgd-topic", 2);
            side.awaitGroupCoordinator("diff-cgd-group");
            side.joinAndSyncClassic("diff-cgd-classic", "diff-cgd-topic");
        });
        sequence("ConsumerGroupDescribe of an unknown group", ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .request((side, version) -> GroupRequests.consumerDescribe("diff-cgd-unknown"))
                .expect("/groups/0/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
        sequence("ConsumerGroupDescribe of a classic group", ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .request((side, version) -> GroupRequests.consumerDescribe("diff-cgd-classic"))
                .expect("/groups/0/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
    }

    @Test
    void consumerGroupDescribeOfAGroupWithOneMember() {
        both(side -> {
            side.createTopic("diff-cgd-one-topic", 2);
            side.awaitGroupCoordinator("diff-cgd-one");
            side.joinConsumerGroup("diff-cgd-one", "diff-cgd-one-topic");
        });
        sequence("ConsumerGroupDescribe of a group with one member", ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .request((side, version) -> GroupRequests.consumerDescribe("diff-cgd-one"))
                .expect("/groups/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void consumerGroupHeartbeatLeavesOfAnUnknownMember() {
        both(side -> {
            side.createTopic("diff-cgh-leave-unknown-topic", 1);
            side.awaitGroupCoordinator("diff-cgh-leave-unknown");
            side.joinConsumerGroup("diff-cgh-leave-unknown", "diff-cgh-leave-unknown-topic");
        });
        sequence("ConsumerGroupHeartbeat leave (epoch -1) of an unknown member id", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-leave-unknown",
                        BrokerSide.clientMemberId("no-such-member"), -1, null, null))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
        sequence("ConsumerGroupHeartbeat temporary leave (epoch -2) of an unknown instance id",
                ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-leave-unknown",
                        BrokerSide.clientMemberId("no-such-member"), -2, null, null).setInstanceId("no-such-instance"))
                .expect("/errorCode", Errors.UNKNOWN_MEMBER_ID)
                .run();
        sequence("ConsumerGroupHeartbeat temporary leave (epoch -2) without an instance id",
                ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-leave-unknown",
                        BrokerSide.clientMemberId("no-such-member"), -2, null, null))
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
    }

    @Test
    void aFailedFirstJoinLeavesNoGroup() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-nojoin"));
        sequence("ConsumerGroupHeartbeat join (epoch 0) without a subscription", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-nojoin",
                        memberIdFor("diff-cgh-nojoin", version), 0, null, null))
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("ConsumerGroupHeartbeat join (epoch 0) with the invalid regular expression '['",
                ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .from(1)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-nojoin-regex",
                        BrokerSide.clientMemberId("diff-cgh-nojoin-regex"), 0, null, "["))
                .expect("/errorCode", Errors.INVALID_REGULAR_EXPRESSION)
                .run();
        sequence("ConsumerGroupDescribe of a group whose first join failed", ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .request((side, version) -> GroupRequests.consumerDescribe("diff-cgh-nojoin"))
                .expect("/groups/0/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
        sequence("ConsumerGroupDescribe of a group whose first join had an invalid regex",
                ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .request((side, version) -> GroupRequests.consumerDescribe("diff-cgh-nojoin-regex"))
                .expect("/groups/0/errorCode", Errors.GROUP_ID_NOT_FOUND)
                .run();
        sequence("ListGroups after failed first joins (no group listed)", ApiKeys.LIST_GROUPS)
                .request((side, version) -> GroupRequests.list(List.of(), List.of(), version))
                .onlyOwn("/groups", "groupId", "diff-cgh-nojoin")
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void consumerGroupHeartbeatAfterItsTopicIsCreatedAgain() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-recreate"));
        sequence("ConsumerGroupHeartbeat owning the partitions of a subscribed topic since deleted and created again",
                ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .setUp((side, version) -> joinThenRecreateTheTopic(side, perVersion("diff-cgh-recreate", version)))
                .request((side, version) -> {
                    String group = perVersion("diff-cgh-recreate", version);
                    return GroupRequests.consumerHeartbeatOwning(group, side.remembered(group),
                            Integer.parseInt(side.remembered(group + "/epoch")),
                            UUID.fromString(side.remembered(group + "/old topic id")), List.of(0, 1));
                })
                .expect("/errorCode", Errors.NONE)
                .check(answers -> assertEquals(2, answers.kafka().at("/memberEpoch").asInt(),
                        "Kafka keeps the member at its epoch while it owns the old id's partitions"))
                .run();
        sequence("ConsumerGroupHeartbeat once the old topic id's partitions are revoked", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> {
                    String group = perVersion("diff-cgh-recreate", version);
                    return GroupRequests.consumerHeartbeatOwning(group, side.remembered(group),
                            Integer.parseInt(side.remembered(group + "/epoch")), null, List.of());
                })
                .expect("/errorCode", Errors.NONE)
                .check(answers -> {
                    assertEquals(3, answers.kafka().at("/memberEpoch").asInt(), "Kafka moved the group epoch");
                    assertEquals("<topic id of " + perVersion("diff-cgh-recreate", answers.version()) + "-topic>",
                            answers.kafka().at("/assignment/topicPartitions/0/topicId").asText(),
                            "Kafka assigns the new topic id");
                })
                .run();
    }

    @Test
    void consumerGroupHeartbeatOwningNothingAfterItsTopicIsCreatedAgain() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-recreate-owning-nothing"));
        sequence("ConsumerGroupHeartbeat owning nothing once a subscribed topic is deleted and created again",
                ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .setUp((side, version) -> joinThenRecreateTheTopic(side,
                        perVersion("diff-cgh-recreate-owning-nothing", version)))
                .request((side, version) -> {
                    String group = perVersion("diff-cgh-recreate-owning-nothing", version);
                    return GroupRequests.consumerHeartbeatOwning(group, side.remembered(group),
                            Integer.parseInt(side.remembered(group + "/epoch")), null, List.of());
                })
                .expect("/errorCode", Errors.NONE)
                .check(answers -> assertEquals(3, answers.kafka().at("/memberEpoch").asInt(),
                        "Kafka moves a member that owns nothing to revoke to the new epoch at once"))
                .run();
    }

    /**
     * Joins a member to {@code group} subscribed to a new topic GROUP-topic (2 partitions, both assigned to
     * it), deletes the topic and creates it again, and waits out the assignment interval; remembers the
     * member id, its epoch and the topic's old id.
     */
    private static void joinThenRecreateTheTopic(BrokerSide side, String group) {
        String topic = group + "-topic";
        side.createTopic(topic, 2);
        side.awaitGroupCoordinator(group);
        BrokerSide.ConsumerMember member = side.joinConsumerGroup(group, topic);
        side.remember(group, member.memberId());
        side.remember(group + "/epoch", Integer.toString(member.memberEpoch()));
        side.remember(group + "/old topic id", side.topicId(topic).toString());
        side.recreateTopic(topic, 2);
        awaitAssignmentInterval();
    }

    @Test
    void consumerGroupHeartbeatChangingTheServerAssignor() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-assignor"));
        sequence("ConsumerGroupHeartbeat choosing the range assignor", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .setUp((side, version) -> {
                    String group = perVersion("diff-cgh-assignor", version);
                    side.createTopic(group + "-topic", 2);
                    side.awaitGroupCoordinator(group);
                    BrokerSide.ConsumerMember member = side.joinConsumerGroup(group, group + "-topic");
                    side.remember(group, member.memberId());
                    side.remember(group + "/epoch", Integer.toString(member.memberEpoch()));
                    awaitAssignmentInterval();
                })
                .request((side, version) -> {
                    String group = perVersion("diff-cgh-assignor", version);
                    return GroupRequests.consumerHeartbeat(group, side.remembered(group),
                            Integer.parseInt(side.remembered(group + "/epoch")), null, null).setServerAssignor("range");
                })
                .expect("/errorCode", Errors.NONE)
                .check(answers -> assertEquals(3, answers.kafka().at("/memberEpoch").asInt(),
                        "Kafka moved the group epoch"))
                .run();
        short highest = highest(ApiKeys.CONSUMER_GROUP_HEARTBEAT);
        sequence("ConsumerGroupDescribe of a group whose member chose the range assignor",
                ApiKeys.CONSUMER_GROUP_DESCRIBE)
                .request((side, version) -> GroupRequests.consumerDescribe(perVersion("diff-cgh-assignor", highest)))
                .expect("/groups/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void consumerGroupHeartbeatMalformedRequestsOfAnUnknownGroup() {
        both(side -> side.awaitGroupCoordinator("diff-cgh-malformed"));
        String member = BrokerSide.clientMemberId("diff-cgh-malformed");
        sequence("ConsumerGroupHeartbeat with member epoch -3", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-malformed", member, -3, null, null))
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("ConsumerGroupHeartbeat join without its rebalance timeout", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-malformed",
                        memberIdFor("diff-cgh-malformed", version), 0, List.of("diff-cgh-topic"), null)
                        .setRebalanceTimeoutMs(-1))
                .expect("/errorCode", Errors.INVALID_REQUEST)
                .run();
        sequence("ConsumerGroupHeartbeat naming an unsupported server assignor", ApiKeys.CONSUMER_GROUP_HEARTBEAT)
                .request((side, version) -> GroupRequests.consumerHeartbeat("diff-cgh-malformed", member, 3, null, null)
                        .setServerAssignor("sticky"))
                .expect("/errorCode", Errors.UNSUPPORTED_ASSIGNOR)
                .run();
    }
}
