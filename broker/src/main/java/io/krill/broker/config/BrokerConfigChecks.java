package io.krill.broker.config;

import java.util.Map;

/**
 * Rules that involve several broker keys, with Kafka's error wording where Kafka has the rule. Stateless.
 */
final class BrokerConfigChecks {
    private BrokerConfigChecks() {
    }

    /**
     * Reconciles the synonyms node.id and broker.id in {@code merged}: if only one is set, both get its value.
     *
     * @return the node id (-1 if neither is set)
     * @throws ConfigException if both are set to different values
     */
    static int reconcileNodeId(Map<String, String> merged) {
        String nodeRaw = merged.get("node.id");
        String brokerRaw = merged.get("broker.id");
        ConfigDef def = BrokerConfigDefs.DEF;
        Integer nodeId = nodeRaw == null ? null : (Integer) def.parseValue("node.id", nodeRaw);
        Integer brokerId = brokerRaw == null ? null : (Integer) def.parseValue("broker.id", brokerRaw);
        if (nodeId != null && brokerId != null && !nodeId.equals(brokerId)) {
            throw new ConfigException("broker.id (" + brokerId + ") and node.id (" + nodeId
                    + ") are synonyms and must be equal if both are set");
        }
        Integer id = nodeId != null ? nodeId : brokerId;
        if (id == null) {
            return -1;
        }
        merged.put("node.id", id.toString());
        merged.put("broker.id", id.toString());
        return id;
    }

    /** @throws ConfigException for the first broken rule */
    static void check(ConfigValues v, int nodeId) {
        int maxReserved = v.getInt("reserved.broker.max.id");
        if (v.getBoolean("broker.id.generation.enable")) {
            require(nodeId >= -1 && nodeId <= maxReserved, "broker.id must be greater than or equal to -1 and "
                    + "not greater than reserved.broker.max.id (" + maxReserved + ")");
        } else {
            require(nodeId >= 0, "broker.id must be greater than or equal to 0 when broker.id.generation.enable "
                    + "is false");
        }
        require(v.getInt("replica.fetch.wait.max.ms") <= v.getLong("replica.lag.time.max.ms"),
                "replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms "
                        + "to prevent frequent changes in ISR");
        require(v.getInt("replica.socket.timeout.ms") >= v.getInt("replica.fetch.wait.max.ms"),
                "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms "
                        + "to prevent unnecessary socket timeouts");
        long queuedMaxBytes = v.getLong("queued.max.request.bytes");
        require(queuedMaxBytes <= 0 || queuedMaxBytes >= v.getInt("socket.request.max.bytes"),
                "queued.max.request.bytes must be larger or equal to socket.request.max.bytes");
        require(v.getInt("group.min.session.timeout.ms") <= v.getInt("group.max.session.timeout.ms"),
                "group.max.session.timeout.ms must be greater than or equal to group.min.session.timeout.ms");
        atLeast(v, "group.consumer.max.session.timeout.ms", "group.consumer.min.session.timeout.ms");
        atLeast(v, "group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms");
        atLeast(v, "group.consumer.max.session.timeout.ms", "group.consumer.session.timeout.ms");
        atLeast(v, "group.consumer.max.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms");
        atLeast(v, "group.consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms");
        atLeast(v, "group.consumer.max.heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms");
        require(v.getInt("group.consumer.heartbeat.interval.ms") < v.getInt("group.consumer.session.timeout.ms"),
                "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms");
        checkShareGroupBounds(v);
        require(v.getList("group.coordinator.rebalance.protocols").contains("classic"),
                "Disabling the 'classic' protocol is not supported.");
        require(v.getLong("log.cleaner.min.compaction.lag.ms") <= v.getLong("log.cleaner.max.compaction.lag.ms"),
                "log.cleaner.min.compaction.lag.ms must not be greater than log.cleaner.max.compaction.lag.ms");
        SocketSettings.parseConnectionOverrides(v.getString("max.connections.per.ip.overrides"));
    }

    /** Each share-group default within its group-config bounds, as Kafka checks them at startup. */
    private static void checkShareGroupBounds(ConfigValues v) {
        String p = "group.share.";
        atLeast(v, p + "session.timeout.ms", p + "min.session.timeout.ms");
        atMost(v, p + "session.timeout.ms", p + "max.session.timeout.ms");
        atLeast(v, p + "heartbeat.interval.ms", p + "min.heartbeat.interval.ms");
        atMost(v, p + "heartbeat.interval.ms", p + "max.heartbeat.interval.ms");
        require(v.getInt(p + "heartbeat.interval.ms") < v.getInt(p + "session.timeout.ms"),
                p + "heartbeat.interval.ms must be less than " + p + "session.timeout.ms");
        atLeast(v, p + "record.lock.duration.ms", p + "min.record.lock.duration.ms");
        atLeast(v, p + "max.record.lock.duration.ms", p + "record.lock.duration.ms");
        atLeast(v, p + "delivery.count.limit", p + "min.delivery.count.limit");
        atLeast(v, p + "max.delivery.count.limit", p + "delivery.count.limit");
        atLeast(v, p + "partition.max.record.locks", p + "min.partition.max.record.locks");
        atLeast(v, p + "max.partition.max.record.locks", p + "partition.max.record.locks");
        atLeast(v, p + "assignment.interval.ms", p + "min.assignment.interval.ms");
        atMost(v, p + "assignment.interval.ms", p + "max.assignment.interval.ms");
    }

    private static void atMost(ConfigValues v, String smaller, String larger) {
        require(v.getInt(smaller) <= v.getInt(larger), smaller + " must be less than or equal to " + larger);
    }

    private static void atLeast(ConfigValues v, String larger, String smaller) {
        require(v.getInt(larger) >= v.getInt(smaller), larger + " must be greater than or equal to " + smaller);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new ConfigException(message);
        }
    }
}
