package io.krill.broker.security.authorizer;

import static io.krill.broker.security.authorizer.AclOperation.ALL;
import static io.krill.broker.security.authorizer.AclOperation.ALTER;
import static io.krill.broker.security.authorizer.AclOperation.ALTER_CONFIGS;
import static io.krill.broker.security.authorizer.AclOperation.DELETE;
import static io.krill.broker.security.authorizer.AclOperation.DESCRIBE;
import static io.krill.broker.security.authorizer.AclOperation.DESCRIBE_CONFIGS;
import static io.krill.broker.security.authorizer.AclOperation.READ;
import static io.krill.broker.security.authorizer.AclOperation.WRITE;
import static io.krill.broker.security.authorizer.AclPermissionType.ALLOW;
import static io.krill.broker.security.authorizer.AclPermissionType.DENY;
import static io.krill.broker.security.authorizer.PatternType.LITERAL;
import static io.krill.broker.security.authorizer.PatternType.PREFIXED;
import static io.krill.broker.security.authorizer.ResourceType.GROUP;
import static io.krill.broker.security.authorizer.ResourceType.TOPIC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.local.LocalMetadataStore;
import io.krill.controller.metadata.BrokerInfo;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The matching rules of Kafka's StandardAuthorizer, over ACLs stored in a (local) metadata store. */
class AclAuthorizerTest {
    private static final KafkaPrincipal ALICE = KafkaPrincipal.user("alice");
    private static final KafkaPrincipal BOB = KafkaPrincipal.user("bob");
    private static final KafkaPrincipal ADMIN = KafkaPrincipal.user("admin");

    @TempDir
    Path dir;
    private LocalMetadataStore metadata;
    private InetAddress here;
    private InetAddress elsewhere;

    @BeforeEach
    void open() throws Exception {
        metadata = new LocalMetadataStore(dir, new BrokerInfo(1, null,
                Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "127.0.0.1", 9092))), null);
        here = InetAddress.getByName("10.0.0.1");
        elsewhere = InetAddress.getByName("10.0.0.2");
    }

    @AfterEach
    void close() {
        metadata.close();
    }

    /** Creates through the authorizer; the local store's futures are complete when returned. */
    private static void create(AclAuthorizer authorizer, List<AclBinding> bindings) {
        List<CompletableFuture<Void>> created = authorizer.createAcls(bindings);
        assertEquals(bindings.size(), created.size(), "one future per binding");
        created.forEach(CompletableFuture::join);
    }

    private AclAuthorizer authorizer(boolean allowEveryone) {
        return new AclAuthorizer(metadata, List.of(ADMIN), allowEveryone);
    }

    private static AclBinding acl(ResourceType type, String name, PatternType pattern, String principal, String host,
                                  AclOperation operation, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, host, operation, permission));
    }

    private static AclBinding allow(ResourceType type, String name, PatternType pattern, String principal,
                                    AclOperation operation) {
        return acl(type, name, pattern, principal, "*", operation, ALLOW);
    }

    @Test
    void denyWinsOverAllowWhereverItComesFrom() {
        AclAuthorizer authorizer = authorizer(false);
        create(authorizer, List.of(allow(TOPIC, "orders", LITERAL, "User:alice", READ),
                allow(TOPIC, "*", LITERAL, "User:alice", READ),
                acl(TOPIC, "orders-", PREFIXED, "User:alice", "*", READ, DENY),
                acl(TOPIC, "payments", LITERAL, "User:*", "*", ALL, DENY),
                allow(TOPIC, "payments", LITERAL, "User:alice", ALL)));
        assertTrue(authorizer.authorize(ALICE, here, READ, TOPIC, "orders"));
        assertFalse(authorizer.authorize(ALICE, here, READ, TOPIC, "orders-eu"), "prefixed DENY beats literal ALLOW on *");
        assertFalse(authorizer.authorize(ALICE, here, WRITE, TOPIC, "payments"), "DENY ALL for everyone");
        assertFalse(authorizer.authorize(ALICE, here, DESCRIBE, TOPIC, "payments"));
    }

    @Test
    void allCoversEveryOperationAndSomeOperationsImplyDescribe() {
        AclAuthorizer authorizer = authorizer(false);
        create(authorizer, List.of(allow(TOPIC, "all", LITERAL, "User:alice", ALL),
                allow(TOPIC, "read", LITERAL, "User:alice", READ),
                allow(TOPIC, "write", LITERAL, "User:alice", WRITE),
                allow(TOPIC, "delete", LITERAL, "User:alice", DELETE),
                allow(TOPIC, "alter", LITERAL, "User:alice", ALTER),
                allow(TOPIC, "configs", LITERAL, "User:alice", ALTER_CONFIGS)));
        for (AclOperation operation : List.of(READ, WRITE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS)) {
            assertTrue(authorizer.authorize(ALICE, here, operation, TOPIC, "all"), operation.name());
        }
        for (String implying : List.of("read", "write", "delete", "alter")) {
            assertTrue(authorizer.authorize(ALICE, here, DESCRIBE, TOPIC, implying), implying + " implies DESCRIBE");
        }
        assertFalse(authorizer.authorize(ALICE, here, WRITE, TOPIC, "read"));
        assertFalse(authorizer.authorize(ALICE, here, READ, TOPIC, "write"));
        assertTrue(authorizer.authorize(ALICE, here, DESCRIBE_CONFIGS, TOPIC, "configs"));
        assertFalse(authorizer.authorize(ALICE, here, DESCRIBE, TOPIC, "configs"));
        assertFalse(authorizer.authorize(ALICE, here, DESCRIBE_CONFIGS, TOPIC, "read"));
    }

    @Test
    void prefixedAndWildcardPatternsPrincipalsAndHosts() {
        AclAuthorizer authorizer = authorizer(false);
        create(authorizer, List.of(allow(TOPIC, "orders-", PREFIXED, "User:alice", READ),
                allow(GROUP, "*", LITERAL, "User:*", READ),
                acl(TOPIC, "local", LITERAL, "User:bob", "10.0.0.1", WRITE, ALLOW),
                acl(TOPIC, "named-host", LITERAL, "User:bob", "localhost", WRITE, ALLOW)));
        assertTrue(authorizer.authorize(ALICE, here, READ, TOPIC, "orders-eu"));
        assertTrue(authorizer.authorize(ALICE, here, READ, TOPIC, "orders-"));
        assertFalse(authorizer.authorize(ALICE, here, READ, TOPIC, "orders"));
        assertFalse(authorizer.authorize(BOB, here, READ, TOPIC, "orders-eu"), "another principal");
        assertTrue(authorizer.authorize(BOB, here, READ, GROUP, "any-group"), "User:* on literal *");
        assertTrue(authorizer.authorize(new KafkaPrincipal("Group", "ops"), here, READ, GROUP, "g"),
                "User:* matches any principal type, as Kafka's wildcard does");
        assertTrue(authorizer.authorize(BOB, here, WRITE, TOPIC, "local"));
        assertFalse(authorizer.authorize(BOB, elsewhere, WRITE, TOPIC, "local"), "another host");
        assertFalse(authorizer.authorize(BOB, null, WRITE, TOPIC, "local"), "no address");
        assertFalse(authorizer.authorize(BOB, here, WRITE, TOPIC, "named-host"), "host names never match");
    }

    @Test
    void superUsersBypassEvenDenies() {
        AclAuthorizer authorizer = authorizer(false);
        create(authorizer, List.of(acl(TOPIC, "*", LITERAL, "User:*", "*", ALL, DENY)));
        assertTrue(authorizer.authorize(ADMIN, here, WRITE, TOPIC, "t"));
        assertFalse(authorizer.authorize(ALICE, here, WRITE, TOPIC, "t"));
        assertTrue(authorizer.authorizeAny(ADMIN, here, WRITE, TOPIC));
    }

    @Test
    void allowEveryoneOnlyWhereNoAclAppliesToTheResource() {
        AclAuthorizer open = authorizer(true);
        AclAuthorizer closed = authorizer(false);
        assertTrue(open.authorize(ALICE, here, WRITE, TOPIC, "free"));
        assertFalse(closed.authorize(ALICE, here, WRITE, TOPIC, "free"));
        create(open, List.of(allow(TOPIC, "guarded", LITERAL, "User:bob", READ)));
        assertFalse(open.authorize(ALICE, here, WRITE, TOPIC, "guarded"), "an ACL for someone else applies");
        assertTrue(open.authorize(BOB, here, READ, TOPIC, "guarded"));
        assertTrue(open.authorize(ALICE, here, WRITE, TOPIC, "free"));
    }

    @Test
    void anyResourceOfATypeForIdempotentWrites() {
        AclAuthorizer authorizer = authorizer(false);
        assertFalse(authorizer.authorizeAny(ALICE, here, WRITE, TOPIC));
        create(authorizer, List.of(allow(TOPIC, "logs-", PREFIXED, "User:alice", WRITE)));
        assertTrue(authorizer.authorizeAny(ALICE, here, WRITE, TOPIC));
        assertFalse(authorizer.authorizeAny(BOB, here, WRITE, TOPIC));
        create(authorizer, List.of(acl(TOPIC, "log", PREFIXED, "User:alice", "*", WRITE, DENY)));
        assertFalse(authorizer.authorizeAny(ALICE, here, WRITE, TOPIC), "a DENY on a shorter prefix cancels it");
        assertTrue(authorizer(true).authorizeAny(BOB, here, WRITE, TOPIC), "no ACL names a fresh topic");
    }

    @Test
    void storedUnderOneEntityPerPatternAndDescribedAndDeletedByFilters() {
        AclAuthorizer authorizer = authorizer(false);
        String odd = "a/b|c d%";
        create(authorizer, List.of(allow(TOPIC, odd, LITERAL, "User:CN=x, O=y|z", READ),
                acl(TOPIC, odd, LITERAL, "User:alice", "10.0.0.1", WRITE, DENY),
                allow(TOPIC, "a", PREFIXED, "User:alice", READ)));
        assertEquals(2, metadata.image().entityConfigs("acls/TOPIC/LITERAL/" + odd).size());
        assertTrue(authorizer.authorize(new KafkaPrincipal("User", "CN=x, O=y|z"), here, READ, TOPIC, odd));

        List<AclBinding> all = authorizer.acls(new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.ANY, null, PatternType.ANY),
                new AccessControlEntryFilter(null, null, AclOperation.ANY, AclPermissionType.ANY)));
        assertEquals(3, all.size());
        AclBindingFilter matchingOdd = new AclBindingFilter(new ResourcePatternFilter(TOPIC, odd, PatternType.MATCH),
                new AccessControlEntryFilter(null, null, AclOperation.ANY, AclPermissionType.ANY));
        assertEquals(3, authorizer.acls(matchingOdd).size(), "MATCH includes the prefix 'a'");
        AclBindingFilter literalOdd = new AclBindingFilter(new ResourcePatternFilter(TOPIC, odd, LITERAL),
                new AccessControlEntryFilter(null, null, AclOperation.ANY, DENY));
        List<List<AclBinding>> deleted = authorizer.deleteAcls(List.of(literalOdd)).stream().map(CompletableFuture::join).toList();
        assertEquals(1, deleted.get(0).size());
        assertEquals(WRITE, deleted.get(0).get(0).entry().operation());
        assertEquals(2, authorizer.acls(matchingOdd).size());

        // Another authorizer on the same store (another broker) builds the same index from the image.
        assertTrue(authorizer(false).authorize(ALICE, here, READ, TOPIC, "abc"));
    }

    @Test
    void authorizerClassNameSelectsKafkasNamesAndRefusesPlugIns() {
        for (String name : Authorization.AUTHORIZER_NAMES) {
            assertTrue(Authorization.fromConfig(config(name, "User:admin;User:CN=broker,O=krill"), metadata).enabled(),
                    name);
        }
        assertFalse(Authorization.fromConfig(config("", ""), metadata).enabled());
        ConfigException refused = assertThrows(ConfigException.class,
                () -> Authorization.fromConfig(config("com.example.MyAuthorizer", ""), metadata));
        assertTrue(refused.getMessage().contains("authorizer.class.name"), refused.getMessage());
        assertThrows(ConfigException.class, () -> Authorization.fromConfig(config(
                "kafka.security.authorizer.AclAuthorizer", "admin"), metadata), "super.users needs type:name");
    }

    private BrokerConfig config(String authorizer, String superUsers) {
        return BrokerConfig.from(Map.of("node.id", "1", "listeners", "PLAINTEXT://127.0.0.1:9092",
                "log.dirs", dir.toString(), "authorizer.class.name", authorizer, "super.users", superUsers));
    }
}
