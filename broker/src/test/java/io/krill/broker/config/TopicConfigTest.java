package io.krill.broker.config;

import static io.krill.broker.config.ConfigSource.DEFAULT_CONFIG;
import static io.krill.broker.config.ConfigSource.DYNAMIC_BROKER_CONFIG;
import static io.krill.broker.config.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG;
import static io.krill.broker.config.ConfigSource.DYNAMIC_TOPIC_CONFIG;
import static io.krill.broker.config.ConfigSource.STATIC_BROKER_CONFIG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicConfigTest {
    private static DescribedConfig find(List<DescribedConfig> configs, String name) {
        return configs.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void defaultsComeFromBrokerSynonyms() {
        BrokerConfig broker = BrokerConfig.from(Map.of("log.retention.hours", "24", "message.max.bytes", "2000000",
                "log.cleanup.policy", "compact", "log.roll.ms", "1000"));
        TopicConfig t = TopicConfig.resolve(Map.of(), broker);
        assertEquals(86400000L, t.retentionMs());
        assertEquals(2000000, t.maxMessageBytes());
        assertTrue(t.compact());
        assertFalse(t.delete());
        assertEquals(1000L, t.segmentMs());
        assertEquals(1000L, t.maxSegmentMs());
        assertEquals(1073741824, t.segmentBytes());
        assertEquals("producer", t.compressionType());
        assertEquals(-1L, t.retentionBytes());
        assertEquals(0.5, t.minCleanableDirtyRatio());
        assertFalse(t.remoteStorageEnable());
    }

    @Test
    void overridesWin() {
        TopicConfig t = TopicConfig.resolve(Map.of("retention.ms", "-1", "cleanup.policy", "delete,compact",
                "message.timestamp.type", "LogAppendTime"), BrokerConfig.from(Map.of()));
        assertEquals(-1L, t.retentionMs());
        assertTrue(t.compact() && t.delete());
        assertTrue(t.logAppendTime());
        assertTrue(t.isOverridden("retention.ms"));
        assertFalse(t.isOverridden("segment.ms"));
    }

    @Test
    void describeTopicReportsSourcesAndSynonymsInKafkaOrder() {
        BrokerConfig broker = BrokerConfig.from(Map.of("log.segment.bytes", "2097152", "log.retention.ms", "1000"))
                .withDynamicConfigs(Map.of("log.segment.bytes", "4194304"), Map.of("log.segment.bytes", "3145728"));
        TopicConfig topic = TopicConfig.resolve(Map.of("retention.ms", "2000"), broker);
        List<DescribedConfig> described = ConfigDescriber.describeTopic(topic, broker);

        DescribedConfig retention = find(described, "retention.ms");
        assertEquals("2000", retention.value());
        assertEquals(DYNAMIC_TOPIC_CONFIG, retention.source());
        assertEquals(List.of(new ConfigSynonym("retention.ms", "2000", DYNAMIC_TOPIC_CONFIG),
                new ConfigSynonym("log.retention.ms", "1000", STATIC_BROKER_CONFIG),
                new ConfigSynonym("log.retention.hours", "168", DEFAULT_CONFIG)), retention.synonyms());
        assertEquals(5, retention.type().id());
        assertFalse(retention.readOnly());
        assertFalse(retention.sensitive());
        assertFalse(retention.documentation().isEmpty());

        DescribedConfig segment = find(described, "segment.bytes");
        assertEquals("4194304", segment.value());
        assertEquals(DYNAMIC_BROKER_CONFIG, segment.source());
        assertEquals(2, segment.source().id());
        assertEquals(List.of(new ConfigSynonym("log.segment.bytes", "4194304", DYNAMIC_BROKER_CONFIG),
                new ConfigSynonym("log.segment.bytes", "3145728", DYNAMIC_DEFAULT_BROKER_CONFIG),
                new ConfigSynonym("log.segment.bytes", "2097152", STATIC_BROKER_CONFIG),
                new ConfigSynonym("log.segment.bytes", "1073741824", DEFAULT_CONFIG)), segment.synonyms());

        DescribedConfig policy = find(described, "cleanup.policy");
        assertEquals("delete", policy.value());
        assertEquals(DEFAULT_CONFIG, policy.source());
        assertEquals(7, policy.type().id());
        assertEquals(List.of(new ConfigSynonym("log.cleanup.policy", "delete", DEFAULT_CONFIG)), policy.synonyms());
        assertEquals(5, DEFAULT_CONFIG.id());
        assertEquals(1, DYNAMIC_TOPIC_CONFIG.id());
        assertEquals(3, DYNAMIC_DEFAULT_BROKER_CONFIG.id());
        assertEquals(4, STATIC_BROKER_CONFIG.id());
    }

    @Test
    void describeTopicDropsSynonymsBeforeTheBrokerKeyLikeKafka() {
        BrokerConfig broker = BrokerConfig.from(Map.of("log.retention.hours", "24"));
        DescribedConfig retention = find(ConfigDescriber.describeTopic(TopicConfig.resolve(Map.of(), broker), broker),
                "retention.ms");
        assertEquals("86400000", retention.value());
        assertEquals(DEFAULT_CONFIG, retention.source());
        assertEquals(List.of(), retention.synonyms());
        DescribedConfig remote = find(ConfigDescriber.describeTopic(TopicConfig.resolve(Map.of(), broker), broker),
                "remote.storage.enable");
        assertEquals("false", remote.value());
        assertEquals(List.of(), remote.synonyms());
    }

    @Test
    void describeBroker() {
        BrokerConfig broker = BrokerConfig.from(Map.of("log.retention.hours", "24", "ssl.keystore.password", "pw",
                "log.dirs", "/d")).withDynamicConfigs(Map.of(), Map.of("num.io.threads", "4"));
        List<DescribedConfig> described = ConfigDescriber.describeBroker(broker);

        DescribedConfig hours = find(described, "log.retention.hours");
        assertEquals("24", hours.value());
        assertEquals(STATIC_BROKER_CONFIG, hours.source());
        assertEquals(List.of(new ConfigSynonym("log.retention.hours", "24", STATIC_BROKER_CONFIG),
                new ConfigSynonym("log.retention.hours", "168", DEFAULT_CONFIG)), hours.synonyms());
        assertFalse(hours.readOnly());

        DescribedConfig ms = find(described, "log.retention.ms");
        assertNull(ms.value());
        assertEquals(DEFAULT_CONFIG, ms.source());

        DescribedConfig dirs = find(described, "log.dirs");
        assertTrue(dirs.readOnly());
        assertEquals("/d", dirs.value());

        DescribedConfig password = find(described, "ssl.keystore.password");
        assertTrue(password.sensitive());
        assertNull(password.value());
        assertEquals(List.of(new ConfigSynonym("ssl.keystore.password", null, STATIC_BROKER_CONFIG)),
                password.synonyms());
        assertEquals(9, password.type().id());

        DescribedConfig io = find(described, "num.io.threads");
        assertEquals("4", io.value());
        assertEquals(DYNAMIC_DEFAULT_BROKER_CONFIG, io.source());

        List<DescribedConfig> clusterDefault = ConfigDescriber.describeClusterDefault(broker);
        assertEquals(1, clusterDefault.size());
        assertEquals(List.of(new ConfigSynonym("num.io.threads", "4", DYNAMIC_DEFAULT_BROKER_CONFIG)),
                clusterDefault.get(0).synonyms());
    }

    @Test
    void everyTopicKeyWithABrokerSynonymIsABrokerKey() {
        for (ConfigKey key : TopicConfigDefs.DEF.keys()) {
            for (TopicConfigSynonyms.BrokerSynonym s : TopicConfigSynonyms.of(key.name())) {
                assertTrue(BrokerConfigDefs.DEF.contains(s.name()), s.name());
            }
        }
        assertEquals(TopicConfigDefs.DEF.names().size(), BrokerConfig.from(Map.of()).topicDefaults().size());
    }
}
