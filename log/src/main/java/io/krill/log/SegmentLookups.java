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
            return Optional.ofNullable(recordWithMaxTimestamp(segments));
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

    /**
     * MAX_TIMESTAMP as Kafka 4.4 answers it (UnifiedLog#fetchOffsetByTimestamp), so that both brokers name
     * the same record: the segment with the greatest {@link LogSegment#maxTimestampAndOffset()} timestamp,
     * the first of them on a tie (-1 for a segment without timestamps, so a log without any answers from
     * its first segment), then {@link LogSegment#firstRecordWithMaxTimestamp}. Like Kafka it looks at every
     * segment the log holds, whatever the log start offset (a record below it can be named while its
     * segment lasts); the broker drops an answer past what the client may read.
     */
    private static TimestampAndOffset recordWithMaxTimestamp(NavigableMap<Long, LogSegment> segments)
            throws IOException {
        LogSegment best = null;
        TimeIndex.TimestampOffset max = null;
        for (LogSegment s : segments.values()) {
            TimeIndex.TimestampOffset m = s.maxTimestampAndOffset();
            if (best == null || m.timestamp() > max.timestamp()) {
                best = s;
                max = m;
            }
        }
        return best == null ? null : best.firstRecordWithMaxTimestamp(max);
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
