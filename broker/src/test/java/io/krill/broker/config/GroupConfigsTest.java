package io.krill.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.MetadataImage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Group configs (ConfigResource GROUP): validation with Kafka 4.4's messages, DescribeConfigs, the lookup. */
class GroupConfigsTest {
    private static final BrokerConfig BROKER = BrokerConfig.from(Map.of());

    private static String error(String key, String value) {
        return assertThrows(ConfigException.class,
                () -> GroupConfigValidator.validate(Map.of(key, value), BROKER)).getMessage();
    }

    @Test
    void valuesAreCheckedAsKafkaChecksThem() {
        assertEquals("Unknown group config name: no.such", error("no.such", "1"));
        assertEquals("share.session.timeout.ms must be in the range 45000 to 60000 inclusive.",
                error("share.session.timeout.ms", "1000"));
        assertEquals("share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.",
                error("share.record.lock.duration.ms", "70000"));
        assertEquals("Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000",
                error("share.record.lock.duration.ms", "500"));
        assertEquals("share.delivery.count.limit must be in the range 2 to 10 inclusive.",
                error("share.delivery.count.limit", "11"));
        assertEquals("share.partition.max.record.locks must be in the range 100 to 4000 inclusive.",
                error("share.partition.max.record.locks", "5000"));
        assertEquals("consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.",
                error("consumer.heartbeat.interval.ms", "20000"));
        assertEquals("Invalid value middle for configuration share.auto.offset.reset: Invalid value `middle` for "
                + "configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the "
                + "format 'by_duration:<PnDTnHnMn.nS>'.", error("share.auto.offset.reset", "middle"));
        assertTrue(error("share.auto.offset.reset", "by_duration:-PT1H").contains("by_duration:<PnDTnHnMn.nS>"));
        assertTrue(error("share.auto.offset.reset", "EARLIEST").contains("must be either"));
        assertEquals("Invalid value READ_COMMITTED for configuration share.isolation.level: String must be one of: "
                + "read_committed, read_uncommitted", error("share.isolation.level", "READ_COMMITTED"));
        assertEquals("streams.num.standby.replicas must be less than or equal to 2",
                error("streams.num.standby.replicas", "5"));
        assertEquals("streams.assignor.name 'nope' is not a registered task assignor. Registered assignors are: "
                + "[sticky].", error("streams.assignor.name", "nope"));
        GroupConfigValidator.validate(Map.of("share.auto.offset.reset", "by_duration:PT1H",
                "share.isolation.level", "read_committed", "share.record.lock.duration.ms", "20000"), BROKER);
    }

    @Test
    void boundsAreTheBrokers() {
        BrokerConfig wide = BrokerConfig.from(Map.of("group.share.max.record.lock.duration.ms", "120000"));
        assertEquals(Map.of("share.record.lock.duration.ms", "90000"),
                GroupConfigValidator.validate(Map.of("share.record.lock.duration.ms", "90000"), wide));
    }

    @Test
    void incrementalChangesSetDeleteAndAppend() {
        Map<String, String> set = GroupConfigValidator.applyIncremental(Map.of("share.auto.offset.reset", "latest"),
                List.of(new AlterConfigOp("share.auto.offset.reset", AlterConfigOp.OpType.SET, "earliest"),
                        new AlterConfigOp("streams.rack.aware.assignment.tags", AlterConfigOp.OpType.APPEND, "zone")),
                BROKER);
        assertEquals(Map.of("share.auto.offset.reset", "earliest", "streams.rack.aware.assignment.tags", "zone"), set);
        assertEquals(Map.of(), GroupConfigValidator.applyIncremental(Map.of("share.auto.offset.reset", "earliest"),
                List.of(new AlterConfigOp("share.auto.offset.reset", AlterConfigOp.OpType.DELETE, null)), BROKER));
        assertThrows(ConfigException.class, () -> GroupConfigValidator.applyIncremental(Map.of(),
                List.of(new AlterConfigOp("share.session.timeout.ms", AlterConfigOp.OpType.APPEND, "1")), BROKER));
    }

    @Test
    void describeListsTheGroupValueOverTheBrokerDefault() {
        BrokerConfig broker = BrokerConfig.from(Map.of("group.share.session.timeout.ms", "50000"));
        Map<String, DescribedConfig> described = new java.util.HashMap<>();
        ConfigDescriber.describeGroup(Map.of("share.auto.offset.reset", "earliest"), broker)
                .forEach(c -> described.put(c.name(), c));
        assertEquals(21, described.size());
        assertFalse(described.containsKey("share.assignor.offload.enable"));

        DescribedConfig reset = described.get("share.auto.offset.reset");
        assertEquals("earliest", reset.value());
        assertEquals(ConfigSource.GROUP_CONFIG, reset.source());
        assertEquals(List.of(new ConfigSynonym("share.auto.offset.reset", "earliest", ConfigSource.GROUP_CONFIG),
                new ConfigSynonym("share.auto.offset.reset", "latest", ConfigSource.DEFAULT_CONFIG)), reset.synonyms());

        DescribedConfig session = described.get("share.session.timeout.ms");
        assertEquals("50000", session.value());
        assertEquals(ConfigSource.STATIC_BROKER_CONFIG, session.source());
        assertEquals("group.share.session.timeout.ms", session.synonyms().get(0).name());

        DescribedConfig assignor = described.get("streams.assignor.name");
        assertEquals("sticky", assignor.value());
        assertEquals(List.of(new ConfigSynonym("group.streams.assignors", "sticky", ConfigSource.DEFAULT_CONFIG)),
                assignor.synonyms());
        assertFalse(assignor.readOnly());
    }

    @Test
    void lookupTakesTheGroupConfigElseTheBrokerDefault() {
        MetadataImage empty = new MetadataImage("c", 1, List.of(), List.of(), Map.of());
        AtomicReference<MetadataImage> image = new AtomicReference<>(empty);
        BrokerConfig broker = BrokerConfig.from(Map.of("group.share.delivery.count.limit", "7"));
        GroupConfigLookup lookup = new GroupConfigLookup(image::get, () -> broker);

        ShareGroupConfig defaults = lookup.of("g");
        assertEquals(new ShareGroupConfig("latest", false, 30_000, 7, 2_000, 45_000, 5_000), defaults);

        image.set(empty.withEntityConfigs(GroupConfigKeys.entity("g"), Map.of("share.auto.offset.reset",
                "earliest", "share.isolation.level", "read_committed", "share.record.lock.duration.ms", "20000",
                "consumer.session.timeout.ms", "50000")));
        assertEquals(new ShareGroupConfig("earliest", true, 20_000, 7, 2_000, 45_000, 5_000), lookup.of("g"));
        assertEquals(defaults, lookup.of("other"));
        assertEquals(new GroupConfigLookup.ConsumerGroupConfig(50_000, 5_000), lookup.consumer("g"));
    }
}
