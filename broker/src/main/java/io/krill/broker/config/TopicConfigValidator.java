package io.krill.broker.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Validates topic config changes (CreateTopics configs, AlterConfigs, IncrementalAlterConfigs) with the messages
 * Kafka returns, e.g. {@code Invalid value x for configuration retention.ms: Not a number of type LONG} or
 * {@code Unknown topic config name: foo}. Every failure is a {@link ConfigException}; request handlers answer it
 * with INVALID_CONFIG and its message (the duplicate-key case is INVALID_REQUEST in Kafka). Stateless.
 */
public final class TopicConfigValidator {
    private TopicConfigValidator() {
    }

    /**
     * Validates a full set of topic overrides (CreateTopics, or AlterConfigs which replaces them all).
     *
     * @return the overrides, sorted
     * @throws ConfigException for a null value, an unknown key, a bad value or conflicting values
     */
    public static Map<String, String> validate(Map<String, String> configs, BrokerConfig broker) {
        Set<String> nulls = new TreeSet<>();
        configs.forEach((k, v) -> {
            if (v == null) {
                nulls.add(k);
            }
        });
        if (!nulls.isEmpty()) {
            throw new ConfigException("Null value not supported for topic configs: " + String.join(",", nulls));
        }
        for (String name : new TreeSet<>(configs.keySet())) {
            ConfigKey key = TopicConfigDefs.DEF.find(name)
                    .orElseThrow(() -> new ConfigException("Unknown topic config name: " + name));
            key.parse(configs.get(name));
        }
        TopicConfig effective = TopicConfig.resolve(configs, broker);
        if (effective.remoteStorageEnable()) {
            throw new ConfigException("Tiered Storage functionality is disabled in the broker. "
                    + "Topic cannot be configured with remote log storage.");
        }
        if (effective.minCompactionLagMs() > effective.maxCompactionLagMs()) {
            throw new ConfigException("conflict topic config setting min.compaction.lag.ms ("
                    + effective.minCompactionLagMs() + ") > max.compaction.lag.ms (" + effective.maxCompactionLagMs()
                    + ")");
        }
        return new TreeMap<>(configs);
    }

    /**
     * Applies IncrementalAlterConfigs operations to a topic's current overrides and validates the result.
     * APPEND adds the items not yet in the list and SUBTRACT removes items, both on LIST keys only, starting from
     * the topic's value or, if it has none, the broker's default.
     *
     * @return the new overrides, sorted
     * @throws ConfigException if an operation or the resulting overrides are invalid
     */
    public static Map<String, String> applyIncremental(Map<String, String> current, List<AlterConfigOp> ops,
                                                       BrokerConfig broker) {
        Set<String> seen = new HashSet<>();
        for (AlterConfigOp op : ops) {
            if (!seen.add(op.name())) {
                throw new ConfigException("Error due to duplicate config keys");
            }
        }
        Map<String, String> result = new TreeMap<>(current);
        for (AlterConfigOp op : ops) {
            switch (op.op()) {
                case SET -> {
                    if (op.value() == null) {
                        throw new ConfigException("Null value not supported for topic configs: " + op.name());
                    }
                    result.put(op.name(), op.value());
                }
                case DELETE -> result.remove(op.name());
                case APPEND, SUBTRACT -> result.put(op.name(), applyListOp(result, op, broker));
                default -> throw new IllegalStateException("Unexpected op " + op.op());
            }
        }
        return validate(result, broker);
    }

    private static String applyListOp(Map<String, String> current, AlterConfigOp op, BrokerConfig broker) {
        ConfigKey key = TopicConfigDefs.DEF.find(op.name())
                .orElseThrow(() -> new ConfigException("Unknown topic config name: " + op.name()));
        if (key.type() != ConfigType.LIST) {
            throw new ConfigException("Can't " + op.op() + " to key " + op.name() + " because its type is not LIST.");
        }
        if (op.value() == null) {
            throw new ConfigException("Null value not supported for topic configs: " + op.name());
        }
        List<String> list = new ArrayList<>(currentList(current, op.name(), broker));
        List<String> items = ConfigType.splitList(op.value());
        if (op.op() == AlterConfigOp.OpType.APPEND) {
            for (String item : items) {
                if (!list.contains(item)) {
                    list.add(item);
                }
            }
        } else {
            list.removeAll(items);
        }
        return String.join(",", list);
    }

    /** The topic's list value, or the broker's default for it when the topic does not set it. */
    private static List<String> currentList(Map<String, String> current, String name, BrokerConfig broker) {
        String raw = current.get(name);
        if (raw != null) {
            return ConfigType.splitList(raw);
        }
        List<String> result = new ArrayList<>();
        if (broker.topicDefaults().get(name) instanceof List<?> defaults) {
            defaults.forEach(d -> result.add(String.valueOf(d)));
        }
        return result;
    }
}
