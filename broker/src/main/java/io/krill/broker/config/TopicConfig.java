package io.krill.broker.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A topic's effective configuration: its overrides over the broker's defaults (Kafka's LogConfig).
 * Immutable and thread-safe; resolve a new one when the topic or broker config changes.
 */
public final class TopicConfig {
    private final Map<String, String> overrides;
    private final ConfigValues values;

    private TopicConfig(Map<String, String> overrides, ConfigValues values) {
        this.overrides = overrides;
        this.values = values;
    }

    /**
     * Resolves each topic key: the topic's override if present, else the broker's value for it (see
     * {@link BrokerConfig#topicDefaults()}). Override keys that are not topic keys are kept in
     * {@link #overrides()} but otherwise ignored; validate new overrides with {@link TopicConfigValidator}.
     *
     * @throws ConfigException if an override value is invalid
     */
    public static TopicConfig resolve(Map<String, String> overrides, BrokerConfig broker) {
        Map<String, String> copy = new TreeMap<>();
        overrides.forEach((k, v) -> {
            if (v != null) {
                copy.put(k, v);
            }
        });
        Map<String, Object> values = new LinkedHashMap<>();
        for (ConfigKey key : TopicConfigDefs.DEF.keys()) {
            String raw = copy.get(key.name());
            values.put(key.name(), raw != null ? key.parse(raw) : broker.topicDefaults().get(key.name()));
        }
        return new TopicConfig(Collections.unmodifiableMap(copy), new ConfigValues(values));
    }

    /** The topic-level settings as stored (sorted). */
    public Map<String, String> overrides() {
        return overrides;
    }

    /** True if the topic sets {@code key} itself. */
    public boolean isOverridden(String key) {
        return overrides.containsKey(key);
    }

    /** Every topic key's effective value. */
    public ConfigValues values() {
        return values;
    }

    public List<String> cleanupPolicy() {
        return values.getList("cleanup.policy");
    }

    /** cleanup.policy contains compact. */
    public boolean compact() {
        return cleanupPolicy().contains("compact");
    }

    /** cleanup.policy contains delete. */
    public boolean delete() {
        return cleanupPolicy().contains("delete");
    }

    /** One of uncompressed, zstd, lz4, snappy, gzip, producer. */
    public String compressionType() {
        return values.getString("compression.type");
    }

    public int compressionGzipLevel() {
        return values.getInt("compression.gzip.level");
    }

    public int compressionLz4Level() {
        return values.getInt("compression.lz4.level");
    }

    public int compressionZstdLevel() {
        return values.getInt("compression.zstd.level");
    }

    public long deleteRetentionMs() {
        return values.getLong("delete.retention.ms");
    }

    public long fileDeleteDelayMs() {
        return values.getLong("file.delete.delay.ms");
    }

    public long flushMessages() {
        return values.getLong("flush.messages");
    }

    public long flushMs() {
        return values.getLong("flush.ms");
    }

    public int indexIntervalBytes() {
        return values.getInt("index.interval.bytes");
    }

    public long maxCompactionLagMs() {
        return values.getLong("max.compaction.lag.ms");
    }

    public int maxMessageBytes() {
        return values.getInt("max.message.bytes");
    }

    public long messageTimestampAfterMaxMs() {
        return values.getLong("message.timestamp.after.max.ms");
    }

    public long messageTimestampBeforeMaxMs() {
        return values.getLong("message.timestamp.before.max.ms");
    }

    /** "CreateTime" or "LogAppendTime". */
    public String messageTimestampType() {
        return values.getString("message.timestamp.type");
    }

    public boolean logAppendTime() {
        return "LogAppendTime".equals(messageTimestampType());
    }

    public double minCleanableDirtyRatio() {
        return values.getDouble("min.cleanable.dirty.ratio");
    }

    public long minCompactionLagMs() {
        return values.getLong("min.compaction.lag.ms");
    }

    public int minInsyncReplicas() {
        return values.getInt("min.insync.replicas");
    }

    public boolean preallocate() {
        return values.getBoolean("preallocate");
    }

    /** -1 means unlimited. */
    public long retentionBytes() {
        return values.getLong("retention.bytes");
    }

    /** -1 means unlimited. */
    public long retentionMs() {
        return values.getLong("retention.ms");
    }

    public int segmentBytes() {
        return values.getInt("segment.bytes");
    }

    public int segmentIndexBytes() {
        return values.getInt("segment.index.bytes");
    }

    public long segmentJitterMs() {
        return values.getLong("segment.jitter.ms");
    }

    public long segmentMs() {
        return values.getLong("segment.ms");
    }

    /** Roll time bounded by max.compaction.lag.ms on compacted topics, so compaction can reach old records. */
    public long maxSegmentMs() {
        long maxLag = maxCompactionLagMs();
        return compact() && maxLag > 0 ? Math.min(maxLag, segmentMs()) : segmentMs();
    }

    public boolean uncleanLeaderElectionEnable() {
        return values.getBoolean("unclean.leader.election.enable");
    }

    public List<String> leaderReplicationThrottledReplicas() {
        return values.getList("leader.replication.throttled.replicas");
    }

    public List<String> followerReplicationThrottledReplicas() {
        return values.getList("follower.replication.throttled.replicas");
    }

    /** Whether share groups may write their dead-letter records here ({@code errors.deadletterqueue.group.enable}). */
    public boolean deadLetterGroupEnable() {
        return values.getBoolean("errors.deadletterqueue.group.enable");
    }

    /** Always false in practice: Krill rejects remote.storage.enable=true. */
    public boolean remoteStorageEnable() {
        return values.getBoolean("remote.storage.enable");
    }

    @Override
    public String toString() {
        return "TopicConfig overrides " + overrides;
    }
}
