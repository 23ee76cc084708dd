package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.FreePorts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's actions under the ACL authorizer (SASL/PLAIN, {@code krill.console.read.only=false}): the
 * console sends as the inter-broker principal, so it must refuse what Kafka would refuse the viewer. Alice,
 * with DESCRIBE only, may neither create, delete nor reset (403 with Kafka's TOPIC_/GROUP_AUTHORIZATION_FAILED,
 * nothing changed); Bob, with CREATE on the cluster, DELETE and READ on the topics and READ and DELETE on
 * the group, may.
 */
class ConsoleActionsSecurityTest {
    private static final int HTTP_PORT = FreePorts.next();
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" "
            + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";
    private static final String TOPIC = "secact-topic";
    private static final String GROUP = "secact-group";

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
            .with("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT")
            .with("inter.broker.listener.name", "SASL_PLAINTEXT")
            .with("sasl.enabled.mechanisms", "PLAIN")
            .with("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .with("sasl.jaas.config", JAAS)
            .with("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .with("super.users", "User:admin")
            .with("offsets.topic.replication.factor", "1")
            .with("krill.console.read.only", "false")
            .with("krill.http.port", Integer.toString(HTTP_PORT));

    private static final ConsoleHttp ALICE = new ConsoleHttp(HTTP_PORT).as("alice", "alice-secret");
    private static final ConsoleHttp BOB = new ConsoleHttp(HTTP_PORT).as("bob", "bob-secret");
    private static Admin admin;

    @BeforeAll
    static void topicGroupAndAcls() throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", KRILL.bootstrapServers());
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\";");
        admin = Admin.create(props);
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        admin.alterConsumerGroupOffsets(GROUP, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0)))
                .all().get(30, TimeUnit.SECONDS);
        admin.createAcls(List.of(
                acl(ResourceType.TOPIC, "secact", PatternType.PREFIXED, "User:alice", AclOperation.DESCRIBE),
                acl(ResourceType.GROUP, GROUP, PatternType.LITERAL, "User:alice", AclOperation.DESCRIBE),
                acl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:bob", AclOperation.CREATE),
                acl(ResourceType.TOPIC, "secact", PatternType.PREFIXED, "User:bob", AclOperation.DELETE),
                acl(ResourceType.TOPIC, "secact", PatternType.PREFIXED, "User:bob", AclOperation.READ),
                acl(ResourceType.GROUP, GROUP, PatternType.LITERAL, "User:bob", AclOperation.READ),
                acl(ResourceType.GROUP, GROUP, PatternType.LITERAL, "User:bob", AclOperation.DELETE)))
                .all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void closeAdmin() {
        if (admin != null) {
            admin.close();
        }
    }

    private static AclBinding acl(ResourceType type, String name, PatternType pattern, String principal,
                                  AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    @Test
    void describeOnlyMayChangeNothing() throws Exception {
        refused(ALICE.post("/console/api/topics", "{\"name\":\"secact-alice\"}"), "TOPIC_AUTHORIZATION_FAILED");
        refused(ALICE.delete("/console/api/topics/" + TOPIC), "TOPIC_AUTHORIZATION_FAILED");
        refused(ALICE.post("/console/api/topics/" + TOPIC + "/partitions", "{\"count\":2}"), "TOPIC_AUTHORIZATION_FAILED");
        refused(ALICE.post("/console/api/topics/" + TOPIC + "/configs", "{\"set\":{\"retention.ms\":\"1\"}}"),
                "TOPIC_AUTHORIZATION_FAILED");
        refused(ALICE.post("/console/api/topics/" + TOPIC + "/delete-records",
                "{\"partitions\":[{\"partition\":0,\"offset\":-1}]}"), "TOPIC_AUTHORIZATION_FAILED");
        refused(ALICE.post("/console/api/groups/" + GROUP + "/offsets/reset", "{\"strategy\":\"latest\"}"),
                "GROUP_AUTHORIZATION_FAILED");
        refused(ALICE.delete("/console/api/groups/" + GROUP), "GROUP_AUTHORIZATION_FAILED");
        refused(ALICE.delete("/console/api/groups/" + GROUP + "/offsets/" + TOPIC), "GROUP_AUTHORIZATION_FAILED");
        assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("secact-alice"));
        assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(TOPIC));
        assertEquals(1, admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                .partitions().size());
    }

    @Test
    void theRightAclsMayActAndASuperUserMayDoAnything() throws Exception {
        assertEquals(201, BOB.post("/console/api/topics", "{\"name\":\"secact-bob\"}").status());
        assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("secact-bob"));
        refused(BOB.post("/console/api/topics/secact-bob/partitions", "{\"count\":2}"), "TOPIC_AUTHORIZATION_FAILED");
        ConsoleHttp.Answer reset = BOB.post("/console/api/groups/" + GROUP + "/offsets/reset",
                "{\"strategy\":\"latest\",\"dryRun\":true}");
        assertEquals(200, reset.status(), reset.body());
        assertEquals(200, BOB.delete("/console/api/topics/secact-bob").status());
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("secact-bob"));
        ConsoleHttp superUser = new ConsoleHttp(HTTP_PORT).as("admin", "admin-secret");
        assertEquals(200, superUser.post("/console/api/topics/" + TOPIC + "/partitions", "{\"count\":2}").status());
    }

    private static void refused(ConsoleHttp.Answer answer, String error) {
        assertEquals(403, answer.status(), answer.body());
        assertEquals(error, answer.json().path("error").asText(), answer.body());
    }
}
