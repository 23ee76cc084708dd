package io.krill.log;

import io.krill.wire.record.TimestampType;
import java.util.Locale;
import java.util.Map;

/**
 * Per-topic log settings, named and defaulted as Kafka's topic configs. Immutable; build with
 * {@link #builder()} or parse with {@link #fromProperties(Map, LogConfig)}. A partition log's config can be
 * swapped at run time ({@link PartitionLog#updateConfig}); sizes of existing segments and indexes do not
 * change, new segments use the new values.
 *
 * @param segmentBytes           {@code segment.bytes}: roll when the active segment would exceed it
 * @param segmentMs              {@code segment.ms}: roll a non-empty segment this old (in record time when
 *                               its first batch has a timestamp: see {@link LogSegment#timeWaitedForRoll})
 * @param segmentJitterMs        {@code segment.jitter.ms}: random jitter subtracted from segment.ms per segment
 * @param segmentIndexBytes      {@code segment.index.bytes}: preallocated size of each index (roll when full)
 * @param indexIntervalBytes     {@code index.interval.bytes}: bytes between offset index entries
 * @param retentionMs            {@code retention.ms}: delete segments whose largest timestamp is older; -1 = forever
 * @param retentionBytes         {@code retention.bytes}: delete old segments beyond this size; -1 = unbounded
 * @param deleteEnabled          {@code cleanup.policy} contains {@code delete}
 * @param compactEnabled         {@code cleanup.policy} contains {@code compact}
 * @param deleteRetentionMs      {@code delete.retention.ms}: how long tombstones survive compaction
 * @param minCompactionLagMs     {@code min.compaction.lag.ms}: records younger than this are not compacted
 * @param maxCompactionLagMs     {@code max.compaction.lag.ms}: a log with older dirty data is cleaned regardless of ratio
 * @param minCleanableDirtyRatio {@code min.cleanable.dirty.ratio}
 * @param flushMessages          {@code flush.messages}: fsync after this many records; Long.MAX_VALUE = never
 * @param flushMs                {@code flush.ms}: fsync data older than this; Long.MAX_VALUE = never
 * @param fileDeleteDelayMs      {@code file.delete.delay.ms}: delay before deleting a {@code .deleted} file
 * @param timestampType          {@code message.timestamp.type}: CreateTime or LogAppendTime
 */
public record LogConfig(
        int segmentBytes,
        long segmentMs,
        long segmentJitterMs,
        int segmentIndexBytes,
        int indexIntervalBytes,
        long retentionMs,
        long retentionBytes,
        boolean deleteEnabled,
        boolean compactEnabled,
        long deleteRetentionMs,
        long minCompactionLagMs,
        long maxCompactionLagMs,
        double minCleanableDirtyRatio,
        long flushMessages,
        long flushMs,
        long fileDeleteDelayMs,
        TimestampType timestampType) {

    /** Kafka's defaults. */
    public static final LogConfig DEFAULT = builder().build();

    public LogConfig {
        if (segmentBytes < 14 + 61) {
            throw new IllegalArgumentException("segment.bytes " + segmentBytes + " is below the minimum " + (14 + 61));
        }
        if (segmentMs < 1 || segmentJitterMs < 0 || segmentIndexBytes < TimeIndex.ENTRY_SIZE * 2 || indexIntervalBytes < 0) {
            throw new IllegalArgumentException("invalid segment settings");
        }
        if (retentionMs < -1 || retentionBytes < -1 || deleteRetentionMs < 0 || minCompactionLagMs < 0
                || maxCompactionLagMs < 1 || minCleanableDirtyRatio < 0 || minCleanableDirtyRatio > 1
                || flushMessages < 1 || flushMs < 0 || fileDeleteDelayMs < 0) {
            throw new IllegalArgumentException("invalid retention, compaction or flush settings");
        }
        if (!deleteEnabled && !compactEnabled) {
            throw new IllegalArgumentException("cleanup.policy needs delete and/or compact");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.segmentBytes = segmentBytes;
        b.segmentMs = segmentMs;
        b.segmentJitterMs = segmentJitterMs;
        b.segmentIndexBytes = segmentIndexBytes;
        b.indexIntervalBytes = indexIntervalBytes;
        b.retentionMs = retentionMs;
        b.retentionBytes = retentionBytes;
        b.deleteEnabled = deleteEnabled;
        b.compactEnabled = compactEnabled;
        b.deleteRetentionMs = deleteRetentionMs;
        b.minCompactionLagMs = minCompactionLagMs;
        b.maxCompactionLagMs = maxCompactionLagMs;
        b.minCleanableDirtyRatio = minCleanableDirtyRatio;
        b.flushMessages = flushMessages;
        b.flushMs = flushMs;
        b.fileDeleteDelayMs = fileDeleteDelayMs;
        b.timestampType = timestampType;
        return b;
    }

    /** The {@code cleanup.policy} value. */
    public String cleanupPolicy() {
        return deleteEnabled && compactEnabled ? "compact,delete" : compactEnabled ? "compact" : "delete";
    }

    /**
     * Reads Kafka topic config names from {@code props} over {@code defaults}. Unknown keys are ignored
     * (they belong to other layers); a malformed value of a known key raises IllegalArgumentException.
     * Accepts the broker-level {@code log.}-prefixed names too ({@code log.segment.bytes},
     * {@code log.retention.hours}/{@code minutes}/{@code ms}, {@code log.roll.hours}/{@code ms},
     * {@code log.cleanup.policy}, {@code log.flush.interval.messages}/{@code ms}, ...), the topic names
     * winning when both are given.
     */
    public static LogConfig fromProperties(Map<String, String> props, LogConfig defaults) {
        Builder b = defaults.toBuilder();
        // Broker-level names first, so topic-level names override them.
        String v;
        if ((v = props.get("log.segment.bytes")) != null) b.segmentBytes = parseInt("log.segment.bytes", v);
        if ((v = props.get("log.roll.hours")) != null) b.segmentMs = parseLong("log.roll.hours", v) * 3_600_000L;
        if ((v = props.get("log.roll.ms")) != null) b.segmentMs = parseLong("log.roll.ms", v);
        if ((v = props.get("log.roll.jitter.hours")) != null) b.segmentJitterMs = parseLong("log.roll.jitter.hours", v) * 3_600_000L;
        if ((v = props.get("log.roll.jitter.ms")) != null) b.segmentJitterMs = parseLong("log.roll.jitter.ms", v);
        if ((v = props.get("log.index.size.max.bytes")) != null) b.segmentIndexBytes = parseInt("log.index.size.max.bytes", v);
        if ((v = props.get("log.index.interval.bytes")) != null) b.indexIntervalBytes = parseInt("log.index.interval.bytes", v);
        if ((v = props.get("log.retention.hours")) != null) b.retentionMs = hoursOrForever(parseLong("log.retention.hours", v));
        if ((v = props.get("log.retention.minutes")) != null) b.retentionMs = minutesOrForever(parseLong("log.retention.minutes", v));
        if ((v = props.get("log.retention.ms")) != null) b.retentionMs = parseLong("log.retention.ms", v);
        if ((v = props.get("log.retention.bytes")) != null) b.retentionBytes = parseLong("log.retention.bytes", v);
        if ((v = props.get("log.cleanup.policy")) != null) b.cleanupPolicy(v);
        if ((v = props.get("log.cleaner.delete.retention.ms")) != null) b.deleteRetentionMs = parseLong("log.cleaner.delete.retention.ms", v);
        if ((v = props.get("log.cleaner.min.compaction.lag.ms")) != null) b.minCompactionLagMs = parseLong("log.cleaner.min.compaction.lag.ms", v);
        if ((v = props.get("log.cleaner.max.compaction.lag.ms")) != null) b.maxCompactionLagMs = parseLong("log.cleaner.max.compaction.lag.ms", v);
        if ((v = props.get("log.cleaner.min.cleanable.ratio")) != null) b.minCleanableDirtyRatio = parseDouble("log.cleaner.min.cleanable.ratio", v);
        if ((v = props.get("log.flush.interval.messages")) != null) b.flushMessages = parseLong("log.flush.interval.messages", v);
        if ((v = props.get("log.flush.interval.ms")) != null) b.flushMs = parseLong("log.flush.interval.ms", v);
        if ((v = props.get("log.segment.delete.delay.ms")) != null) b.fileDeleteDelayMs = parseLong("log.segment.delete.delay.ms", v);
        if ((v = props.get("log.message.timestamp.type")) != null) b.timestampType = parseTimestampType(v);

        if ((v = props.get("segment.bytes")) != null) b.segmentBytes = parseInt("segment.bytes", v);
        if ((v = props.get("segment.ms")) != null) b.segmentMs = parseLong("segment.ms", v);
        if ((v = props.get("segment.jitter.ms")) != null) b.segmentJitterMs = parseLong("segment.jitter.ms", v);
        if ((v = props.get("segment.index.bytes")) != null) b.segmentIndexBytes = parseInt("segment.index.bytes", v);
        if ((v = props.get("index.interval.bytes")) != null) b.indexIntervalBytes = parseInt("index.interval.bytes", v);
        if ((v = props.get("retention.ms")) != null) b.retentionMs = parseLong("retention.ms", v);
        if ((v = props.get("retention.bytes")) != null) b.retentionBytes = parseLong("retention.bytes", v);
        if ((v = props.get("cleanup.policy")) != null) b.cleanupPolicy(v);
        if ((v = props.get("delete.retention.ms")) != null) b.deleteRetentionMs = parseLong("delete.retention.ms", v);
        if ((v = props.get("min.compaction.lag.ms")) != null) b.minCompactionLagMs = parseLong("min.compaction.lag.ms", v);
        if ((v = props.get("max.compaction.lag.ms")) != null) b.maxCompactionLagMs = parseLong("max.compaction.lag.ms", v);
        if ((v = props.get("min.cleanable.dirty.ratio")) != null) b.minCleanableDirtyRatio = parseDouble("min.cleanable.dirty.ratio", v);
        if ((v = props.get("flush.messages")) != null) b.flushMessages = parseLong("flush.messages", v);
        if ((v = props.get("flush.ms")) != null) b.flushMs = parseLong("flush.ms", v);
        if ((v = props.get("file.delete.delay.ms")) != null) b.fileDeleteDelayMs = parseLong("file.delete.delay.ms", v);
        if ((v = props.get("message.timestamp.type")) != null) b.timestampType = parseTimestampType(v);
        return b.build();
    }

    private static long hoursOrForever(long hours) {
        return hours < 0 ? -1 : hours * 3_600_000L;
    }

    private static long minutesOrForever(long minutes) {
        return minutes < 0 ? -1 : minutes * 60_000L;
    }

    private static int parseInt(String key, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not an int", e);
        }
    }

    private static long parseLong(String key, String v) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a long", e);
        }
    }

    private static double parseDouble(String key, String v) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a number", e);
        }
    }

    private static TimestampType parseTimestampType(String v) {
        return switch (v.trim()) {
            case "CreateTime" -> TimestampType.CREATE_TIME;
            case "LogAppendTime" -> TimestampType.LOG_APPEND_TIME;
            default -> throw new IllegalArgumentException("message.timestamp.type=" + v + " is not CreateTime or LogAppendTime");
        };
    }

    /** Mutable builder with Kafka's defaults. */
    public static final class Builder {
        private int segmentBytes = 1024 * 1024 * 1024;
        private long segmentMs = 7L * 24 * 3_600_000L;
        private long segmentJitterMs = 0;
        private int segmentIndexBytes = 10 * 1024 * 1024;
        private int indexIntervalBytes = 4096;
        private long retentionMs = 7L * 24 * 3_600_000L;
        private long retentionBytes = -1;
        private boolean deleteEnabled = true;
        private boolean compactEnabled = false;
        private long deleteRetentionMs = 24L * 3_600_000L;
        private long minCompactionLagMs = 0;
        private long maxCompactionLagMs = Long.MAX_VALUE;
        private double minCleanableDirtyRatio = 0.5;
        private long flushMessages = Long.MAX_VALUE;
        private long flushMs = Long.MAX_VALUE;
        private long fileDeleteDelayMs = 60_000;
        private TimestampType timestampType = TimestampType.CREATE_TIME;

        public Builder segmentBytes(int v) { segmentBytes = v; return this; }
        public Builder segmentMs(long v) { segmentMs = v; return this; }
        public Builder segmentJitterMs(long v) { segmentJitterMs = v; return this; }
        public Builder segmentIndexBytes(int v) { segmentIndexBytes = v; return this; }
        public Builder indexIntervalBytes(int v) { indexIntervalBytes = v; return this; }
        public Builder retentionMs(long v) { retentionMs = v; return this; }
        public Builder retentionBytes(long v) { retentionBytes = v; return this; }
        public Builder deleteRetentionMs(long v) { deleteRetentionMs = v; return this; }
        public Builder minCompactionLagMs(long v) { minCompactionLagMs = v; return this; }
        public Builder maxCompactionLagMs(long v) { maxCompactionLagMs = v; return this; }
        public Builder minCleanableDirtyRatio(double v) { minCleanableDirtyRatio = v; return this; }
        public Builder flushMessages(long v) { flushMessages = v; return this; }
        public Builder flushMs(long v) { flushMs = v; return this; }
        public Builder fileDeleteDelayMs(long v) { fileDeleteDelayMs = v; return this; }
        public Builder timestampType(TimestampType v) { timestampType = v; return this; }

        /** {@code delete}, {@code compact}, or both comma-separated (in any order, case-insensitive). */
        public Builder cleanupPolicy(String policy) {
            boolean delete = false;
            boolean compact = false;
            for (String p : policy.split(",")) {
                switch (p.trim().toLowerCase(Locale.ROOT)) {
                    case "delete" -> delete = true;
                    case "compact" -> compact = true;
                    case "" -> { }
                    default -> throw new IllegalArgumentException("unknown cleanup.policy " + p);
                }
            }
            deleteEnabled = delete;
            compactEnabled = compact;
            return this;
        }

        public LogConfig build() {
            return new LogConfig(segmentBytes, segmentMs, segmentJitterMs, segmentIndexBytes, indexIntervalBytes,
                    retentionMs, retentionBytes, deleteEnabled, compactEnabled, deleteRetentionMs, minCompactionLagMs,
                    maxCompactionLagMs, minCleanableDirtyRatio, flushMessages, flushMs, fileDeleteDelayMs, timestampType);
        }
    }
}
