package io.krill.broker.config;

import java.util.List;
import java.util.Map;

/**
 * Typed view of the broker's log keys: the topic defaults (with Kafka's unit precedence already applied, e.g.
 * log.retention.ms over minutes over hours) and the log manager and cleaner settings. Immutable and thread-safe.
 */
public final class LogSettings {
    private final ConfigValues v;
    private final Map<String, Object> topicDefaults;

    LogSettings(ConfigValues v, Map<String, Object> topicDefaults) {
        this.v = v;
        this.topicDefaults = topicDefaults;
    }

    public int numPartitions() {
        return v.getInt("num.partitions");
    }

    public int segmentBytes() {
        return v.getInt("log.segment.bytes");
    }

    /** log.roll.ms, else log.roll.hours in ms. */
    public long rollMs() {
        return (Long) topicDefaults.get("segment.ms");
    }

    /** log.roll.jitter.ms, else log.roll.jitter.hours in ms. */
    public long rollJitterMs() {
        return (Long) topicDefaults.get("segment.jitter.ms");
    }

    /** log.retention.ms, else minutes, else hours, in ms; -1 (any negative value) means unlimited. */
    public long retentionMs() {
        return (Long) topicDefaults.get("retention.ms");
    }

    /** -1 means unlimited. */
    public long retentionBytes() {
        return v.getLong("log.retention.bytes");
    }

    public long retentionCheckIntervalMs() {
        return v.getLong("log.retention.check.interval.ms");
    }

    /** Some of "delete", "compact"; may be empty (keep forever). */
    public List<String> cleanupPolicy() {
        return v.getList("log.cleanup.policy");
    }

    public int indexIntervalBytes() {
        return v.getInt("log.index.interval.bytes");
    }

    public int indexSizeMaxBytes() {
        return v.getInt("log.index.size.max.bytes");
    }

    public long flushIntervalMessages() {
        return v.getLong("log.flush.interval.messages");
    }

    /** log.flush.interval.ms, else log.flush.scheduler.interval.ms. */
    public long flushIntervalMs() {
        return (Long) topicDefaults.get("flush.ms");
    }

    public long flushSchedulerIntervalMs() {
        return v.getLong("log.flush.scheduler.interval.ms");
    }

    public int flushOffsetCheckpointIntervalMs() {
        return v.getInt("log.flush.offset.checkpoint.interval.ms");
    }

    public int flushStartOffsetCheckpointIntervalMs() {
        return v.getInt("log.flush.start.offset.checkpoint.interval.ms");
    }

    public long segmentDeleteDelayMs() {
        return v.getLong("log.segment.delete.delay.ms");
    }

    public boolean preallocate() {
        return v.getBoolean("log.preallocate");
    }

    /** "CreateTime" or "LogAppendTime". */
    public String messageTimestampType() {
        return v.getString("log.message.timestamp.type");
    }

    public long messageTimestampBeforeMaxMs() {
        return v.getLong("log.message.timestamp.before.max.ms");
    }

    public long messageTimestampAfterMaxMs() {
        return v.getLong("log.message.timestamp.after.max.ms");
    }

    public int messageMaxBytes() {
        return v.getInt("message.max.bytes");
    }

    /** One of uncompressed, zstd, lz4, snappy, gzip, producer. */
    public String compressionType() {
        return v.getString("compression.type");
    }

    public int minInsyncReplicas() {
        return v.getInt("min.insync.replicas");
    }

    public int numRecoveryThreadsPerDataDir() {
        return v.getInt("num.recovery.threads.per.data.dir");
    }

    public boolean cleanerEnable() {
        return v.getBoolean("log.cleaner.enable");
    }

    public int cleanerThreads() {
        return v.getInt("log.cleaner.threads");
    }

    public double cleanerIoMaxBytesPerSecond() {
        return v.getDouble("log.cleaner.io.max.bytes.per.second");
    }

    public long cleanerDedupeBufferSize() {
        return v.getLong("log.cleaner.dedupe.buffer.size");
    }

    public int cleanerIoBufferSize() {
        return v.getInt("log.cleaner.io.buffer.size");
    }

    public double cleanerIoBufferLoadFactor() {
        return v.getDouble("log.cleaner.io.buffer.load.factor");
    }

    public long cleanerBackoffMs() {
        return v.getLong("log.cleaner.backoff.ms");
    }

    public double cleanerMinCleanableRatio() {
        return v.getDouble("log.cleaner.min.cleanable.ratio");
    }

    public long cleanerDeleteRetentionMs() {
        return v.getLong("log.cleaner.delete.retention.ms");
    }

    public long cleanerMinCompactionLagMs() {
        return v.getLong("log.cleaner.min.compaction.lag.ms");
    }

    public long cleanerMaxCompactionLagMs() {
        return v.getLong("log.cleaner.max.compaction.lag.ms");
    }
}
