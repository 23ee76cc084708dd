package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.tools.AclCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-acls.sh ({@code org.apache.kafka.tools.AclCommand} 4.4) against Krill's ACL authorizer: add, list
 * and remove literal and prefixed ACLs, and the --producer convenience. The PLAINTEXT listener's
 * principal, User:ANONYMOUS, is a super user, so the tool may manage ACLs.
 */
class AclCommandTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .with("super.users", "User:ANONYMOUS");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private Result acls(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers(), "--command-config",
                Clients.configFile(tmp, KRILL.bootstrapServers()).toString()));
        all.addAll(List.of(args));
        return ToolRunner.run("kafka-acls", AclCommand::main, TIMEOUT, all.toArray(String[]::new));
    }

    @Test
    void addListAndRemoveLiteralAndPrefixedAcls() {
        acls("--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "acl-orders",
                "--group", "acl-group").assertSuccess();
        acls("--add", "--allow-principal", "User:bob", "--deny-principal", "User:mallory", "--operation", "Write",
                "--topic", "acl-logs-", "--resource-pattern-type", "prefixed").assertSuccess();
        acls("--add", "--allow-principal", "User:carol", "--allow-host", "10.1.2.3", "--producer", "--topic",
                "acl-out").assertSuccess();

        Result list = acls("--list").assertSuccess();
        String out = list.out();
        assertTrue(out.contains("ResourcePattern(resourceType=TOPIC, name=acl-orders, patternType=LITERAL)"),
                list.describe());
        assertTrue(out.contains("ResourcePattern(resourceType=GROUP, name=acl-group, patternType=LITERAL)"),
                list.describe());
        assertTrue(out.contains("(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"), list.describe());
        assertTrue(out.contains("ResourcePattern(resourceType=TOPIC, name=acl-logs-, patternType=PREFIXED)"),
                list.describe());
        assertTrue(out.contains("(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)"), list.describe());
        assertTrue(out.contains("(principal=User:mallory, host=*, operation=WRITE, permissionType=DENY)"),
                list.describe());
        for (String operation : List.of("WRITE", "DESCRIBE", "CREATE")) {
            assertTrue(out.contains("(principal=User:carol, host=10.1.2.3, operation=" + operation
                    + ", permissionType=ALLOW)"), "--producer grants " + operation + ":\n" + list.describe());
        }

        Result prefixed = acls("--list", "--topic", "acl-logs-", "--resource-pattern-type", "prefixed").assertSuccess();
        assertTrue(prefixed.out().contains("name=acl-logs-, patternType=PREFIXED"), prefixed.describe());
        assertFalse(prefixed.out().contains("acl-orders"), prefixed.describe());
        Result matching = acls("--list", "--topic", "acl-logs-eu", "--resource-pattern-type", "match").assertSuccess();
        assertTrue(matching.out().contains("name=acl-logs-, patternType=PREFIXED"),
                "the prefix applies to acl-logs-eu:\n" + matching.describe());

        acls("--remove", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "acl-orders", "--force")
                .assertSuccess();
        acls("--remove", "--topic", "acl-logs-", "--resource-pattern-type", "prefixed", "--force").assertSuccess();
        Result after = acls("--list").assertSuccess();
        assertFalse(after.out().contains("name=acl-orders"), after.describe());
        assertFalse(after.out().contains("name=acl-logs-"), after.describe());
        assertTrue(after.out().contains("name=acl-group"), after.describe());
        assertTrue(after.out().contains("name=acl-out"), after.describe());
    }

    @Test
    void clusterAndTransactionalIdAcls() {
        acls("--add", "--allow-principal", "User:ops", "--operation", "Alter", "--operation", "IdempotentWrite",
                "--cluster").assertSuccess();
        acls("--add", "--allow-principal", "User:app", "--operation", "Write", "--transactional-id", "acl-tx-",
                "--resource-pattern-type", "prefixed").assertSuccess();
        Result cluster = acls("--list", "--cluster").assertSuccess();
        assertTrue(cluster.out().contains("ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)"),
                cluster.describe());
        assertTrue(cluster.out().contains("(principal=User:ops, host=*, operation=IDEMPOTENT_WRITE, permissionType=ALLOW)"),
                cluster.describe());
        Result byPrincipal = acls("--list", "--principal", "User:app").assertSuccess();
        assertTrue(byPrincipal.out().contains("resourceType=TRANSACTIONAL_ID, name=acl-tx-, patternType=PREFIXED"),
                byPrincipal.describe());
        assertFalse(byPrincipal.out().contains("User:ops"), byPrincipal.describe());
    }
}
