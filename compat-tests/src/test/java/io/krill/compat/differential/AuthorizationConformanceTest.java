package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.MetadataRequest;
import io.krill.wire.message.RequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Unauthorized access and requests before authentication, on the secure pair ({@link SecureNodes}): what
 * {@code alice}, a user without any ACL, gets from Metadata, Produce, Fetch, ListOffsets, the group APIs,
 * CreateTopics, DescribeConfigs, InitProducerId and the ACL APIs; what the super user gets from the ACL
 * APIs; and SASL itself (an unknown mechanism, a wrong password, a request before logging in).
 */
@ExtendWith(SecureNodes.class)
class AuthorizationConformanceTest {
    private static final String TOPIC = "diff-auth-topic";
    private static final String READABLE = "diff-auth-readable";
    private static final String GROUP = "diff-auth-group";

    private static Sequence.Pair admin() {
        return SecureNodes.nodes().admin();
    }

    private static Sequence.Pair alice() {
        return SecureNodes.nodes().alice();
    }

    private static Sequence asAlice(String title, ApiKeys api) {
        return Sequence.of(title + " (alice, no ACLs)", api).on(alice());
    }

    @BeforeAll
    static void topicsWithRecords() {
        for (BrokerSide side : List.of(admin().kafka(), admin().krill())) {
            side.createTopic(TOPIC, 1);
            side.produce(TOPIC, 0, 2);
            side.createTopic(READABLE, 1);
        }
    }

    // ---- topics

    @Test
    void metadataOfATopicAliceMayNotDescribe() {
        asAlice("Metadata of an existing topic", ApiKeys.METADATA).from(1)
                .request((side, version) -> ClientRequests.metadata(version, TOPIC))
                .expect("/topics/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void metadataOfAnUnknownTopic() {
        asAlice("Metadata of an unknown topic", ApiKeys.METADATA).from(4)
                .request((side, version) -> ClientRequests.metadata(version, "diff-auth-unknown"))
                .expect("/topics/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void metadataOfAllTopics() {
        asAlice("Metadata of all topics", ApiKeys.METADATA).from(4)
                .request((side, version) -> new MetadataRequest().setTopics(null).setAllowAutoTopicCreation(false))
                .run();
    }

    @Test
    void produce() {
        asAlice("Produce", ApiKeys.PRODUCE)
                .request((side, version) -> ClientRequests.produce(TOPIC, side.topicId(TOPIC), 0, 1))
                .expect("/responses/0/partitionResponses/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void fetch() {
        asAlice("Fetch", ApiKeys.FETCH)
                .request((side, version) -> ClientRequests.fetch(TOPIC, side.topicId(TOPIC), 0, 0L, -1))
                .expect("/responses/0/partitions/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void listOffsets() {
        asAlice("ListOffsets", ApiKeys.LIST_OFFSETS)
                .request((side, version) -> ClientRequests.listLatestOffset(TOPIC, 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void offsetForLeaderEpoch() {
        asAlice("OffsetForLeaderEpoch", ApiKeys.OFFSET_FOR_LEADER_EPOCH)
                .request((side, version) -> ClientRequests.offsetForLeaderEpoch(TOPIC, 0, -1, 0))
                .expect("/topics/0/partitions/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void createAndDeleteTopics() {
        asAlice("CreateTopics", ApiKeys.CREATE_TOPICS)
                .request((side, version) -> ClientRequests.createTopics(ClientRequests.topic("diff-auth-new", 1, 1)))
                .expect("/topics/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
        asAlice("DeleteTopics", ApiKeys.DELETE_TOPICS)
                .request((side, version) -> ClientRequests.deleteTopics(TOPIC, version))
                .expect("/responses/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    @Test
    void describeConfigs() {
        asAlice("DescribeConfigs of a topic", ApiKeys.DESCRIBE_CONFIGS)
                .request((side, version) -> ClientRequests.describeTopicConfigs(TOPIC))
                .expect("/results/0/errorCode", Errors.TOPIC_AUTHORIZATION_FAILED)
                .run();
    }

    // ---- groups

    @Test
    void groupRequests() {
        asAlice("FindCoordinator of a group", ApiKeys.FIND_COORDINATOR)
                .request((side, version) -> ClientRequests.findGroupCoordinator(GROUP, version))
                .expect(version -> version >= 4 ? "/coordinators/0/errorCode" : "/errorCode",
                        Errors.GROUP_AUTHORIZATION_FAILED)
                .run();
        asAlice("JoinGroup", ApiKeys.JOIN_GROUP)
                .request((side, version) -> GroupRequests.join(GROUP, "", TOPIC))
                .expect("/errorCode", Errors.GROUP_AUTHORIZATION_FAILED)
                .run();
        asAlice("OffsetCommit", ApiKeys.OFFSET_COMMIT)
                .request((side, version) -> ClientRequests.offsetCommit(GROUP, TOPIC, 0, 1L))
                .run();
        asAlice("OffsetFetch", ApiKeys.OFFSET_FETCH)
                .request((side, version) -> ClientRequests.offsetFetch(GROUP, TOPIC, List.of(0), version))
                .run();
        asAlice("DescribeGroups", ApiKeys.DESCRIBE_GROUPS)
                .request((side, version) -> GroupRequests.describe(GROUP))
                .expect("/groups/0/errorCode", Errors.GROUP_AUTHORIZATION_FAILED)
                .run();
        asAlice("ListGroups", ApiKeys.LIST_GROUPS)
                .request((side, version) -> GroupRequests.list(List.of(), List.of(), version))
                .run();
    }

    // ---- producers, ACLs

    @Test
    void initProducerId() {
        asAlice("InitProducerId of a transactional id", ApiKeys.INIT_PRODUCER_ID)
                .request((side, version) -> TransactionRequests.init("diff-auth-txn"))
                .expect("/errorCode", Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
                .run();
        asAlice("InitProducerId of an idempotent producer", ApiKeys.INIT_PRODUCER_ID)
                .request((side, version) -> ClientRequests.idempotentInitProducerId())
                .run();
    }

    @Test
    void aclApis() {
        asAlice("DescribeAcls", ApiKeys.DESCRIBE_ACLS)
                .request((side, version) -> ClientRequests.describeAnyAcl())
                .expect("/errorCode", Errors.CLUSTER_AUTHORIZATION_FAILED)
                .run();
        asAlice("CreateAcls", ApiKeys.CREATE_ACLS)
                .request((side, version) -> ClientRequests.createTopicReadAcl(TOPIC, "User:alice"))
                .expect("/results/0/errorCode", Errors.CLUSTER_AUTHORIZATION_FAILED)
                .run();
        Sequence.of("CreateAcls of READ on a topic for alice (super user)", ApiKeys.CREATE_ACLS).on(admin())
                .request((side, version) -> ClientRequests.createTopicReadAcl(READABLE, "User:alice"))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
        both(side -> side.awaitAcls());
        Sequence.of("DescribeAcls (super user)", ApiKeys.DESCRIBE_ACLS).on(admin())
                .request((side, version) -> ClientRequests.describeAnyAcl())
                .expect("/errorCode", Errors.NONE)
                .run();
        asAlice("Metadata of the topic alice may READ", ApiKeys.METADATA).from(1)
                .request((side, version) -> ClientRequests.metadata(version, READABLE))
                .expect("/topics/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- SASL

    @Test
    void saslHandshakes() {
        Sequence.of("SaslHandshake PLAIN before authentication", ApiKeys.SASL_HANDSHAKE).on(SecureNodes.nodes().anonymous())
                .request((side, version) -> ClientRequests.saslHandshake("PLAIN"))
                .expect("/errorCode", Errors.NONE)
                .run();
        Sequence.of("SaslHandshake of a mechanism not enabled (SCRAM-SHA-256)", ApiKeys.SASL_HANDSHAKE)
                .on(SecureNodes.nodes().anonymous())
                .request((side, version) -> ClientRequests.saslHandshake("SCRAM-SHA-256"))
                .expect("/errorCode", Errors.UNSUPPORTED_SASL_MECHANISM)
                .run();
    }

    @Test
    void saslAuthenticateWithAWrongPassword() {
        Sequence.of("SaslAuthenticate PLAIN with a wrong password", ApiKeys.SASL_AUTHENTICATE)
                .on(SecureNodes.nodes().handshaken())
                .request((side, version) -> ClientRequests.saslPlain("alice", "not-alice-secret"))
                .expect("/errorCode", Errors.SASL_AUTHENTICATION_FAILED)
                .run();
    }

    @Test
    void aRequestBeforeAuthenticationClosesTheConnection() {
        ByteBuf buf = Unpooled.buffer();
        buf.writeInt(0);
        new RequestHeader().setRequestApiKey(ApiKeys.METADATA.id()).setRequestApiVersion((short) 12)
                .setCorrelationId(7).setClientId("krill-differential").write(buf, (short) 2);
        ClientRequests.metadata((short) 12, TOPIC).write(buf, (short) 12);
        buf.setInt(0, buf.readableBytes() - 4);
        byte[] frame = new byte[buf.readableBytes()];
        buf.readBytes(frame);
        buf.release();
        RawExchange.Outcome onKafka = SecureNodes.nodes().anonymous().kafka().sendRaw(frame, Duration.ofMillis(1500));
        RawExchange.Outcome onKrill = SecureNodes.nodes().anonymous().krill().sendRaw(frame, Duration.ofMillis(1500));
        String outcome = "kafka " + onKafka + ", krill " + onKrill;
        Coverage.INSTANCE.record("(raw frames)", (short) -1, "Metadata v12 before authentication",
                onKafka.kind() == onKrill.kind() ? "match" : "DIFFERENT: " + outcome);
        assertEquals(RawExchange.Kind.CLOSED, onKafka.kind(), "Kafka closes (the case tests what it claims): " + outcome);
        assertEquals(onKafka.kind(), onKrill.kind(), outcome);
    }

    private static void both(java.util.function.Consumer<BrokerSide> setUp) {
        setUp.accept(admin().kafka());
        setUp.accept(admin().krill());
    }
}
