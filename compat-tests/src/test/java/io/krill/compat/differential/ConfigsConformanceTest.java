package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Configs and quotas as kafka-configs and the Admin client send them: DescribeConfigs,
 * IncrementalAlterConfigs and AlterConfigs (unknown topic, unknown config, invalid value, validate_only),
 * DescribeClientQuotas.
 */
class ConfigsConformanceTest extends DifferentialTest {
    /** Topic configs whose defaults and metadata both brokers must describe alike. */
    private static final List<String> TOPIC_KEYS = List.of("cleanup.policy", "retention.ms", "retention.bytes",
            "segment.bytes", "max.message.bytes", "min.insync.replicas", "compression.type",
            "message.timestamp.type", "unclean.leader.election.enable", "errors.deadletterqueue.group.enable");

    // ---- DescribeConfigs

    @Test
    void describeConfigsOfAnUnknownTopic() {
        sequence("DescribeConfigs of an unknown topic", ApiKeys.DESCRIBE_CONFIGS)
                .request((side, version) -> ClientRequests.describeTopicConfigs("diff-dc-unknown"))
                .expect("/results/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void describeConfigsOfCommonTopicConfigs() {
        both(side -> side.createTopic("diff-dc-keys", 1));
        sequence("DescribeConfigs of common topic configs, defaults", ApiKeys.DESCRIBE_CONFIGS)
                .request((side, version) -> ClientRequests.describeTopicConfigs("diff-dc-keys", TOPIC_KEYS))
                .unordered("/results/0/configs", "name")
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- IncrementalAlterConfigs

    @Test
    void incrementalAlterConfigsOfAnUnknownTopic() {
        sequence("IncrementalAlterConfigs of an unknown topic", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalSetTopicConfig("diff-iac-unknown", "retention.ms",
                        "1000", false))
                .expect("/responses/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void incrementalAlterConfigsOfAnUnknownConfig() {
        both(side -> side.createTopic("diff-iac-config", 1));
        sequence("IncrementalAlterConfigs of an unknown config", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalSetTopicConfig("diff-iac-config",
                        "no.such.config", "1", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
    }

    @Test
    void incrementalAlterConfigsWithAnInvalidValue() {
        both(side -> side.createTopic("diff-iac-value", 1));
        sequence("IncrementalAlterConfigs retention.ms=soon", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalSetTopicConfig("diff-iac-value", "retention.ms",
                        "soon", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
    }

    @Test
    void incrementalAlterConfigsValidateOnly() {
        both(side -> side.createTopic("diff-iac-validate", 1));
        sequence("IncrementalAlterConfigs validate_only retention.ms=1000", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalSetTopicConfig("diff-iac-validate",
                        "retention.ms", "1000", true))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs after validate_only (unchanged)", ApiKeys.DESCRIBE_CONFIGS)
                .from(highest(ApiKeys.DESCRIBE_CONFIGS))
                .request((side, version) -> ClientRequests.describeTopicConfigs("diff-iac-validate",
                        List.of("retention.ms")))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void incrementalAlterConfigsSetsATopicConfig() {
        both(side -> side.createTopic("diff-iac-set", 1));
        sequence("IncrementalAlterConfigs retention.ms=3600000", ApiKeys.INCREMENTAL_ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.incrementalSetTopicConfig("diff-iac-set", "retention.ms",
                        "3600000", false))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
        sequence("DescribeConfigs of the config set", ApiKeys.DESCRIBE_CONFIGS)
                .request((side, version) -> ClientRequests.describeTopicConfigs("diff-iac-set", List.of("retention.ms")))
                .expect("/results/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- AlterConfigs

    @Test
    void alterConfigsOfAnUnknownTopic() {
        sequence("AlterConfigs of an unknown topic", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.alterTopicConfig("diff-ac-unknown", "retention.ms", "1000",
                        false))
                .expect("/responses/0/errorCode", Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .run();
    }

    @Test
    void alterConfigsOfAnUnknownConfig() {
        both(side -> side.createTopic("diff-ac-config", 1));
        sequence("AlterConfigs of an unknown config", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.alterTopicConfig("diff-ac-config", "no.such.config", "1",
                        false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
    }

    @Test
    void alterConfigsWithAnInvalidValue() {
        both(side -> side.createTopic("diff-ac-value", 1));
        sequence("AlterConfigs cleanup.policy=sometimes", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.alterTopicConfig("diff-ac-value", "cleanup.policy",
                        "sometimes", false))
                .expect("/responses/0/errorCode", Errors.INVALID_CONFIG)
                .run();
    }

    @Test
    void alterConfigsValidateOnly() {
        both(side -> side.createTopic("diff-ac-validate", 1));
        sequence("AlterConfigs validate_only retention.ms=1000", ApiKeys.ALTER_CONFIGS)
                .request((side, version) -> ClientRequests.alterTopicConfig("diff-ac-validate", "retention.ms", "1000",
                        true))
                .expect("/responses/0/errorCode", Errors.NONE)
                .run();
    }

    // ---- DescribeClientQuotas

    @Test
    void describeClientQuotasOfAUserWithout() {
        sequence("DescribeClientQuotas of a user without quotas", ApiKeys.DESCRIBE_CLIENT_QUOTAS)
                .request((side, version) -> ClientRequests.describeClientQuotas("user", "diff-nobody", false))
                .expect("/errorCode", Errors.NONE)
                .run();
    }

    @Test
    void describeClientQuotasOfAnUnknownEntityType() {
        sequence("DescribeClientQuotas of an unknown entity type", ApiKeys.DESCRIBE_CLIENT_QUOTAS)
                .request((side, version) -> ClientRequests.describeClientQuotas("planet", "mars", true))
                .expect("/errorCode", Errors.UNSUPPORTED_VERSION)
                .run();
    }
}
