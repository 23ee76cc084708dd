package io.krill.log;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Broker-wide log settings, named as Kafka's broker configs. Immutable; build with {@link #builder()} or
 * parse with {@link #fromProperties(Map)}.
 *
 * @param logDirs                               {@code log.dirs} (or {@code log.dir})
 * @param defaultLogConfig                      the {@code log.*} topic defaults
 * @param retentionCheckIntervalMs              {@code log.retention.check.interval.ms}
 * @param flushCheckIntervalMs                  {@code log.flush.scheduler.interval.ms}: how often flush.ms is checked
 * @param recoveryPointCheckpointIntervalMs     {@code log.flush.offset.checkpoint.interval.ms}
 * @param logStartOffsetCheckpointIntervalMs    {@code log.flush.start.offset.checkpoint.interval.ms}
 * @param producerIdExpirationMs                {@code producer.id.expiration.ms}
 * @param producerIdExpirationCheckIntervalMs   {@code producer.id.expiration.check.interval.ms}
 * @param cleanerEnabled                        {@code log.cleaner.enable}
 * @param cleanerDedupeBufferSize               {@code log.cleaner.dedupe.buffer.size}: bytes of the key-to-offset map
 * @param cleanerIoBufferSize                   {@code log.cleaner.io.buffer.size}: read buffer of the cleaner
 * @param cleanerBackoffMs                      {@code log.cleaner.backoff.ms}: sleep when nothing is cleanable
 * @param recoveryThreadsPerDataDir             {@code num.recovery.threads.per.data.dir}
 * @param schedulerThreads                      {@code background.threads}
 * @param maxOpenInactiveFiles                  {@code krill.log.max.open.files}: channels and index mappings of
 *                                              inactive segments kept open (Krill's own setting)
 */
public record LogManagerConfig(
        List<Path> logDirs,
        LogConfig defaultLogConfig,
        long retentionCheckIntervalMs,
        long flushCheckIntervalMs,
        long recoveryPointCheckpointIntervalMs,
        long logStartOffsetCheckpointIntervalMs,
        long producerIdExpirationMs,
        long producerIdExpirationCheckIntervalMs,
        boolean cleanerEnabled,
        long cleanerDedupeBufferSize,
        int cleanerIoBufferSize,
        long cleanerBackoffMs,
        int recoveryThreadsPerDataDir,
        int schedulerThreads,
        long maxOpenInactiveFiles) {

    public LogManagerConfig {
        logDirs = List.copyOf(logDirs);
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("log.dirs is empty");
        }
        if (retentionCheckIntervalMs < 1 || flushCheckIntervalMs < 1 || recoveryPointCheckpointIntervalMs < 1
                || logStartOffsetCheckpointIntervalMs < 1 || producerIdExpirationCheckIntervalMs < 1
                || recoveryThreadsPerDataDir < 1 || schedulerThreads < 1 || maxOpenInactiveFiles < 1
                || cleanerDedupeBufferSize < 1024 || cleanerIoBufferSize < 1024 || cleanerBackoffMs < 0) {
            throw new IllegalArgumentException("invalid log manager settings");
        }
    }

    public static Builder builder(List<Path> logDirs) {
        return new Builder(logDirs);
    }

    /**
     * Reads {@code log.dirs} (comma-separated; or {@code log.dir}) and the other broker log settings from
     * Kafka property names; the {@code log.*} topic defaults go through {@link LogConfig#fromProperties}.
     */
    public static LogManagerConfig fromProperties(Map<String, String> props) {
        String dirs = props.getOrDefault("log.dirs", props.getOrDefault("log.dir", "/tmp/kafka-logs"));
        List<Path> paths = new ArrayList<>();
        for (String d : dirs.split(",")) {
            if (!d.isBlank()) {
                paths.add(Path.of(d.trim()));
            }
        }
        Builder b = new Builder(paths);
        b.defaultLogConfig = LogConfig.fromProperties(props, LogConfig.DEFAULT);
        String v;
        if ((v = props.get("log.retention.check.interval.ms")) != null) b.retentionCheckIntervalMs = Long.parseLong(v.trim());
        if ((v = props.get("log.flush.scheduler.interval.ms")) != null) b.flushCheckIntervalMs = Long.parseLong(v.trim());
        if ((v = props.get("log.flush.offset.checkpoint.interval.ms")) != null) b.recoveryPointCheckpointIntervalMs = Long.parseLong(v.trim());
        if ((v = props.get("log.flush.start.offset.checkpoint.interval.ms")) != null) b.logStartOffsetCheckpointIntervalMs = Long.parseLong(v.trim());
        if ((v = props.get("producer.id.expiration.ms")) != null) b.producerIdExpirationMs = Long.parseLong(v.trim());
        if ((v = props.get("producer.id.expiration.check.interval.ms")) != null) b.producerIdExpirationCheckIntervalMs = Long.parseLong(v.trim());
        if ((v = props.get("log.cleaner.enable")) != null) b.cleanerEnabled = Boolean.parseBoolean(v.trim());
        if ((v = props.get("log.cleaner.dedupe.buffer.size")) != null) b.cleanerDedupeBufferSize = Long.parseLong(v.trim());
        if ((v = props.get("log.cleaner.io.buffer.size")) != null) b.cleanerIoBufferSize = Integer.parseInt(v.trim());
        if ((v = props.get("log.cleaner.backoff.ms")) != null) b.cleanerBackoffMs = Long.parseLong(v.trim());
        if ((v = props.get("num.recovery.threads.per.data.dir")) != null) b.recoveryThreadsPerDataDir = Integer.parseInt(v.trim());
        if ((v = props.get("background.threads")) != null) b.schedulerThreads = Integer.parseInt(v.trim());
        if ((v = props.get("krill.log.max.open.files")) != null) b.maxOpenInactiveFiles = Long.parseLong(v.trim());
        return b.build();
    }

    /** Mutable builder with Kafka's defaults (Krill's for the open-file bound). */
    public static final class Builder {
        private final List<Path> logDirs;
        private LogConfig defaultLogConfig = LogConfig.DEFAULT;
        private long retentionCheckIntervalMs = 300_000;
        private long flushCheckIntervalMs = 1_000;
        private long recoveryPointCheckpointIntervalMs = 60_000;
        private long logStartOffsetCheckpointIntervalMs = 60_000;
        private long producerIdExpirationMs = 86_400_000L;
        private long producerIdExpirationCheckIntervalMs = 600_000;
        private boolean cleanerEnabled = true;
        private long cleanerDedupeBufferSize = 64L * 1024 * 1024;
        private int cleanerIoBufferSize = 512 * 1024;
        private long cleanerBackoffMs = 15_000;
        private int recoveryThreadsPerDataDir = 2;
        private int schedulerThreads = 2;
        private long maxOpenInactiveFiles = 4096;

        private Builder(List<Path> logDirs) {
            this.logDirs = logDirs;
        }

        public Builder defaultLogConfig(LogConfig v) { defaultLogConfig = v; return this; }
        public Builder retentionCheckIntervalMs(long v) { retentionCheckIntervalMs = v; return this; }
        public Builder flushCheckIntervalMs(long v) { flushCheckIntervalMs = v; return this; }
        public Builder recoveryPointCheckpointIntervalMs(long v) { recoveryPointCheckpointIntervalMs = v; return this; }
        public Builder logStartOffsetCheckpointIntervalMs(long v) { logStartOffsetCheckpointIntervalMs = v; return this; }
        public Builder producerIdExpirationMs(long v) { producerIdExpirationMs = v; return this; }
        public Builder producerIdExpirationCheckIntervalMs(long v) { producerIdExpirationCheckIntervalMs = v; return this; }
        public Builder cleanerEnabled(boolean v) { cleanerEnabled = v; return this; }
        public Builder cleanerDedupeBufferSize(long v) { cleanerDedupeBufferSize = v; return this; }
        public Builder cleanerIoBufferSize(int v) { cleanerIoBufferSize = v; return this; }
        public Builder cleanerBackoffMs(long v) { cleanerBackoffMs = v; return this; }
        public Builder recoveryThreadsPerDataDir(int v) { recoveryThreadsPerDataDir = v; return this; }
        public Builder schedulerThreads(int v) { schedulerThreads = v; return this; }
        public Builder maxOpenInactiveFiles(long v) { maxOpenInactiveFiles = v; return this; }

        public LogManagerConfig build() {
            return new LogManagerConfig(logDirs, defaultLogConfig, retentionCheckIntervalMs, flushCheckIntervalMs,
                    recoveryPointCheckpointIntervalMs, logStartOffsetCheckpointIntervalMs, producerIdExpirationMs,
                    producerIdExpirationCheckIntervalMs, cleanerEnabled, cleanerDedupeBufferSize, cleanerIoBufferSize,
                    cleanerBackoffMs, recoveryThreadsPerDataDir, schedulerThreads, maxOpenInactiveFiles);
        }
    }
}
