package io.krill.broker.config;

/** Typed view of the share coordinator keys ({@code share.coordinator.*}). Immutable and thread-safe. */
public final class ShareCoordinatorSettings {
    private final ConfigValues v;

    ShareCoordinatorSettings(ConfigValues v) {
        this.v = v;
    }

    public int stateTopicNumPartitions() {
        return v.getInt("share.coordinator.state.topic.num.partitions");
    }

    public short stateTopicReplicationFactor() {
        return v.getShort("share.coordinator.state.topic.replication.factor");
    }

    public short stateTopicMinIsr() {
        return v.getShort("share.coordinator.state.topic.min.isr");
    }

    public int stateTopicSegmentBytes() {
        return v.getInt("share.coordinator.state.topic.segment.bytes");
    }

    /** Kafka's codec id: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
    public int stateTopicCompressionCodec() {
        return v.getInt("share.coordinator.state.topic.compression.codec");
    }

    public int threads() {
        return v.getInt("share.coordinator.threads");
    }

    /** Update records of a share-partition between two of its snapshots. */
    public int snapshotUpdateRecordsPerSnapshot() {
        return v.getInt("share.coordinator.snapshot.update.records.per.snapshot");
    }

    public int loadBufferSize() {
        return v.getInt("share.coordinator.load.buffer.size");
    }

    /** -1: adaptive. */
    public int appendLingerMs() {
        return v.getInt("share.coordinator.append.linger.ms");
    }

    public int writeTimeoutMs() {
        return v.getInt("share.coordinator.write.timeout.ms");
    }

    public int stateTopicPruneIntervalMs() {
        return v.getInt("share.coordinator.state.topic.prune.interval.ms");
    }

    public int coldPartitionSnapshotIntervalMs() {
        return v.getInt("share.coordinator.cold.partition.snapshot.interval.ms");
    }

    public int cachedBufferMaxBytes() {
        return v.getInt("share.coordinator.cached.buffer.max.bytes");
    }
}
