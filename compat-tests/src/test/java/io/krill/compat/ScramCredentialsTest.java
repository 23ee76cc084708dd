package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.broker.security.sasl.ScramClientMechanism;
import io.krill.broker.security.sasl.ScramServerMechanism;
import io.krill.broker.security.scram.ScramCredentials;
import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.common.errors.DuplicateResourceException;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM credential management with the stock tools: kafka-configs ({@code ConfigCommand} 4.4) adds and deletes
 * SCRAM-SHA-256/512 credentials of a user (AlterUserScramCredentials), the Java Admin describes and alters them
 * with Kafka's errors, and a credential made by the Java client (which salts the password itself) authenticates
 * with Krill's SCRAM mechanisms.
 */
class ScramCredentialsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    @TempDir
    Path tmp;

    private Result configs(String... extra) {
        return ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), extra);
    }

    private static Admin admin() {
        return Admin.create(Clients.base(KRILL.bootstrapServers()));
    }

    private static Map<ScramMechanism, Integer> iterations(UserScramCredentialsDescription description) {
        Map<ScramMechanism, Integer> out = new java.util.EnumMap<>(ScramMechanism.class);
        for (ScramCredentialInfo info : description.credentialInfos()) {
            out.put(info.mechanism(), info.iterations());
        }
        return out;
    }

    @Test
    void kafkaConfigsAddsAndDeletesScramCredentials() throws Exception {
        configs("--alter", "--add-config",
                "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]",
                "--entity-type", "users", "--entity-name", "alice").assertSuccess();
        try (Admin admin = admin()) {
            UserScramCredentialsDescription alice = admin.describeUserScramCredentials(List.of("alice"))
                    .description("alice").get(60, TimeUnit.SECONDS);
            assertEquals(Map.of(ScramMechanism.SCRAM_SHA_256, 8192, ScramMechanism.SCRAM_SHA_512, 4096),
                    iterations(alice));
        }
        // the stored form is Kafka's ZooKeeper one, and it authenticates with the password
        Map<String, String> stored = KRILL.broker().metadata().image().entityConfigs("users/alice");
        assertTrue(stored.get("SCRAM-SHA-256").matches("salt=\\S+,stored_key=\\S+,server_key=\\S+,iterations=8192"),
                stored.keySet().toString());
        assertAuthenticates("alice", "alice-secret", io.krill.broker.security.scram.ScramMechanism.SCRAM_SHA_256);
        assertAuthenticates("alice", "alice-secret", io.krill.broker.security.scram.ScramMechanism.SCRAM_SHA_512);

        configs("--alter", "--delete-config", "SCRAM-SHA-512", "--entity-type", "users", "--entity-name", "alice")
                .assertSuccess();
        try (Admin admin = admin()) {
            assertEquals(Map.of(ScramMechanism.SCRAM_SHA_256, 8192),
                    iterations(admin.describeUserScramCredentials(List.of("alice")).description("alice").get(60, TimeUnit.SECONDS)));
        }
        // deleting it again: the broker's RESOURCE_NOT_FOUND reaches the tool
        Result again = configs("--alter", "--delete-config", "SCRAM-SHA-512", "--entity-type", "users",
                "--entity-name", "alice");
        assertFalse(again.exitCode() == 0 && again.thrown() == null, again.describe());
        assertTrue(again.describe().contains("does not exist"), again.describe());
    }

    @Test
    void kafkaConfigsDescribesUsersAndKeepsTheirQuotas() throws Exception {
        // kafka-configs --describe --entity-type users asks for quotas first (DescribeClientQuotas)
        KRILL.apis().assertServes("kafka-configs on users", ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS);
        configs("--alter", "--add-config", "producer_byte_rate=1048576", "--entity-type", "users",
                "--entity-name", "bob").assertSuccess();
        configs("--alter", "--add-config", "SCRAM-SHA-512=[iterations=4096,password=bob-secret]",
                "--entity-type", "users", "--entity-name", "bob").assertSuccess();
        Result described = configs("--describe", "--entity-type", "users").assertSuccess();
        assertTrue(described.out().contains("SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-512=iterations=4096"),
                described.describe());
        Result one = configs("--describe", "--entity-type", "users", "--entity-name", "bob").assertSuccess();
        assertTrue(one.out().contains("SCRAM-SHA-512=iterations=4096"), one.describe());
        assertTrue(one.out().contains("producer_byte_rate=1048576"), "the quota is kept:\n" + one.describe());
        // and removing the quota keeps the credential
        configs("--alter", "--delete-config", "producer_byte_rate", "--entity-type", "users", "--entity-name", "bob")
                .assertSuccess();
        assertAuthenticates("bob", "bob-secret", io.krill.broker.security.scram.ScramMechanism.SCRAM_SHA_512);
    }

    @Test
    void adminAltersAndDescribesWithKafkasErrors() throws Exception {
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                            "carol-secret"),
                    new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 16384),
                            "dave-secret"))).all().get(60, TimeUnit.SECONDS);
            Map<String, UserScramCredentialsDescription> all = admin.describeUserScramCredentials().all().get(60, TimeUnit.SECONDS);
            assertEquals(Map.of(ScramMechanism.SCRAM_SHA_512, 4096), iterations(all.get("carol")));
            assertEquals(Map.of(ScramMechanism.SCRAM_SHA_256, 16384), iterations(all.get("dave")));

            // the Java client salted the password; the broker kept only derived keys that prove it
            assertAuthenticates("carol", "carol-secret", io.krill.broker.security.scram.ScramMechanism.SCRAM_SHA_512);
            assertRefused("carol", "wrong-secret", io.krill.broker.security.scram.ScramMechanism.SCRAM_SHA_512);
            assertRefused("carol", "carol-secret", io.krill.broker.security.scram.ScramMechanism.SCRAM_SHA_256);

            ExecutionException tooFew = assertThrows(ExecutionException.class, () -> admin.alterUserScramCredentials(
                    List.of(new UserScramCredentialUpsertion("erin",
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1024), "pw"))).all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(UnacceptableCredentialException.class, tooFew.getCause());
            ExecutionException tooMany = assertThrows(ExecutionException.class, () -> admin.alterUserScramCredentials(
                    List.of(new UserScramCredentialUpsertion("erin",
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 20000), "pw"))).all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(UnacceptableCredentialException.class, tooMany.getCause());
            ExecutionException twice = assertThrows(ExecutionException.class, () -> admin.alterUserScramCredentials(
                    List.of(new UserScramCredentialUpsertion("erin",
                                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "pw"),
                            new UserScramCredentialDeletion("erin", ScramMechanism.SCRAM_SHA_256))).all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(DuplicateResourceException.class, twice.getCause());
            ExecutionException missing = assertThrows(ExecutionException.class, () -> admin.alterUserScramCredentials(
                    List.of(new UserScramCredentialDeletion("erin", ScramMechanism.SCRAM_SHA_512))).all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(ResourceNotFoundException.class, missing.getCause());
            assertTrue(KRILL.broker().metadata().image().entityConfigs("users/erin").isEmpty());

            ExecutionException unknown = assertThrows(ExecutionException.class,
                    () -> admin.describeUserScramCredentials(List.of("nobody")).description("nobody").get(60, TimeUnit.SECONDS));
            assertInstanceOf(ResourceNotFoundException.class, unknown.getCause());
            assertTrue(unknown.getCause().getMessage().contains("Attempt to describe a user credential that does not exist"),
                    unknown.getCause().getMessage());
            ExecutionException duplicate = assertThrows(ExecutionException.class,
                    () -> admin.describeUserScramCredentials(List.of("carol", "carol")).all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(DuplicateResourceException.class, duplicate.getCause());

            admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("dave",
                    ScramMechanism.SCRAM_SHA_256))).all().get(60, TimeUnit.SECONDS);
            assertNull(admin.describeUserScramCredentials().all().get(60, TimeUnit.SECONDS).get("dave"));
        }
    }

    private static boolean exchange(String user, String password, io.krill.broker.security.scram.ScramMechanism m) {
        ScramCredentials credentials = new ScramCredentials(() -> KRILL.broker().metadata().image());
        ScramServerMechanism server = new ScramServerMechanism(m, u -> credentials.lookup(u, m));
        ScramClientMechanism client = new ScramClientMechanism(m, user, password);
        try {
            byte[] last = server.evaluateResponse(client.evaluateChallenge(server.evaluateResponse(
                    client.initialResponse())));
            assertNull(client.evaluateChallenge(last));
            return server.isComplete() && client.isComplete() && server.principal().name().equals(user);
        } catch (SaslAuthenticationException e) {
            return false;
        }
    }

    private static void assertAuthenticates(String user, String password, io.krill.broker.security.scram.ScramMechanism m) {
        assertTrue(exchange(user, password, m), user + " with " + m);
    }

    private static void assertRefused(String user, String password, io.krill.broker.security.scram.ScramMechanism m) {
        assertFalse(exchange(user, password, m), user + " with " + m);
    }
}
