package io.krill.broker.group;

import io.krill.broker.config.GroupSettings;

/**
 * What the group coordinator is configured by (the broker keys each comes from are listed). Immutable.
 *
 * @param offsetsTopicNumPartitions         offsets.topic.num.partitions
 * @param offsetsTopicReplicationFactor     offsets.topic.replication.factor (capped by the live brokers)
 * @param offsetsTopicSegmentBytes          offsets.topic.segment.bytes
 * @param offsetMetadataMaxBytes            offset.metadata.max.bytes
 * @param offsetsRetentionMs                offsets.retention.minutes
 * @param offsetsRetentionCheckIntervalMs   offsets.retention.check.interval.ms
 * @param minSessionTimeoutMs               group.min.session.timeout.ms
 * @param maxSessionTimeoutMs               group.max.session.timeout.ms
 * @param initialRebalanceDelayMs           group.initial.rebalance.delay.ms
 * @param maxSize                           group.max.size
 * @param consumerSessionTimeoutMs          group.consumer.session.timeout.ms (KIP-848 groups)
 * @param consumerHeartbeatIntervalMs       group.consumer.heartbeat.interval.ms (KIP-848 groups)
 * @param shareMaxSize                      group.share.max.size (KIP-932 share groups; Kafka's default 200)
 */
public record GroupConfig(int offsetsTopicNumPartitions, short offsetsTopicReplicationFactor,
                          int offsetsTopicSegmentBytes, int offsetMetadataMaxBytes, long offsetsRetentionMs,
                          long offsetsRetentionCheckIntervalMs, int minSessionTimeoutMs, int maxSessionTimeoutMs,
                          int initialRebalanceDelayMs, int maxSize, int consumerSessionTimeoutMs,
                          int consumerHeartbeatIntervalMs, int shareMaxSize) {
    /** Kafka's default of group.share.max.size. */
    public static final int DEFAULT_SHARE_MAX_SIZE = 200;

    /** The settings with Kafka's defaults for the share group keys. */
    public GroupConfig(int offsetsTopicNumPartitions, short offsetsTopicReplicationFactor, int offsetsTopicSegmentBytes,
                       int offsetMetadataMaxBytes, long offsetsRetentionMs, long offsetsRetentionCheckIntervalMs,
                       int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs, int maxSize,
                       int consumerSessionTimeoutMs, int consumerHeartbeatIntervalMs) {
        this(offsetsTopicNumPartitions, offsetsTopicReplicationFactor, offsetsTopicSegmentBytes, offsetMetadataMaxBytes,
                offsetsRetentionMs, offsetsRetentionCheckIntervalMs, minSessionTimeoutMs, maxSessionTimeoutMs,
                initialRebalanceDelayMs, maxSize, consumerSessionTimeoutMs, consumerHeartbeatIntervalMs,
                DEFAULT_SHARE_MAX_SIZE);
    }

    /** This config with another group.share.max.size. */
    public GroupConfig withShareMaxSize(int shareMaxSize) {
        return new GroupConfig(offsetsTopicNumPartitions, offsetsTopicReplicationFactor, offsetsTopicSegmentBytes,
                offsetMetadataMaxBytes, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, minSessionTimeoutMs,
                maxSessionTimeoutMs, initialRebalanceDelayMs, maxSize, consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs, shareMaxSize);
    }

    public static GroupConfig from(GroupSettings s) {
        return new GroupConfig(s.offsetsTopicNumPartitions(), s.offsetsTopicReplicationFactor(),
                s.offsetsTopicSegmentBytes(), s.offsetMetadataMaxBytes(), s.offsetsRetentionMs(),
                s.offsetsRetentionCheckIntervalMs(), s.minSessionTimeoutMs(), s.maxSessionTimeoutMs(),
                s.initialRebalanceDelayMs(), s.maxSize(), s.consumerSessionTimeoutMs(), s.consumerHeartbeatIntervalMs());
    }
}
