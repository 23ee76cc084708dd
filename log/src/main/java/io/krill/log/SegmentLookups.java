package io.krill.log;

import io.krill.log.epoch.LeaderEpochCache;
import io.krill.wire.record.RecordBatch;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;

/**
 * Lookups across the segments of one partition's log that answer from the segments' indexes: the offset
 * for a timestamp (ListOffsets, from the time indexes) and the aborted transactions a read_committed
 * fetch must return (from the transaction indexes). The {@link PartitionLog} wraps them with its online
 * check, retries and failure handling.
 *
 * <p>Thread-safety: stateless; like {@link PartitionLog#read} they take no lock and read the
 * concurrent segment map and the segments' published data. A segment closed or deleted under a lookup
 * surfaces as {@link SegmentClosedException} (the caller retries) or, for the transaction indexes, ends
 * the search (those transactions are below the log start offset by then).
 */
final class SegmentLookups {
    private SegmentLookups() {
    }

    /**
     * See {@link PartitionLog#fetchOffsetByTimestamp}; {@code start} and {@code leo} are the log start
     * and end offsets as the caller read them.
     *
     * @throws SegmentClosedException if a segment was closed under the lookup (the caller retries)
     */
    static Optional<TimestampAndOffset> offsetByTimestamp(NavigableMap<Long, LogSegment> segments,
            LeaderEpochCache epochCache, long start, long leo, long timestamp) throws IOException {
        if (timestamp == PartitionLog.EARLIEST_TIMESTAMP || timestamp == PartitionLog.EARLIEST_LOCAL_TIMESTAMP) {
            return Optional.of(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, start, epochCache.epochForOffset(start)));
        }
        if (timestamp == PartitionLog.LATEST_TIMESTAMP) {
            return Optional.of(new TimestampAndOffset(RecordBatch.NO_TIMESTAMP, leo, epochCache.latestEpoch()));
        }
        if (timestamp == PartitionLog.MAX_TIMESTAMP) {
            LogSegment best = null;
            TimeIndex.TimestampOffset max = null;
            for (LogSegment s : segments.values()) {
                TimeIndex.TimestampOffset m = s.maxTimestampAndOffset();
                if (m.timestamp() >= 0 && m.offset() >= start && (max == null || m.timestamp() > max.timestamp())) {
                    max = m;
                    best = s;
                }
            }
            if (best == null) {
                return Optional.empty();
            }
            TimestampAndOffset t = best.recordWithTimestamp(max.offset(), max.timestamp());
            return Optional.ofNullable(t).map(found -> withEpoch(epochCache, found));
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("unsupported ListOffsets timestamp " + timestamp);
        }
        for (LogSegment s : segments.values()) {
            if (s.baseOffset >= leo) {
                break;
            }
            Long nextBase = segments.higherKey(s.baseOffset);
            if (nextBase != null && nextBase <= start) {
                continue;
            }
            if (s.maxTimestampAndOffset().timestamp() < timestamp) {
                continue;
            }
            TimestampAndOffset t = s.findOffsetByTimestamp(timestamp, start);
            if (t != null && t.offset() < leo) {
                return Optional.of(withEpoch(epochCache, t));
            }
        }
        return Optional.empty();
    }

    private static TimestampAndOffset withEpoch(LeaderEpochCache epochCache, TimestampAndOffset t) {
        return new TimestampAndOffset(t.timestamp(), t.offset(), epochCache.epochForOffset(t.offset()));
    }

    /** See {@link PartitionLog#collectAbortedTransactions}. */
    static List<AbortedTxn> abortedTransactions(NavigableMap<Long, LogSegment> segments, long startOffset,
            long upperBoundOffset) throws IOException {
        List<AbortedTxn> result = new ArrayList<>();
        try {
            Long base = segments.floorKey(startOffset);
            Collection<LogSegment> range = (base == null ? segments : segments.tailMap(base)).values();
            for (LogSegment s : range) {
                if (s.txnIndex().entries() == 0) {
                    continue;
                }
                TransactionIndex.SearchResult r = s.txnIndex().collectAbortedTxns(startOffset, upperBoundOffset);
                result.addAll(r.abortedTxns());
                if (r.complete()) {
                    break;
                }
            }
        } catch (NoSuchFileException e) {
            // a segment deleted under us: its transactions are below the log start offset now
        }
        return result;
    }
}
