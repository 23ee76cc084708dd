package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.FreePorts;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console of a broker whose only listener is SASL_PLAINTEXT (PLAIN and SCRAM-SHA-256) with the ACL
 * authorizer: HTTP Basic is required and checked against the listener's JAAS users and the stored SCRAM
 * credentials (401 otherwise), and a user sees only what
 * its ACLs allow (DESCRIBE on one topic: that topic listed, the other not, and no records without READ),
 * while the super user sees everything and /metrics stays open.
 */
class ConsoleApiSecurityTest {
    private static final int HTTP_PORT = FreePorts.next();
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" "
            + "user_alice=\"alice-secret\";";

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
            .with("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT")
            .with("inter.broker.listener.name", "SASL_PLAINTEXT")
            .with("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256")
            .with("sasl.mechanism.inter.broker.protocol", "PLAIN")
            .with("sasl.jaas.config", JAAS)
            .with("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .with("super.users", "User:admin")
            .with("offsets.topic.replication.factor", "1")
            .with("krill.http.port", Integer.toString(HTTP_PORT));

    private static final ConsoleHttp ANONYMOUS = new ConsoleHttp(HTTP_PORT);

    @BeforeAll
    static void topicsAndAcls() throws Exception {
        Properties admin = new Properties();
        admin.put("bootstrap.servers", KRILL.bootstrapServers());
        admin.put("security.protocol", "SASL_PLAINTEXT");
        admin.put("sasl.mechanism", "PLAIN");
        admin.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\";");
        try (Admin client = Admin.create(admin)) {
            client.createTopics(List.of(new NewTopic("sec-visible", 1, (short) 1), new NewTopic("sec-hidden", 1,
                    (short) 1))).all().get(30, TimeUnit.SECONDS);
            client.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "sec-visible",
                    PatternType.LITERAL), new AccessControlEntry("User:alice", "*", AclOperation.DESCRIBE,
                    AclPermissionType.ALLOW)))).all().get(30, TimeUnit.SECONDS);
            client.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("carol",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "carol-secret")))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void credentialsAreRequiredAndChecked() throws Exception {
        ConsoleHttp.Answer none = ANONYMOUS.get("/console/api/topics");
        assertEquals(401, none.status());
        assertTrue(none.response().headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic realm=\"krill\""));
        assertEquals(401, ANONYMOUS.get("/console/").status());
        assertEquals(401, ANONYMOUS.as("alice", "wrong").get("/console/api/topics").status());
        assertEquals(401, ANONYMOUS.as("mallory", "alice-secret").get("/console/api/topics").status());
        JsonNode me = ANONYMOUS.as("alice", "alice-secret").json("/console/api/me");
        assertEquals("User:alice", me.path("principal").asText());
        assertTrue(me.path("authenticated").asBoolean());
        assertEquals(200, ANONYMOUS.get("/metrics").status());
        assertEquals(200, ANONYMOUS.get("/health").status());
    }

    @Test
    void scramUsersAreCheckedAgainstTheirStoredCredentials() throws Exception {
        for (int i = 0; i < 2; i++) { // the second time from the remembered check
            JsonNode me = ANONYMOUS.as("carol", "carol-secret").json("/console/api/me");
            assertEquals("User:carol", me.path("principal").asText());
        }
        assertEquals(401, ANONYMOUS.as("carol", "carol-wrong").get("/console/api/me").status());
        assertEquals(401, ANONYMOUS.as("carol", "alice-secret").get("/console/api/me").status());
        ConsoleHttp.Answer noAcl = ANONYMOUS.as("carol", "carol-secret").get("/console/api/topics");
        assertEquals(200, noAcl.status());
        assertEquals(0, noAcl.json().path("topics").size(), "no ACL: no topic");
    }

    @Test
    void aUserSeesOnlyWhatItsAclsAllow() throws Exception {
        ConsoleHttp alice = ANONYMOUS.as("alice", "alice-secret");
        JsonNode topics = alice.json("/console/api/topics").path("topics");
        assertNotNull(ConsoleHttp.find(topics, "name", "sec-visible"));
        assertNull(ConsoleHttp.find(topics, "name", "sec-hidden"));
        assertEquals(1, alice.json("/console/api/cluster").path("topics").asInt());
        assertEquals(0, alice.json("/console/api/cluster").path("brokers").size());

        ConsoleHttp.Answer hidden = alice.get("/console/api/topics/sec-hidden/records?partition=0");
        assertEquals(403, hidden.status());
        assertEquals("TOPIC_AUTHORIZATION_FAILED", hidden.json().path("error").asText());
        assertEquals(403, alice.get("/console/api/topics/sec-hidden").status());
        assertEquals(403, alice.get("/console/api/topics/sec-visible/records?partition=0").status(),
                "DESCRIBE without READ shows no records");
        assertEquals(200, alice.get("/console/api/topics/sec-visible").status());

        ConsoleHttp admin = ANONYMOUS.as("admin", "admin-secret");
        JsonNode all = admin.json("/console/api/topics").path("topics");
        assertNotNull(ConsoleHttp.find(all, "name", "sec-hidden"));
        assertEquals(200, admin.get("/console/api/topics/sec-hidden/records?partition=0").status());
        assertEquals(1, admin.json("/console/api/cluster").path("brokers").size());
    }
}
