package io.krill.compat.security;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Processes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ACL scenarios with the stock Java client over SASL_PLAINTEXT/PLAIN, on a broker whose only
 * listener is SASL and whose inter-broker principal (User:admin, in the JAAS username) is the super user:
 * WRITE alone does not let one consume; READ on a prefix reads the matching topics only; Metadata hides
 * what one may not describe; a transactional producer needs WRITE on its transactional id; super users
 * need no ACL.
 */
class AclEnforcementTest {
    static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" "
            + "user_alice=\"alice-secret\" user_bob=\"bob-secret\" user_carol=\"carol-secret\";";

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
            .with("num.partitions", "1")
            .with("offsets.topic.replication.factor", "1")
            .with("transaction.state.log.replication.factor", "1")
            .with("transaction.state.log.min.isr", "1");

    static Map<String, String> as(String user) {
        return new HashMap<>(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                        + "username=\"" + user + "\" password=\"" + user + "-secret\";"));
    }

    static String bootstrap() {
        return KRILL.bootstrapServers();
    }

    @BeforeAll
    static void topicsAndAcls() throws Exception {
        for (String topic : List.of("w-only", "pre-a", "other-b", "tx-out")) {
            SecureClients.createTopic(bootstrap(), as("admin"), topic, 1, (short) 1);
        }
        SecureClients.produce(bootstrap(), as("admin"), "pre-a", List.of("a1", "a2"));
        SecureClients.produce(bootstrap(), as("admin"), "other-b", List.of("b1"));
        try (Admin admin = SecureClients.admin(bootstrap(), as("admin"))) {
            admin.createAcls(List.of(
                    allow(ResourceType.TOPIC, "w-only", PatternType.LITERAL, "User:alice", AclOperation.WRITE),
                    allow(ResourceType.TOPIC, "pre-", PatternType.PREFIXED, "User:bob", AclOperation.READ),
                    allow(ResourceType.GROUP, "bob-", PatternType.PREFIXED, "User:bob", AclOperation.READ),
                    allow(ResourceType.TOPIC, "tx-out", PatternType.LITERAL, "User:carol", AclOperation.WRITE)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    static AclBinding allow(ResourceType type, String name, PatternType pattern, String principal,
                            AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    static KafkaConsumer<String, String> consumer(String user, String groupId) {
        Properties props = SecureClients.props(bootstrap(), as(user));
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (groupId != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** Polls an assigned partition until records or an exception come; returns the values read. */
    static List<String> readAssigned(String user, String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(user, null)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    @Test
    void writeOnlyPrincipalProducesButCannotConsume() throws Exception {
        SecureClients.produce(bootstrap(), as("alice"), "w-only", List.of("x"));
        assertThrows(TopicAuthorizationException.class, () -> readAssigned("alice", "w-only", 1));
        try (KafkaConsumer<String, String> grouped = consumer("alice", "alice-group")) {
            grouped.subscribe(List.of("w-only"));
            assertThrows(GroupAuthorizationException.class, () -> {
                for (int i = 0; i < 150; i++) {
                    grouped.poll(Duration.ofMillis(200));
                }
            });
        }
    }

    @Test
    void readOnAPrefixReadsMatchingTopicsOnlyAndMetadataHidesTheRest() throws Exception {
        assertEquals(List.of("a1", "a2"), readAssigned("bob", "pre-a", 2));
        assertThrows(TopicAuthorizationException.class, () -> readAssigned("bob", "other-b", 1));
        try (KafkaConsumer<String, String> grouped = consumer("bob", "bob-group")) {
            grouped.subscribe(List.of("pre-a"));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 2 && System.nanoTime() < deadline) {
                grouped.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
            assertEquals(List.of("a1", "a2"), values, "a group consumer with READ on bob-* and pre-*");
            grouped.commitSync();
        }
        try (Admin bob = SecureClients.admin(bootstrap(), as("bob"))) {
            assertEquals(Set.of("pre-a"), bob.listTopics().names().get(30, TimeUnit.SECONDS));
        }
        try (Admin admin = SecureClients.admin(bootstrap(), as("admin"))) {
            Set<String> all = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
            assertTrue(all.containsAll(Set.of("w-only", "pre-a", "other-b", "tx-out")), all.toString());
        }
    }

    /**
     * KIP-848 regex subscriptions (group.protocol=consumer) are given only the matching topics the member's
     * principal may describe, as Kafka filters them, and a topic is given once an ACL allows it.
     */
    @Test
    void aRegexSubscriptionGetsOnlyTheTopicsItsPrincipalMayDescribe() throws Exception {
        SecureClients.createTopic(bootstrap(), as("admin"), "rx-hidden", 1, (short) 1);
        SecureClients.produce(bootstrap(), as("admin"), "rx-hidden", List.of("h1"));
        Properties props = SecureClients.props(bootstrap(), as("bob"));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "bob-regex");
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, String> seen = new java.util.concurrent.ConcurrentHashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(new SubscriptionPattern("pre-a|rx-hidden"));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.put(r.value(), r.topic()));
                return seen.size() >= 2;
            });
            assertEquals(Set.of(new TopicPartition("pre-a", 0)), consumer.assignment(),
                    "rx-hidden matches but User:bob may not describe it");

            try (Admin admin = SecureClients.admin(bootstrap(), as("admin"))) {
                admin.createAcls(List.of(allow(ResourceType.TOPIC, "rx-hidden", PatternType.LITERAL, "User:bob",
                        AclOperation.READ))).all().get(30, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.put(r.value(), r.topic()));
                return seen.containsKey("h1");
            });
        }
        assertEquals(Map.of("a1", "pre-a", "a2", "pre-a", "h1", "rx-hidden"), seen);
    }

    @Test
    void transactionalProducerNeedsWriteOnItsTransactionalId() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("carol", "carol-tx")) {
            assertThrows(TransactionalIdAuthorizationException.class, producer::initTransactions);
        }
        try (Admin admin = SecureClients.admin(bootstrap(), as("admin"))) {
            admin.createAcls(List.of(allow(ResourceType.TRANSACTIONAL_ID, "carol-", PatternType.PREFIXED, "User:carol",
                    AclOperation.WRITE))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = transactional("carol", "carol-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx-out", 0, "k", "committed")).get(30, TimeUnit.SECONDS);
            producer.commitTransaction();
        }
        assertEquals(List.of("committed"), SecureClients.consume(bootstrap(), as("admin"), "tx-out", 1),
                "the super user reads what carol committed without any ACL");
    }

    static KafkaProducer<String, String> transactional(String user, String transactionalId) {
        Properties props = SecureClients.props(bootstrap(), as(user));
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    @Test
    void kcatSeesAndReadsOnlyWhatItsAclsAllow() {
        assumeTrue(Processes.onPath("kcat"), "kcat is not installed");
        List<String> bob = List.of("kcat", "-b", bootstrap(), "-X", "security.protocol=sasl_plaintext",
                "-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=bob", "-X", "sasl.password=bob-secret");
        List<String> list = new ArrayList<>(bob);
        list.addAll(List.of("-L", "-m", "10"));
        Processes.Result metadata = Processes.run(list, "", Duration.ofSeconds(60)).assertSuccess();
        assertTrue(metadata.out().contains("topic \"pre-a\""), metadata.describe());
        assertFalse(metadata.out().contains("other-b") || metadata.out().contains("w-only"), metadata.describe());

        List<String> read = new ArrayList<>(bob);
        read.addAll(List.of("-C", "-t", "pre-a", "-p", "0", "-o", "beginning", "-e", "-q"));
        assertEquals(List.of("a1", "a2"), Processes.run(read, "", Duration.ofSeconds(60)).assertSuccess().outLines());

        List<String> refused = new ArrayList<>(bob);
        refused.addAll(List.of("-C", "-t", "other-b", "-p", "0", "-o", "beginning", "-e", "-q"));
        Processes.Result denied = Processes.run(refused, "", Duration.ofSeconds(60));
        assertTrue(denied.exitCode() != 0 && denied.err().contains("authorization failed"), denied.describe());
    }
}
