package io.krill.broker.config;

import java.util.List;

/** Typed view of the group coordinator and offset keys. Immutable and thread-safe. */
public final class GroupSettings {
    private final ConfigValues v;

    GroupSettings(ConfigValues v) {
        this.v = v;
    }

    public int offsetMetadataMaxBytes() {
        return v.getInt("offset.metadata.max.bytes");
    }

    public int offsetsLoadBufferSize() {
        return v.getInt("offsets.load.buffer.size");
    }

    public short offsetsTopicReplicationFactor() {
        return v.getShort("offsets.topic.replication.factor");
    }

    public int offsetsTopicNumPartitions() {
        return v.getInt("offsets.topic.num.partitions");
    }

    public int offsetsTopicSegmentBytes() {
        return v.getInt("offsets.topic.segment.bytes");
    }

    /** Kafka's codec id: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
    public int offsetsTopicCompressionCodec() {
        return v.getInt("offsets.topic.compression.codec");
    }

    public int offsetsRetentionMinutes() {
        return v.getInt("offsets.retention.minutes");
    }

    public long offsetsRetentionMs() {
        return offsetsRetentionMinutes() * 60_000L;
    }

    public long offsetsRetentionCheckIntervalMs() {
        return v.getLong("offsets.retention.check.interval.ms");
    }

    public int offsetsCommitTimeoutMs() {
        return v.getInt("offsets.commit.timeout.ms");
    }

    public int minSessionTimeoutMs() {
        return v.getInt("group.min.session.timeout.ms");
    }

    public int maxSessionTimeoutMs() {
        return v.getInt("group.max.session.timeout.ms");
    }

    public int initialRebalanceDelayMs() {
        return v.getInt("group.initial.rebalance.delay.ms");
    }

    public int maxSize() {
        return v.getInt("group.max.size");
    }

    /** Some of classic, consumer (and share, streams, which Krill does not implement). */
    public List<String> rebalanceProtocols() {
        return v.getList("group.coordinator.rebalance.protocols");
    }

    public int consumerSessionTimeoutMs() {
        return v.getInt("group.consumer.session.timeout.ms");
    }

    public int consumerMinSessionTimeoutMs() {
        return v.getInt("group.consumer.min.session.timeout.ms");
    }

    public int consumerMaxSessionTimeoutMs() {
        return v.getInt("group.consumer.max.session.timeout.ms");
    }

    public int consumerHeartbeatIntervalMs() {
        return v.getInt("group.consumer.heartbeat.interval.ms");
    }

    public int consumerMinHeartbeatIntervalMs() {
        return v.getInt("group.consumer.min.heartbeat.interval.ms");
    }

    public int consumerMaxHeartbeatIntervalMs() {
        return v.getInt("group.consumer.max.heartbeat.interval.ms");
    }

    public int consumerMaxSize() {
        return v.getInt("group.consumer.max.size");
    }

    public List<String> consumerAssignors() {
        return v.getList("group.consumer.assignors");
    }

    public String consumerMigrationPolicy() {
        return v.getString("group.consumer.migration.policy");
    }
}
