package io.krill.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {
    private static final BrokerConfig DEFAULTS = BrokerConfig.from(Map.of());

    private static BrokerConfig config(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return BrokerConfig.from(props);
    }

    private static String error(String... keyValues) {
        return assertThrows(ConfigException.class, () -> config(keyValues)).getMessage();
    }

    @Test
    void defaultsAreKafkas() {
        BrokerConfig c = DEFAULTS;
        assertEquals(-1, c.nodeId());
        assertEquals(List.of("/tmp/kafka-logs"), c.logDirs());
        assertTrue(c.autoCreateTopicsEnable());
        assertTrue(c.deleteTopicEnable());
        assertTrue(c.rack().isEmpty());
        assertTrue(c.clusterId().isEmpty());
        assertEquals(1, c.log().numPartitions());
        assertEquals(1, c.replication().defaultReplicationFactor());
        assertEquals(1, c.log().minInsyncReplicas());
        assertFalse(c.replication().uncleanLeaderElectionEnable());
        assertEquals(1048588, c.log().messageMaxBytes());
        assertEquals(1048576, c.replication().replicaFetchMaxBytes());
        assertEquals(30000L, c.replication().replicaLagTimeMaxMs());
        assertEquals(500, c.replication().replicaFetchWaitMaxMs());
        assertEquals(1, c.replication().replicaFetchMinBytes());
        assertEquals(1, c.replication().numReplicaFetchers());
        assertEquals(3, c.socket().numNetworkThreads());
        assertEquals(8, c.socket().numIoThreads());
        assertEquals(102400, c.socket().socketSendBufferBytes());
        assertEquals(102400, c.socket().socketReceiveBufferBytes());
        assertEquals(104857600, c.socket().socketRequestMaxBytes());
        assertEquals(500, c.socket().queuedMaxRequests());
        assertEquals(600000L, c.socket().connectionsMaxIdleMs());
        assertEquals(30000, c.socket().requestTimeoutMs());
        assertEquals(Integer.MAX_VALUE, c.socket().maxConnections());
        assertEquals(Map.of(), c.socket().maxConnectionsPerIpOverrides());
        assertEquals(1073741824, c.log().segmentBytes());
        assertEquals(168 * 3600_000L, c.log().rollMs());
        assertEquals(0L, c.log().rollJitterMs());
        assertEquals(168 * 3600_000L, c.log().retentionMs());
        assertEquals(-1L, c.log().retentionBytes());
        assertEquals(300000L, c.log().retentionCheckIntervalMs());
        assertEquals(List.of("delete"), c.log().cleanupPolicy());
        assertTrue(c.log().cleanerEnable());
        assertEquals(86400000L, c.log().cleanerDeleteRetentionMs());
        assertEquals(0.5, c.log().cleanerMinCleanableRatio());
        assertEquals(4096, c.log().indexIntervalBytes());
        assertEquals(10485760, c.log().indexSizeMaxBytes());
        assertEquals(Long.MAX_VALUE, c.log().flushIntervalMessages());
        assertEquals(Long.MAX_VALUE, c.log().flushIntervalMs());
        assertEquals(60000, c.log().flushOffsetCheckpointIntervalMs());
        assertEquals("CreateTime", c.log().messageTimestampType());
        assertEquals(3600000L, c.log().messageTimestampAfterMaxMs());
        assertFalse(c.log().preallocate());
        assertEquals("producer", c.log().compressionType());
        assertEquals(50, c.group().offsetsTopicNumPartitions());
        assertEquals((short) 3, c.group().offsetsTopicReplicationFactor());
        assertEquals(104857600, c.group().offsetsTopicSegmentBytes());
        assertEquals(10080, c.group().offsetsRetentionMinutes());
        assertEquals(3000, c.group().initialRebalanceDelayMs());
        assertEquals(6000, c.group().minSessionTimeoutMs());
        assertEquals(1800000, c.group().maxSessionTimeoutMs());
        assertEquals(List.of("classic", "consumer"), c.group().rebalanceProtocols());
        assertEquals(45000, c.group().consumerSessionTimeoutMs());
        assertEquals(5000, c.group().consumerHeartbeatIntervalMs());
        assertEquals(List.of("uniform", "range"), c.group().consumerAssignors());
        assertEquals(50, c.transaction().stateLogNumPartitions());
        assertEquals((short) 3, c.transaction().stateLogReplicationFactor());
        assertEquals(2, c.transaction().stateLogMinIsr());
        assertEquals(900000, c.transaction().maxTimeoutMs());
        assertEquals(604800000, c.transaction().transactionalIdExpirationMs());
        assertEquals(86400000, c.transaction().producerIdExpirationMs());
        assertTrue(c.embeddedZooKeeper());
        assertEquals(6000, c.zookeeperSessionTimeoutMs());
        assertEquals(6000, c.zookeeperConnectionTimeoutMs());
        assertEquals(0, c.httpPort());
        assertTrue(c.replication().controlledShutdownEnable());
        assertTrue(c.replication().autoLeaderRebalanceEnable());
        assertEquals(300L, c.replication().leaderImbalanceCheckIntervalSeconds());
        assertEquals(Set.of(), c.unknownKeys());
    }

    @Test
    void shareGroupAndShareCoordinatorDefaultsAreKafkas() {
        ShareGroupSettings share = DEFAULTS.shareGroup();
        assertEquals(45000, share.sessionTimeoutMs());
        assertEquals(60000, share.maxSessionTimeoutMs());
        assertEquals(5000, share.heartbeatIntervalMs());
        assertEquals(200, share.maxSize());
        assertEquals(List.of("simple"), share.assignors());
        assertEquals(ShareGroupConfig.DEFAULTS, share.defaults());
        ShareCoordinatorSettings coordinator = DEFAULTS.shareCoordinator();
        assertEquals(50, coordinator.stateTopicNumPartitions());
        assertEquals(3, coordinator.stateTopicReplicationFactor());
        assertEquals(2, coordinator.stateTopicMinIsr());
        assertEquals(500, coordinator.snapshotUpdateRecordsPerSnapshot());
        assertEquals(-1, coordinator.appendLingerMs());
        assertTrue(error("group.share.delivery.count.limit", "11").endsWith("Value must be no more than 10"));
        assertTrue(error("share.coordinator.cached.buffer.max.bytes", "1").endsWith("Value must be at least 524288"));
        assertEquals(20_000, config("group.share.record.lock.duration.ms", "20000").shareGroup().defaults()
                .recordLockDurationMs());
        assertEquals("group.share.session.timeout.ms must be less than or equal to group.share.max.session.timeout.ms",
                error("group.share.session.timeout.ms", "70000"));
        assertEquals("group.share.max.record.lock.duration.ms must be greater than or equal to "
                + "group.share.record.lock.duration.ms", error("group.share.record.lock.duration.ms", "70000"));
        assertEquals(NotApplicableKeys.SHARE_PLUGINS, config("group.share.persister.class.name", "x")
                .notApplicableKeys().get("group.share.persister.class.name"));
        assertTrue(ConfigDescriber.describeBroker(DEFAULTS).stream()
                .noneMatch(c -> c.name().equals("group.share.initialize.retry.interval.ms")), "internal, as in Kafka");
    }

    @Test
    void everyAccessorReadsADefinedKey() throws Exception {
        for (Object view : List.of(DEFAULTS, DEFAULTS.log(), DEFAULTS.socket(), DEFAULTS.replication(),
                DEFAULTS.group(), DEFAULTS.transaction(), DEFAULTS.shareGroup(), DEFAULTS.shareCoordinator())) {
            for (Method m : view.getClass().getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())
                        && m.getParameterCount() == 0) {
                    m.invoke(view);
                }
            }
        }
    }

    @Test
    void retentionPrecedenceIsMsThenMinutesThenHours() {
        assertEquals(3600_000L, config("log.retention.hours", "1").log().retentionMs());
        assertEquals(120_000L, config("log.retention.minutes", "2", "log.retention.hours", "1").log().retentionMs());
        assertEquals(5L, config("log.retention.ms", "5", "log.retention.minutes", "2", "log.retention.hours", "1")
                .log().retentionMs());
        assertEquals(-1L, config("log.retention.ms", "-5").log().retentionMs());
        assertEquals(-1L, config("log.retention.hours", "-1").log().retentionMs());
        assertEquals(-1L, config("log.retention.minutes", "-1").log().retentionMs());
    }

    @Test
    void rollAndFlushPrecedence() {
        assertEquals(7200_000L, config("log.roll.hours", "2").log().rollMs());
        assertEquals(1000L, config("log.roll.ms", "1000", "log.roll.hours", "2").log().rollMs());
        assertEquals(3600_000L, config("log.roll.jitter.hours", "1").log().rollJitterMs());
        assertEquals(10L, config("log.roll.jitter.ms", "10", "log.roll.jitter.hours", "1").log().rollJitterMs());
        assertEquals(5000L, config("log.flush.scheduler.interval.ms", "5000").log().flushIntervalMs());
        assertEquals(100L, config("log.flush.interval.ms", "100", "log.flush.scheduler.interval.ms", "5000")
                .log().flushIntervalMs());
    }

    @Test
    void logDirsWinsOverLogDir() {
        assertEquals(List.of("/a", "/b"), config("log.dirs", "/a, /b", "log.dir", "/c").logDirs());
        assertEquals(List.of("/c"), config("log.dir", "/c").logDirs());
        assertTrue(error("log.dirs", "").contains("log.dirs"));
    }

    @Test
    void brokerIdAndNodeIdAreSynonyms() {
        assertEquals(3, config("node.id", "3").nodeId());
        assertEquals(3, config("node.id", "3").values().getInt("broker.id"));
        assertEquals(4, config("broker.id", "4").nodeId());
        assertEquals(4, config("broker.id", "4").values().getInt("node.id"));
        assertEquals(5, config("broker.id", "5", "node.id", "5").nodeId());
        String message = error("broker.id", "1", "node.id", "2");
        assertTrue(message.contains("broker.id (1)") && message.contains("node.id (2)"), message);
        assertTrue(error("broker.id", "1001").contains("reserved.broker.max.id"));
        assertEquals(1001, config("broker.id", "1001", "reserved.broker.max.id", "2000").nodeId());
    }

    @Test
    void wrongTypeNamesTheKey() {
        assertEquals("Invalid value abc for configuration num.partitions: Not a number of type INT",
                error("num.partitions", "abc"));
        assertEquals("Invalid value 0 for configuration num.partitions: Value must be at least 1",
                error("num.partitions", "0"));
        assertEquals("Invalid value maybe for configuration auto.create.topics.enable: "
                + "Expected value to be either true or false", error("auto.create.topics.enable", "maybe"));
        assertTrue(error("compression.type", "GZIP")
                .startsWith("Invalid value GZIP for configuration compression.type"));
        assertTrue(error("replica.fetch.wait.max.ms", "40000").contains("replica.lag.time.max.ms"));
    }

    @Test
    void unknownAndKraftKeysAreReportedNotFatal() {
        BrokerConfig c = config("num.partitons", "3", "process.roles", "broker,controller",
                "controller.quorum.voters", "1@localhost:9093", "controller.quorum.bootstrap.servers", "localhost:9093",
                "controller.listener.names", "CONTROLLER", "node.id", "1",
                "listener.name.plaintext.ssl.keystore.location", "/ks", "group.share.max.sise", "10");
        assertEquals(Set.of("num.partitons", "group.share.max.sise"), c.unknownKeys());
        assertEquals(Set.of("process.roles", "controller.quorum.voters", "controller.quorum.bootstrap.servers",
                "controller.listener.names"), c.notApplicableKeys().keySet());
        assertEquals(NotApplicableKeys.KRAFT, c.notApplicableKeys().get("process.roles"));
        assertEquals(1, c.nodeId());
    }

    @Test
    void unsupportedKeysAreAcceptedAndReported() {
        BrokerConfig c = config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "remote.log.storage.system.enable", "false", "create.topic.policy.class.name", "x.Y");
        // authorizer.class.name is supported: Kafka's names select Krill's ACL authorizer.
        assertEquals(Set.of("create.topic.policy.class.name"), c.unsupportedKeys());
        assertEquals(Set.of(), c.unknownKeys());
    }

    @Test
    void replicaSelectorsAreKafkasTwoBuiltInOnes() {
        assertFalse(config().replication().rackAwareReplicaSelector(), "unset: consumers fetch from the leader");
        assertFalse(config("replica.selector.class", "org.apache.kafka.common.replica.LeaderSelector").replication()
                .rackAwareReplicaSelector());
        assertTrue(config("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector")
                .replication().rackAwareReplicaSelector());
        ConfigException e = assertThrows(ConfigException.class, () -> config("replica.selector.class", "x.Y"));
        assertTrue(e.getMessage().contains("replica.selector.class"), e.getMessage());
    }

    @Test
    void badBrokerDefaultOfATopicKeyNamesTheBrokerKey() {
        assertEquals("Invalid value -5 for configuration log.flush.scheduler.interval.ms: Value must be at least 0",
                error("log.flush.scheduler.interval.ms", "-5"));
    }

    @Test
    void passwordsAreHidden() {
        BrokerConfig c = config("ssl.keystore.password", "s3cret");
        assertEquals("s3cret", c.values().getPassword("ssl.keystore.password").value());
        assertFalse(c.toString().contains("s3cret"));
        assertTrue(c.toString().contains("ssl.keystore.password = [hidden]"));
    }

    @Test
    void listenersDefaultAndAdvertisedHost() {
        BrokerListeners l = DEFAULTS.listeners();
        assertEquals(List.of(new Listener("PLAINTEXT", SecurityProtocol.PLAINTEXT, null, 9092)), l.listeners());
        assertEquals(List.of(new Listener("PLAINTEXT", SecurityProtocol.PLAINTEXT, "localhost", 9092)),
                l.advertisedListeners());
        assertEquals("PLAINTEXT", l.interBrokerListenerName());
        assertEquals(SecurityProtocol.PLAINTEXT, l.interBrokerSecurityProtocol());
        assertEquals(4, l.protocolMap().size());

        BrokerConfig c = config("listeners", "INTERNAL://:9093,EXTERNAL://0.0.0.0:9092",
                "advertised.listeners", "INTERNAL://broker1:9093,EXTERNAL://public.example.com:9092",
                "listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SSL",
                "inter.broker.listener.name", "internal");
        assertEquals("INTERNAL", c.listeners().interBrokerListenerName());
        assertEquals("public.example.com", c.listeners().advertised("EXTERNAL").orElseThrow().host());
        assertEquals(SecurityProtocol.SSL, c.listeners().advertised("EXTERNAL").orElseThrow().securityProtocol());
    }

    @Test
    void listenerMisconfigurationsFail() {
        assertTrue(error("listeners", "PLAINTEXT://0.0.0.0:9092").contains("nonroutable meta-address 0.0.0.0"));
        assertTrue(error("listeners", "A://:1", "listener.security.protocol.map", "A:PLAINTEXT",
                "inter.broker.listener.name", "A", "security.inter.broker.protocol", "PLAINTEXT")
                .contains("Only one of inter.broker.listener.name and security.inter.broker.protocol"));
        assertTrue(error("listeners", "A://:1", "listener.security.protocol.map", "A:PLAINTEXT")
                .contains("inter.broker.listener.name must be a listener name defined in advertised.listeners"));
        assertTrue(error("listeners", "PLAINTEXT://:1", "advertised.listeners", "SSL://h:2")
                .contains("must be equal to or a subset"));
        assertTrue(error("listeners", "INTERNAL://:9093")
                .contains("No security protocol defined for listener INTERNAL"));
    }

    @Test
    void dynamicLayersOverrideStatic() {
        BrokerConfig base = config("log.retention.hours", "1");
        BrokerConfig dyn = base.withDynamicConfigs(Map.of("log.retention.ms", "1000"), Map.of("num.io.threads", "4"));
        assertEquals(1000L, dyn.log().retentionMs());
        assertEquals(4, dyn.socket().numIoThreads());
        assertEquals(3600_000L, base.log().retentionMs());
        assertEquals(16, base.withDynamicConfigs(Map.of("num.io.threads", "16"), Map.of("num.io.threads", "4"))
                .socket().numIoThreads());
        assertEquals("Cannot update these configs dynamically: [log.dirs]", assertThrows(ConfigException.class,
                () -> base.withDynamicConfigs(Map.of("log.dirs", "/x"), Map.of())).getMessage());
        assertTrue(assertThrows(ConfigException.class,
                () -> base.withDynamicConfigs(Map.of(), Map.of("listeners", "PLAINTEXT://:1"))).getMessage()
                .startsWith("Cannot update these configs at default cluster level"));
    }

    @Test
    void loadAppliesOverrides(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("server.properties");
        Files.writeString(file,
                "# comment\nnode.id=1\nlog.dirs=/data/a\nnum.partitions = 3\nzookeeper.connect=zk:2181\n",
                StandardCharsets.ISO_8859_1);
        BrokerConfig c = BrokerConfig.load(file, List.of("num.partitions=6", "broker.rack=r1",
                "max.connections.per.ip.overrides=a:1,127.0.0.1:2"));
        assertEquals(1, c.nodeId());
        assertEquals(6, c.log().numPartitions());
        assertEquals("r1", c.rack().orElseThrow());
        assertEquals(List.of("/data/a"), c.logDirs());
        assertFalse(c.embeddedZooKeeper());
        assertEquals(Map.of("a", 1, "127.0.0.1", 2), c.socket().maxConnectionsPerIpOverrides());
        assertTrue(assertThrows(ConfigException.class, () -> BrokerConfig.load(file, List.of("novalue")))
                .getMessage().contains("novalue"));
        assertTrue(assertThrows(ConfigException.class, () -> BrokerConfig.load(dir.resolve("missing"), List.of()))
                .getMessage().contains("does not exist"));
        assertEquals("a=b", BrokerConfigLoader.parseOverrides(List.of("k=a=b")).get("k"));
    }

    @Test
    void fromProperties() {
        Properties p = new Properties();
        p.setProperty("num.partitions", "7");
        assertEquals(7, BrokerConfig.from(p).log().numPartitions());
        assertNull(DEFAULTS.values().get("log.retention.ms"));
    }
}
