package io.krill.broker.group;

import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import java.util.Map;

/**
 * Creates {@code __consumer_offsets}: {@code offsets.topic.num.partitions} partitions, replication
 * factor {@code offsets.topic.replication.factor} capped by the live brokers (so one node works),
 * compacted, internal, segments of {@code offsets.topic.segment.bytes}, batches kept as the coordinator
 * compressed them. Stateless.
 */
public final class OffsetsTopic {
    private OffsetsTopic() {
    }

    /** The topic as it is created on first use: its replication factor bounded by the live brokers. */
    public static NewTopic spec(MetadataStore metadata, GroupConfig config) {
        int liveBrokers = Math.max(1, metadata.image().brokers().size());
        int replicationFactor = Math.min(config.offsetsTopicReplicationFactor(), liveBrokers);
        Map<String, String> configs = Map.of(
                "cleanup.policy", "compact",
                "compression.type", "producer",
                "segment.bytes", Integer.toString(config.offsetsTopicSegmentBytes()));
        return new NewTopic(GroupCoordinator.TOPIC, config.offsetsTopicNumPartitions(),
                replicationFactor, Map.of(), configs, true);
    }
}
