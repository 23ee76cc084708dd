package io.krill.compat.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.krill.compat.cluster.KrillCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import io.krill.compat.support.FreePorts;

/**
 * Three broker processes secured as docs/security.md describes: clients on a SASL_SSL listener with
 * SCRAM-SHA-512, brokers among themselves on a SASL_SSL inter-broker listener with SCRAM-SHA-512 (the
 * broker user is created before any topic exists, so no replication is attempted without it). A
 * PLAINTEXT listener on loopback stays for the test harness and for creating the first users. An RF 3
 * topic with min.insync.replicas=3 takes acks=all writes only if replication over the secure link works;
 * a transaction's markers travel over it too. Sessions last 3 s, so clients and brokers re-authenticate
 * (KIP-368) several times meanwhile without any connection being closed for an expired session. The
 * ACL authorizer is on: alice reaches only what her prefixed ACLs grant, a user without ACLs is refused.
 */
class SecureClusterTest {
    private static final String JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"%s\" password=\"%s\";";
    private static TestPki pki;
    private static KrillCluster cluster;
    private static final Map<Integer, Integer> CLIENT_PORTS = new ConcurrentHashMap<>();

    @BeforeAll
    static void startSecureCluster() throws Exception {
        pki = TestPki.create("Krill Cluster CA");
        TestPki.Identity broker = pki.issue("broker", "/OU=Brokers/CN=localhost");
        Map<String, String> config = new HashMap<>();
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CLIENT:SASL_SSL,INTERNAL:SASL_SSL");
        config.put("inter.broker.listener.name", "INTERNAL");
        config.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        config.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        config.put("listener.name.internal.scram-sha-512.sasl.jaas.config",
                String.format(JAAS_SCRAM, "broker", "broker-secret"));
        config.put("ssl.keystore.location", broker.keystore("PKCS12").toString());
        config.put("ssl.keystore.type", "PKCS12");
        config.put("ssl.keystore.password", TestPki.PASSWORD);
        config.put("ssl.truststore.location", pki.truststore("PKCS12").toString());
        config.put("ssl.truststore.type", "PKCS12");
        config.put("ssl.truststore.password", TestPki.PASSWORD);
        config.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        // The brokers' own principal, an admin, and (tests only) the harness on the loopback PLAINTEXT listener.
        config.put("super.users", "User:broker;User:admin;User:ANONYMOUS");
        // Sessions end every 3 s: clients and the brokers' own fetchers and marker senders re-authenticate.
        config.put("connections.max.reauth.ms", "3000");
        cluster = KrillCluster.start("secure", 3, config, (id, plaintextPort) -> {
            int client = FreePorts.next();
            int internal = FreePorts.next();
            CLIENT_PORTS.put(id, client);
            String listeners = "PLAINTEXT://127.0.0.1:" + plaintextPort + ",CLIENT://127.0.0.1:" + client
                    + ",INTERNAL://127.0.0.1:" + internal;
            return Map.of("listeners", listeners, "advertised.listeners", listeners);
        });
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion("broker", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "broker-secret"),
                    new UserScramCredentialUpsertion("alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "alice-secret"),
                    new UserScramCredentialUpsertion("mallory", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "mallory-secret"))).all().get(30, TimeUnit.SECONDS);
            // alice: everything on topics and transactional ids starting with "secure-"; mallory: nothing.
            admin.createAcls(List.of(
                    new AclBinding(new ResourcePattern(ResourceType.TOPIC, "secure-", PatternType.PREFIXED),
                            new AccessControlEntry("User:alice", "*", AclOperation.ALL, AclPermissionType.ALLOW)),
                    new AclBinding(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, "secure-", PatternType.PREFIXED),
                            new AccessControlEntry("User:alice", "*", AclOperation.ALL, AclPermissionType.ALLOW))))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            if (pki != null) {
                pki.close();
            }
        }
    }

    private static String clientBootstrap() {
        return CLIENT_PORTS.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    private static Map<String, String> alice(String password) {
        return Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", String.format(JAAS_SCRAM, "alice", password),
                "ssl.truststore.location", pki.truststore("PKCS12").toString(),
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", TestPki.PASSWORD);
    }

    @Test
    void replicatedAcksAllTopicOverSecureListeners() throws Exception {
        String topic = "secure-rf3";
        try (Admin admin = SecureClients.admin(clientBootstrap(), alice("alice-secret"))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 3)
                    .configs(Map.of("min.insync.replicas", "3")))).all().get(30, TimeUnit.SECONDS);
        }
        cluster.awaitFullIsr(topic, Duration.ofSeconds(60));
        List<String> values = IntStream.range(0, 1000).mapToObj(i -> "secure-" + i).collect(Collectors.toList());
        SecureClients.produce(clientBootstrap(), alice("alice-secret"), topic, values);
        assertEquals(values, SecureClients.consume(clientBootstrap(), alice("alice-secret"), topic, values.size()));
        cluster.awaitFullIsr(topic, Duration.ofSeconds(30));
        assertEquals(3, cluster.describe(topic, 0).isr().size(), "every replica in sync over SASL_SSL");

        Throwable wrong = SecureClients.describeFailure(clientBootstrap(), alice("wrong"));
        assertInstanceOf(SaslAuthenticationException.class, wrong, String.valueOf(wrong));
        Properties mallory = SecureClients.props(clientBootstrap(), Map.of("security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", String.format(JAAS_SCRAM, "mallory", "mallory-secret"),
                "ssl.truststore.location", pki.truststore("PKCS12").toString(), "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", TestPki.PASSWORD));
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(mallory, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
            assertThrows(TopicAuthorizationException.class, () -> consumer.poll(Duration.ofSeconds(10)),
                    "a user without ACLs reads nothing");
        }
        for (int id : cluster.brokerIds()) {
            String log = cluster.logOfCurrentStart(id);
            assertFalse(log.contains("SASL session expired"),
                    "broker " + id + " closed a connection whose session expired: a peer did not re-authenticate");
            assertFalse(log.contains("SASL authentication with"), "broker " + id + " failed to authenticate to a peer");
        }
    }

    @Test
    void transactionMarkersTravelTheSecureInterBrokerLink() throws Exception {
        String topic = "secure-txn";
        cluster.createTopic(topic, 3, 3, Map.of());
        Properties props = SecureClients.props(clientBootstrap(), alice("alice-secret"));
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "secure-txn-1");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>(topic, p, "k", "committed-" + p));
            }
            producer.commitTransaction();
        }
        Properties consumerProps = SecureClients.props(clientBootstrap(), alice("alice-secret"));
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<TopicPartition> partitions = IntStream.range(0, 3).mapToObj(p -> new TopicPartition(topic, p)).toList();
        List<String> read = new java.util.ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (read.size() < 3 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(r.value());
                }
            }
        }
        assertEquals(List.of("committed-0", "committed-1", "committed-2"), read.stream().sorted().toList(),
                "read_committed sees the transaction: its markers reached every leader");
    }
}
