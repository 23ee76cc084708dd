package io.krill.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;

/**
 * Which segments retention and DeleteRecords delete, from the start of a partition's log: never the
 * active segment, never one not wholly below the high watermark, and only a prefix (deletion stops at the
 * first segment that is kept). The {@link PartitionLog} removes the chosen segments from its map, moves
 * the log start offset and renames their files for delayed deletion.
 *
 * <p>Thread-safety: stateless; called under the partition's lock with the partition's segment map, so
 * the map does not change while a choice is made.
 */
final class LogRetention {
    private LogRetention() {
    }

    /**
     * The segments {@link PartitionLog#deleteOldSegments} deletes: those wholly below the log start
     * offset, and with cleanup.policy delete, those older than retention.ms (by largest timestamp) and
     * those beyond retention.bytes; all wholly below {@code highWatermark}. Runs under the partition's lock.
     *
     * @throws IOException if a segment's largest timestamp cannot be read
     */
    static List<LogSegment> deletableSegments(NavigableMap<Long, LogSegment> segments, LogConfig cfg, long now,
            long highWatermark, long logStartOffset) throws IOException {
        List<LogSegment> deletable = new ArrayList<>();
        long totalSize = 0;
        for (LogSegment s : segments.values()) {
            totalSize += s.size();
        }
        long excess = cfg.deleteEnabled() && cfg.retentionBytes() >= 0 ? totalSize - cfg.retentionBytes() : 0;
        LogSegment active = segments.lastEntry().getValue();
        for (LogSegment s : segments.values()) {
            if (s == active) {
                break;
            }
            long nextBase = segments.higherKey(s.baseOffset);
            if (nextBase > highWatermark) {
                break;
            }
            boolean belowStart = nextBase <= logStartOffset;
            boolean expired = cfg.deleteEnabled() && cfg.retentionMs() >= 0
                    && now - s.largestTimestamp() > cfg.retentionMs();
            boolean overSize = excess - s.size() >= 0 && cfg.deleteEnabled() && cfg.retentionBytes() >= 0;
            if (!(belowStart || expired || overSize)) {
                break;
            }
            deletable.add(s);
            excess -= s.size();
        }
        return deletable;
    }

    /**
     * The segments wholly below the log start offset, after DeleteRecords moved it (never the active
     * one). Runs under the partition's lock.
     */
    static List<LogSegment> segmentsBelowLogStart(NavigableMap<Long, LogSegment> segments, long logStartOffset) {
        List<LogSegment> deletable = new ArrayList<>();
        LogSegment active = segments.lastEntry().getValue();
        for (LogSegment s : segments.values()) {
            if (s == active || segments.higherKey(s.baseOffset) > logStartOffset) {
                break;
            }
            deletable.add(s);
        }
        return deletable;
    }
}
