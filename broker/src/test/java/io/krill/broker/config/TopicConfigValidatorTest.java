package io.krill.broker.config;

import static io.krill.broker.config.AlterConfigOp.OpType.APPEND;
import static io.krill.broker.config.AlterConfigOp.OpType.DELETE;
import static io.krill.broker.config.AlterConfigOp.OpType.SET;
import static io.krill.broker.config.AlterConfigOp.OpType.SUBTRACT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicConfigValidatorTest {
    private static final BrokerConfig BROKER = BrokerConfig.from(Map.of());

    private static String error(Map<String, String> configs) {
        return assertThrows(ConfigException.class, () -> TopicConfigValidator.validate(configs, BROKER)).getMessage();
    }

    private static Map<String, String> apply(Map<String, String> current, AlterConfigOp... ops) {
        return TopicConfigValidator.applyIncremental(current, List.of(ops), BROKER);
    }

    private static String applyError(Map<String, String> current, AlterConfigOp... ops) {
        return assertThrows(ConfigException.class, () -> apply(current, ops)).getMessage();
    }

    @Test
    void validValuesPass() {
        assertEquals(Map.of("retention.ms", " 1000 ", "cleanup.policy", "compact"),
                TopicConfigValidator.validate(Map.of("retention.ms", " 1000 ", "cleanup.policy", "compact"), BROKER));
        TopicConfigValidator.validate(Map.of("leader.replication.throttled.replicas", "0:1,1:2",
                "follower.replication.throttled.replicas", "*", "remote.storage.enable", "false"), BROKER);
    }

    @Test
    void invalidValuesGiveKafkasMessages() {
        assertEquals("Invalid value x for configuration retention.ms: Not a number of type LONG",
                error(Map.of("retention.ms", "x")));
        assertEquals("Invalid value -2 for configuration retention.ms: Value must be at least -1",
                error(Map.of("retention.ms", "-2")));
        assertEquals("Unknown topic config name: retention.hours", error(Map.of("retention.hours", "1")));
        Map<String, String> withNull = new HashMap<>();
        withNull.put("retention.ms", null);
        assertEquals("Null value not supported for topic configs: retention.ms", error(withNull));
        assertEquals("Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete",
                error(Map.of("cleanup.policy", "compact,foo")));
        assertEquals("Invalid value LZ4 for configuration compression.type: String must be one of: uncompressed, "
                + "zstd, lz4, snappy, gzip, producer", error(Map.of("compression.type", "LZ4")));
        assertEquals("conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)",
                error(Map.of("min.compaction.lag.ms", "10", "max.compaction.lag.ms", "5")));
        assertEquals("Tiered Storage functionality is disabled in the broker. Topic cannot be configured with "
                + "remote log storage.", error(Map.of("remote.storage.enable", "true")));
        assertEquals("Invalid value [x] for configuration leader.replication.throttled.replicas: must be the literal "
                + "'*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:"
                + "[brokerId],...", error(Map.of("leader.replication.throttled.replicas", "x")));
        assertEquals("Invalid value 10 for configuration compression.gzip.level: Value must be between 1 and 9, or -1",
                error(Map.of("compression.gzip.level", "10")));
    }

    @Test
    void setAndDelete() {
        assertEquals(Map.of("retention.ms", "5", "segment.ms", "100"),
                apply(Map.of("retention.ms", "1", "flush.ms", "9"), new AlterConfigOp("retention.ms", SET, "5"),
                        new AlterConfigOp("segment.ms", SET, "100"), new AlterConfigOp("flush.ms", DELETE, null)));
        assertEquals(Map.of(), apply(Map.of(), new AlterConfigOp("flush.ms", DELETE, null)));
        assertEquals("Invalid value abc for configuration segment.ms: Not a number of type LONG",
                applyError(Map.of(), new AlterConfigOp("segment.ms", SET, "abc")));
    }

    @Test
    void appendAndSubtractOnLists() {
        assertEquals(Map.of("cleanup.policy", "delete,compact"),
                apply(Map.of(), new AlterConfigOp("cleanup.policy", APPEND, "compact")));
        assertEquals(Map.of("cleanup.policy", "delete,compact"),
                apply(Map.of("cleanup.policy", "delete"),
                        new AlterConfigOp("cleanup.policy", APPEND, "compact,delete")));
        assertEquals(Map.of("cleanup.policy", "compact"),
                apply(Map.of("cleanup.policy", "delete,compact"),
                        new AlterConfigOp("cleanup.policy", SUBTRACT, "delete")));
        assertEquals(Map.of("cleanup.policy", ""),
                apply(Map.of(), new AlterConfigOp("cleanup.policy", SUBTRACT, "delete")));
        assertEquals(Map.of("leader.replication.throttled.replicas", "0:1,1:2"),
                apply(Map.of("leader.replication.throttled.replicas", "0:1"),
                        new AlterConfigOp("leader.replication.throttled.replicas", APPEND, "1:2")));
    }

    @Test
    void listOpsRejectedOnOtherTypesAndBadRequests() {
        assertEquals("Can't APPEND to key retention.ms because its type is not LIST.",
                applyError(Map.of(), new AlterConfigOp("retention.ms", APPEND, "1")));
        assertEquals("Can't SUBTRACT to key preallocate because its type is not LIST.",
                applyError(Map.of(), new AlterConfigOp("preallocate", SUBTRACT, "true")));
        assertEquals("Unknown topic config name: nope", applyError(Map.of(), new AlterConfigOp("nope", APPEND, "1")));
        assertEquals("Unknown topic config name: nope", applyError(Map.of(), new AlterConfigOp("nope", SET, "1")));
        assertEquals("Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete",
                applyError(Map.of(), new AlterConfigOp("cleanup.policy", APPEND, "foo")));
        assertEquals("Error due to duplicate config keys", applyError(Map.of(),
                new AlterConfigOp("retention.ms", SET, "1"), new AlterConfigOp("retention.ms", DELETE, null)));
        assertEquals(APPEND, AlterConfigOp.OpType.forId(2));
    }
}
