package io.krill.broker.share.dlq;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.TopicConfig;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.TopicImage;
import java.util.Map;

/**
 * The rules of a share group's dead-letter topic, as Kafka 4.4 applies them
 * ({@code ShareGroupDLQStateManager.ProduceRequestHandler.validateDlqTopic} and {@code createTopicBuilder}):
 * which topic names and topics are refused, with Kafka's messages; the topic created when it is missing;
 * the partition a source partition's records go to.
 *
 * <p>Stateless; thread-safe.
 */
public final class DeadLetterTopics {
    /** The topic config that lets share groups write their dead letters to a topic. */
    public static final String GROUP_ENABLE = "errors.deadletterqueue.group.enable";

    private DeadLetterTopics() {
    }

    /**
     * Why {@code groupId} may not write to its dead-letter topic {@code topic} now, or null when it may (the
     * topic exists with {@value #GROUP_ENABLE}, or is missing and may be created). Checked in Kafka's order:
     * empty name, a name starting with {@code __}, an existing topic without {@value #GROUP_ENABLE}=true, a
     * missing topic without auto-creation, a name without the broker's prefix.
     *
     * @param image  the metadata image (the topic's configs are read from it)
     * @param broker the broker configuration (prefix, auto-creation, defaults of topic configs)
     */
    public static ConfigException refusal(String groupId, String topic, MetadataImage image, BrokerConfig broker) {
        if (topic == null || topic.isEmpty()) {
            return new ConfigException(String.format("Configured DLQ topic name in share group: %s is empty.", groupId));
        }
        if (topic.startsWith("__")) {
            return new ConfigException(String.format(
                    "Configured DLQ topic name in share group: %s cannot start with __, topic: %s.", groupId, topic));
        }
        TopicImage existing = image.topic(topic);
        if (existing != null && !TopicConfig.resolve(existing.configs(), broker).deadLetterGroupEnable()) {
            return new ConfigException(String.format(
                    "DLQ is not enabled on configured DLQ topic for share group: %s, topic: %s.", groupId, topic));
        }
        if (existing == null && !broker.shareGroup().deadLetterAutoCreateTopics()) {
            return new ConfigException(String.format(
                    "DLQ topic does not exist and auto create is disabled on cluster for share group: %s, topic: %s.",
                    groupId, topic));
        }
        String prefix = broker.shareGroup().deadLetterTopicPrefix();
        if (prefix != null && !prefix.isEmpty() && !topic.startsWith(prefix)) {
            return new ConfigException(String.format("Configured DLQ topic name does not comply with the DLQ topic "
                    + "prefix in share group: %s, topic: %s, prefix: %s.", groupId, topic, prefix));
        }
        return null;
    }

    /**
     * The dead-letter topic {@code topic} as it is created when missing: the broker's {@code num.partitions}
     * and {@code default.replication.factor}, the latter capped by the live brokers (so a single broker works,
     * as for Krill's internal topics; Kafka asks its controller for the defaults uncapped), with
     * {@value #GROUP_ENABLE}=true and {@code message.timestamp.type=CreateTime}, as Kafka creates it.
     */
    public static NewTopic spec(String topic, BrokerConfig broker, int liveBrokers) {
        int replicationFactor = Math.min(broker.replication().defaultReplicationFactor(), Math.max(1, liveBrokers));
        return new NewTopic(topic, broker.log().numPartitions(), replicationFactor, Map.of(),
                Map.of(GROUP_ENABLE, "true", "message.timestamp.type", "CreateTime"), false);
    }

    /** The dead-letter partition of source partition {@code sourcePartition}: its index modulo the partition count. */
    public static int partitionFor(int sourcePartition, int partitionCount) {
        if (partitionCount <= 0) {
            throw new IllegalArgumentException("a topic of " + partitionCount + " partitions");
        }
        return sourcePartition % partitionCount;
    }
}
