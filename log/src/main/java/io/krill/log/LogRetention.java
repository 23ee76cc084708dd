package io.krill.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;

/**
 * Which segments retention and DeleteRecords delete, from the start of a partition's log: never one not
 * wholly below the high watermark, and only a prefix (deletion stops at the first segment that is kept).
 * Retention may choose the active segment too, as Kafka does, when it is not empty and wholly committed:
 * otherwise a topic that stopped receiving records would keep them past retention.ms for good, its active
 * segment never rolling. The {@link PartitionLog} then rolls first, removes the chosen segments from its
 * map, moves the log start offset and renames their files for delayed deletion.
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
     * those beyond retention.bytes; all wholly below {@code highWatermark}, the active segment (ending at
     * {@code logEndOffset}) included when it is not empty. Runs under the partition's lock.
     *
     * @throws IOException if a segment's largest timestamp cannot be read
     */
    static List<LogSegment> deletableSegments(NavigableMap<Long, LogSegment> segments, LogConfig cfg, long now,
            long highWatermark, long logStartOffset, long logEndOffset) throws IOException {
        List<LogSegment> deletable = new ArrayList<>();
        long totalSize = 0;
        for (LogSegment s : segments.values()) {
            totalSize += s.size();
        }
        long excess = cfg.deleteEnabled() && cfg.retentionBytes() >= 0 ? totalSize - cfg.retentionBytes() : 0;
        LogSegment active = segments.lastEntry().getValue();
        for (LogSegment s : segments.values()) {
            if (s == active && s.size() == 0) {
                break;
            }
            long nextBase = s == active ? logEndOffset : segments.higherKey(s.baseOffset);
            if (nextBase > highWatermark) {
                break;
            }
            boolean belowStart = s != active && nextBase <= logStartOffset; // as Kafka: DeleteRecords rolls nothing
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
