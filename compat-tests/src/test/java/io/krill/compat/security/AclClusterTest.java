package io.krill.compat.security;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.broker.Broker;
import io.krill.broker.config.BrokerConfig;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers with the ACL authorizer on SASL_PLAINTEXT (inter-broker too, as User:admin, the super
 * user): an ACL created through one broker is enforced by the other once its image has it, a removal
 * as well, and acks=all writes to a replicated topic work because the followers' fetches (which need
 * CLUSTER_ACTION) come from the super user.
 */
class AclClusterTest {
    @TempDir
    Path dir;
    private EmbeddedZooKeeper zooKeeper;
    private final List<Broker> brokers = new ArrayList<>();

    @BeforeEach
    void start() throws InterruptedException {
        zooKeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), 0);
        for (int id = 1; id <= 2; id++) {
            Map<String, String> props = new HashMap<>();
            props.put("node.id", Integer.toString(id));
            props.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0");
            props.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT");
            props.put("inter.broker.listener.name", "SASL_PLAINTEXT");
            props.put("sasl.enabled.mechanisms", "PLAIN");
            props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            props.put("sasl.jaas.config", AclEnforcementTest.JAAS);
            props.put("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer");
            props.put("super.users", "User:admin");
            props.put("log.dirs", dir.resolve("broker-" + id).toString());
            props.put("zookeeper.connect", zooKeeper.connectString() + "/krill-acls");
            props.put("zookeeper.session.timeout.ms", "3000");
            props.put("num.io.threads", "2");
            props.put("num.network.threads", "2");
            props.put("default.replication.factor", "2");
            props.put("min.insync.replicas", "2");
            brokers.add(Broker.start(BrokerConfig.from(props)));
        }
    }

    @AfterEach
    void stop() {
        try {
            for (Broker broker : brokers) {
                broker.close();
            }
            zooKeeper.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private String bootstrap(int index) {
        return "127.0.0.1:" + brokers.get(index).boundAddresses().get(0).getPort();
    }

    @Test
    void aclsWrittenThroughOneBrokerAreEnforcedByTheOther() throws Exception {
        SecureClients.createTopic(bootstrap(0), AclEnforcementTest.as("admin"), "replicated", 1, (short) 2);
        try (Admin alice = SecureClients.admin(bootstrap(1), AclEnforcementTest.as("alice"))) {
            assertEquals(Set.of(), alice.listTopics().names().get(30, TimeUnit.SECONDS));
            try (Admin admin = SecureClients.admin(bootstrap(0), AclEnforcementTest.as("admin"))) {
                admin.createAcls(List.of(
                        AclEnforcementTest.allow(ResourceType.TOPIC, "repl", PatternType.PREFIXED, "User:alice",
                                AclOperation.WRITE),
                        AclEnforcementTest.allow(ResourceType.TOPIC, "repl", PatternType.PREFIXED, "User:alice",
                                AclOperation.READ))).all().get(30, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> alice.listTopics().names().get(30, TimeUnit.SECONDS).equals(Set.of("replicated")));
        }
        // acks=all through either broker: the follower's fetches are the super user's.
        SecureClients.produce(bootstrap(1), AclEnforcementTest.as("alice"), "replicated", List.of("r1", "r2"));
        assertEquals(List.of("r1", "r2"), SecureClients.consume(bootstrap(0), AclEnforcementTest.as("alice"),
                "replicated", 2));

        try (Admin admin = SecureClients.admin(bootstrap(1), AclEnforcementTest.as("admin"))) {
            admin.deleteAcls(List.of(new AclBindingFilter(
                    new ResourcePatternFilter(ResourceType.TOPIC, "repl", PatternType.PREFIXED),
                    new AccessControlEntryFilter("User:alice", null, AclOperation.ANY, AclPermissionType.ANY))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        try (Admin alice = SecureClients.admin(bootstrap(0), AclEnforcementTest.as("alice"))) {
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> alice.listTopics().names().get(30, TimeUnit.SECONDS).isEmpty());
        }
    }
}
