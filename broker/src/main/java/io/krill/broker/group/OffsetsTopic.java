package io.krill.broker.group;

import io.krill.broker.coordinator.InternalTopic;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;

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
        return new InternalTopic(GroupCoordinator.TOPIC, config.offsetsTopicNumPartitions(),
                config.offsetsTopicReplicationFactor(), 0, "producer", config.offsetsTopicSegmentBytes()).spec(metadata);
    }
}
