package io.krill.broker.config;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks the configs of one group (ConfigResource GROUP) as Kafka 4.4's controller does before storing them:
 * every key is a group key ("Unknown group config name"), every value parses and passes the key's validator,
 * and the values that have broker bounds lie within them ({@code share.session.timeout.ms} within
 * {@code group.share.min/max.session.timeout.ms}, and so on), with Kafka's messages. The bounds are this
 * broker's, so a broker with other bounds may judge a stored config differently; as in Kafka, the check is
 * made when the config is set. Stateless.
 */
public final class GroupConfigValidator {
    private GroupConfigValidator() {
    }

    /**
     * {@code ops} applied to a group's {@code current} configs, then validated as a whole.
     *
     * @throws ConfigException with Kafka's message if the result is not valid
     */
    public static Map<String, String> applyIncremental(Map<String, String> current, List<AlterConfigOp> ops,
                                                       BrokerConfig broker) {
        Map<String, String> result = new TreeMap<>(current);
        for (AlterConfigOp op : ops) {
            switch (op.op()) {
                case SET -> result.put(op.name(), op.value());
                case DELETE -> result.remove(op.name());
                case APPEND, SUBTRACT -> {
                    ConfigKey key = known(op.name());
                    if (key.type() != ConfigType.LIST) {
                        throw new ConfigException("Can't " + op.op() + " to key " + op.name()
                                + " because its type is not LIST.");
                    }
                    result.put(op.name(), op.applyToList(result.get(op.name())));
                }
                default -> throw new IllegalStateException("Unexpected op " + op.op());
            }
        }
        return validate(result, broker);
    }

    /**
     * Validates a group's whole set of configs (AlterConfigs replaces it).
     *
     * @return {@code configs}, sorted
     * @throws ConfigException with Kafka's message if a key is unknown or a value invalid or out of bounds
     */
    public static Map<String, String> validate(Map<String, String> configs, BrokerConfig broker) {
        for (String name : configs.keySet()) {
            known(name);
        }
        Map<String, String> sorted = new TreeMap<>(configs);
        sorted.forEach((name, raw) -> checkBounds(name, GroupConfigKeys.DEF.key(name).parse(raw), broker));
        return sorted;
    }

    private static ConfigKey known(String name) {
        return GroupConfigKeys.find(name)
                .orElseThrow(() -> new ConfigException("Unknown group config name: " + name));
    }

    private static void checkBounds(String name, Object value, BrokerConfig broker) {
        ShareGroupSettings share = broker.shareGroup();
        GroupSettings group = broker.group();
        switch (name) {
            case "consumer.session.timeout.ms" -> range(name, value, group.consumerMinSessionTimeoutMs(),
                    group.consumerMaxSessionTimeoutMs());
            case "consumer.heartbeat.interval.ms" -> range(name, value, group.consumerMinHeartbeatIntervalMs(),
                    group.consumerMaxHeartbeatIntervalMs());
            // Krill does not define group.consumer/streams.min/max.* assignment keys: Kafka's defaults.
            case "consumer.assignment.interval.ms", "streams.assignment.interval.ms" -> range(name, value, 0, 15000);
            case "share.session.timeout.ms" -> range(name, value, share.minSessionTimeoutMs(),
                    share.maxSessionTimeoutMs());
            case "share.heartbeat.interval.ms" -> range(name, value, share.minHeartbeatIntervalMs(),
                    share.maxHeartbeatIntervalMs());
            case "share.record.lock.duration.ms" -> range(name, value, share.minRecordLockDurationMs(),
                    share.maxRecordLockDurationMs());
            case "share.delivery.count.limit" -> range(name, value, share.minDeliveryCountLimit(),
                    share.maxDeliveryCountLimit());
            case "share.partition.max.record.locks" -> range(name, value, share.minPartitionMaxRecordLocks(),
                    share.maxPartitionMaxRecordLocks());
            case "share.assignment.interval.ms" -> range(name, value, share.minAssignmentIntervalMs(),
                    share.maxAssignmentIntervalMs());
            case "errors.deadletterqueue.topic.name" -> {
                if (value != null && value.toString().startsWith("__")) {
                    throw new ConfigException(name + ": DLQ topic name must not start with '__'");
                }
            }
            case "streams.session.timeout.ms" -> range(name, value, 45000, 60000);
            case "streams.heartbeat.interval.ms" -> range(name, value, 5000, 15000);
            case "streams.num.standby.replicas" -> atMost(name, value, 2);
            case "streams.num.warmup.replicas" -> atMost(name, value, 20);
            case "streams.task.offset.interval.ms" -> {
                if (((Number) value).longValue() < 15000) {
                    throw new ConfigException(name + " must be greater than or equal to 15000");
                }
            }
            case "streams.assignor.name" -> {
                if (value != null && !GroupConfigKeys.STREAMS_ASSIGNORS.contains(value.toString())) {
                    throw new ConfigException(name + " '" + value + "' is not a registered task assignor. "
                            + "Registered assignors are: " + GroupConfigKeys.STREAMS_ASSIGNORS + ".");
                }
            }
            default -> {
            }
        }
    }

    private static void range(String name, Object value, int min, int max) {
        long v = ((Number) value).longValue();
        if (v < min || v > max) {
            throw new ConfigException(name + " must be in the range " + min + " to " + max + " inclusive.");
        }
    }

    private static void atMost(String name, Object value, int max) {
        if (((Number) value).longValue() > max) {
            throw new ConfigException(name + " must be less than or equal to " + max);
        }
    }
}
