package io.krill.compat;

import static io.krill.compat.AdminApiTest.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.partition.Partition;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stock Java AdminClient reads and changes configs on Krill: DescribeConfigs of topics and of the
 * broker (sources, synonyms, types, documentation as Kafka reports them) and IncrementalAlterConfigs of
 * topics, which reach the live log; group configs (ConfigResource GROUP). Each test uses its own topic.
 */
class AdminConfigsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        return Admin.create(props);
    }

    private static Config describe(Admin admin, ConfigResource resource) throws Exception {
        return admin.describeConfigs(List.of(resource), new DescribeConfigsOptions().includeSynonyms(true)
                .includeDocumentation(true)).all().get(60, TimeUnit.SECONDS).get(resource);
    }

    @Test
    void describesTopicOverridesAndDefaultsWithSynonyms() throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "configs-described");
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic.name(), 1, (short) 1)
                    .configs(Map.of("retention.ms", "7200000", "cleanup.policy", "compact")))).all().get(60, TimeUnit.SECONDS);
            Config config = describe(admin, topic);

            ConfigEntry retention = config.get("retention.ms");
            assertEquals("7200000", retention.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.source());
            assertEquals(ConfigEntry.ConfigType.LONG, retention.type());
            assertFalse(retention.isReadOnly());
            assertFalse(retention.isSensitive());
            assertNotNull(retention.documentation());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.synonyms().get(0).source());

            ConfigEntry policy = config.get("cleanup.policy");
            assertEquals("compact", policy.value());
            assertEquals(List.of("cleanup.policy", "log.cleanup.policy"),
                    policy.synonyms().stream().map(ConfigEntry.ConfigSynonym::name).toList());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, policy.synonyms().get(1).source());
            assertEquals("delete", policy.synonyms().get(1).value());

            ConfigEntry segment = config.get("segment.bytes");
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, segment.source());
            assertEquals("1073741824", segment.value());
            assertEquals(List.of("log.segment.bytes"),
                    segment.synonyms().stream().map(ConfigEntry.ConfigSynonym::name).toList());

            Config some = admin.describeConfigs(List.of(topic)).all().get(60, TimeUnit.SECONDS).get(topic);
            assertTrue(some.get("retention.ms").synonyms().isEmpty(), "synonyms only when asked for");
            failure(UnknownTopicOrPartitionException.class, admin.describeConfigs(List.of(
                    new ConfigResource(ConfigResource.Type.TOPIC, "configs-never-created"))).all());
        }
    }

    @Test
    void describesTheBroker() throws Exception {
        try (Admin admin = admin()) {
            Config broker = describe(admin, new ConfigResource(ConfigResource.Type.BROKER, "1"));
            ConfigEntry ioThreads = broker.get("num.io.threads");
            assertEquals("2", ioThreads.value());
            assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, ioThreads.source());
            ConfigEntry retentionHours = broker.get("log.retention.hours");
            assertEquals("168", retentionHours.value());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, retentionHours.source());
            assertTrue(broker.get("node.id").isReadOnly());

            assertTrue(describe(admin, new ConfigResource(ConfigResource.Type.BROKER, "")).entries().isEmpty(),
                    "no cluster-wide dynamic defaults");
            assertTrue(describe(admin, new ConfigResource(ConfigResource.Type.BROKER_LOGGER, "1")).entries().isEmpty());
        }
    }

    @Test
    void incrementalAlterConfigsReachesTheLiveLog() throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "configs-altered");
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic.name(), 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            admin.incrementalAlterConfigs(Map.of(topic, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "1234567"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND))))
                    .all().get(60, TimeUnit.SECONDS);
            Config config = describe(admin, topic);
            assertEquals("1234567", config.get("retention.ms").value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, config.get("retention.ms").source());
            assertEquals("delete,compact", config.get("cleanup.policy").value());
            Partition live = KRILL.broker().partitions().partition(topic.name(), 0);
            assertEquals(1234567L, live.log().config().retentionMs());
            assertTrue(live.config().compact());

            admin.incrementalAlterConfigs(Map.of(topic, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SUBTRACT))))
                    .all().get(60, TimeUnit.SECONDS);
            config = describe(admin, topic);
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, config.get("retention.ms").source());
            assertEquals("604800000", config.get("retention.ms").value());
            assertEquals("delete", config.get("cleanup.policy").value());
            assertEquals(604_800_000L, live.log().config().retentionMs());

            admin.incrementalAlterConfigs(Map.of(topic, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET))),
                    new AlterConfigsOptions().validateOnly(true)).all().get(60, TimeUnit.SECONDS);
            InvalidConfigurationException bad = failure(InvalidConfigurationException.class,
                    admin.incrementalAlterConfigs(Map.of(topic, List.of(
                            new AlterConfigOp(new ConfigEntry("retention.ms", "tomorrow"), AlterConfigOp.OpType.SET)))).all());
            assertTrue(bad.getMessage().contains("retention.ms"), bad.getMessage());
            failure(InvalidConfigurationException.class, admin.incrementalAlterConfigs(Map.of(topic, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.APPEND)))).all());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, describe(admin, topic).get("retention.ms").source(),
                    "neither validate-only nor failed changes stick");

            failure(UnknownTopicOrPartitionException.class, admin.incrementalAlterConfigs(Map.of(
                    new ConfigResource(ConfigResource.Type.TOPIC, "configs-never-created"), List.of(
                            new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET)))).all());
        }
    }

    @Test
    void groupConfigsAreSetDescribedAndCheckedAgainstTheBrokersBounds() throws Exception {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, "configs-share-group");
        try (Admin admin = admin()) {
            Config defaults = describe(admin, group);
            assertEquals("latest", defaults.get("share.auto.offset.reset").value());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, defaults.get("share.auto.offset.reset").source());
            ConfigEntry session = defaults.get("share.session.timeout.ms");
            assertEquals("45000", session.value());
            assertEquals("group.share.session.timeout.ms", session.synonyms().get(0).name());
            assertEquals(ConfigEntry.ConfigType.INT, session.type());
            assertFalse(session.isReadOnly());

            admin.incrementalAlterConfigs(Map.of(group, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "by_duration:PT1H"),
                            AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.isolation.level", "read_committed"),
                            AlterConfigOp.OpType.SET)))).all().get(60, TimeUnit.SECONDS);
            Config set = describe(admin, group);
            assertEquals("by_duration:PT1H", set.get("share.auto.offset.reset").value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG, set.get("share.auto.offset.reset").source());
            assertEquals("read_committed", set.get("share.isolation.level").value());
            assertEquals("read_committed", KRILL.broker().metadata().image()
                    .entityConfigs("groups/" + group.name()).get("share.isolation.level"), "kept in the store");

            InvalidConfigurationException outOfBounds = failure(InvalidConfigurationException.class,
                    admin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
                            new ConfigEntry("share.record.lock.duration.ms", "90000"), AlterConfigOp.OpType.SET))))
                            .all());
            assertEquals("share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.",
                    outOfBounds.getMessage());
            failure(InvalidConfigurationException.class, admin.incrementalAlterConfigs(Map.of(group, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "soonest"),
                            AlterConfigOp.OpType.SET)))).all());
            failure(InvalidConfigurationException.class, admin.incrementalAlterConfigs(Map.of(group, List.of(
                    new AlterConfigOp(new ConfigEntry("share.no.such.key", "1"), AlterConfigOp.OpType.SET)))).all());
            assertEquals("by_duration:PT1H", describe(admin, group).get("share.auto.offset.reset").value(),
                    "failed changes do not stick");
        }
    }

    @Test
    void dynamicBrokerConfigsChangeTopicDefaultsAndKeysReadAtStartupAreRefused() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("dynamic-defaults", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");
            admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(new AlterConfigOp(
                    new ConfigEntry("log.retention.bytes", "7777777"), AlterConfigOp.OpType.SET)))).all().get(60, TimeUnit.SECONDS);
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "dynamic-defaults");
            ConfigEntry retention = admin.describeConfigs(List.of(topic)).all().get(60, TimeUnit.SECONDS).get(topic).get("retention.bytes");
            assertEquals("7777777", retention.value());
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, retention.source());
            Partition partition = KRILL.broker().partitions().partition("dynamic-defaults", 0);
            assertEquals(7777777L, partition.config().retentionBytes(), "the live partition follows the default");
            ConfigResource self = new ConfigResource(ConfigResource.Type.BROKER, "1");
            ConfigEntry brokerView = admin.describeConfigs(List.of(self)).all().get(60, TimeUnit.SECONDS).get(self).get("log.retention.bytes");
            assertEquals("7777777", brokerView.value());

            InvalidRequestException refused = failure(InvalidRequestException.class, admin.incrementalAlterConfigs(Map.of(
                    self, List.of(new AlterConfigOp(new ConfigEntry("num.io.threads", "4"),
                            AlterConfigOp.OpType.SET)))).all());
            assertTrue(refused.getMessage().contains("only at startup"), refused.getMessage());
            failure(InvalidConfigurationException.class, admin.incrementalAlterConfigs(Map.of(self, List.of(
                    new AlterConfigOp(new ConfigEntry("log.retention.bytes", "lots"), AlterConfigOp.OpType.SET)))).all());

            admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(new AlterConfigOp(
                    new ConfigEntry("log.retention.bytes", ""), AlterConfigOp.OpType.DELETE)))).all().get(60, TimeUnit.SECONDS);
            assertEquals(-1L, partition.config().retentionBytes());
        }
    }
}
