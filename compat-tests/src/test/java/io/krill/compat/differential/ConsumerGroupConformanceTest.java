package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The KIP-848 consumer group protocol as the 4.4 consumer ({@code group.protocol=consumer}) and the Admin
 * client speak it: ConsumerGroupHeartbeat (join, unknown group, unknown member id, fenced member epoch,
 * invalid regular expression, leave) and ConsumerGroupDescribe. From v1 the consumer makes its member id itself (the same
 * text to both sides); at v0 the coordinator makes it, and each side's is named as in
 * {@link ClassicGroupConformanceTest}.
 */
class ConsumerGroupConformanceTest extends DifferentialTest {

    private static String perVersion(String group, short version) {
        return group + "-v" + version;
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
}
