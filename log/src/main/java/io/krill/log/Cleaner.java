package io.krill.log;

import io.krill.wire.record.DecompressionBuffer;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compaction of one log (the algorithm; {@link LogCleaner} is the thread and the bookkeeping).
 *
 * <ol>
 * <li>The cleanable range ends at the first uncleanable offset: the active segment's base, the first
 *     unstable offset (open transaction), the high watermark, and the first segment holding a record
 *     younger than {@code min.compaction.lag.ms}.</li>
 * <li>A pass over batch headers notes each producer's last batch and each segment's last batch.</li>
 * <li>The {@link OffsetMap} is built from the dirty part [first dirty, end): key to latest offset,
 *     skipping control batches and aborted transactional batches; {@code end} stops early at a batch
 *     boundary when the map is full.</li>
 * <li>The segments below {@code end} are rewritten in groups (at most segment.bytes and a segment's
 *     index and offset capacity each) into one {@code .cleaned} segment per group, then swapped in
 *     ({@link PartitionLog#replaceSegments}). A record is kept if it has no key, if its key is not in the
 *     map, or if it is the key's latest; a tombstone (null value) is dropped once its segment's largest
 *     timestamp is older than {@code delete.retention.ms} (it is then also the key's latest, so every
 *     older value of the key goes in the same pass). Records at or after {@code end} are kept.</li>
 * <li>Batches keep their base offset, last offset delta, codec, producer fields, timestamp type, base
 *     and max timestamps; only records go (a batch losing some is re-encoded with
 *     {@link RecordBatchBuilder}, compressed batches are decompressed and recompressed with their codec;
 *     a batch losing none is copied byte for byte). A batch losing every record disappears, unless it is its producer's last batch in the range
 *     or the group's last batch: then an empty header-only batch stays, preserving producer sequence
 *     state and the group's last offset (which crash recovery of a swap relies on).</li>
 * </ol>
 *
 * <p>Simplified compared with Kafka: transaction markers (control batches) are kept forever rather than
 * removed after delete.retention.ms once their transaction's data is gone; aborted transactional data
 * below the end is dropped (as Kafka does); the tombstone horizon is by segment timestamps, not the
 * KIP-534 per-batch delete horizon.
 *
 * <p>Not thread-safe: one instance per cleaner thread; {@link #close()} frees its buffers.
 */
final class Cleaner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Cleaner.class);

    /** What a cleaning did. {@code endOffset} is the next first dirty offset. */
    record Result(long endOffset, int segmentsCleaned, long bytesRead, long bytesWritten, String skippedReason) {
        boolean skipped() {
            return skippedReason != null;
        }
    }

    private final long dedupeBufferSize;
    /**
     * Made at the first cleaning, not with the cleaner: it is {@code log.cleaner.dedupe.buffer.size} bytes
     * (64 MiB by default) zeroed at once, resident from then on, and a broker whose compacted topics
     * never need cleaning (often {@code __consumer_offsets} alone) never needs it.
     */
    private OffsetMap map;
    private final int ioBufferSize;
    private final Time time;
    private final DecompressionBuffer scratch = new DecompressionBuffer();
    private final RecordBatchBuilder builder = new RecordBatchBuilder();

    Cleaner(long dedupeBufferSize, int ioBufferSize, Time time) {
        this.dedupeBufferSize = dedupeBufferSize;
        this.ioBufferSize = ioBufferSize;
        this.time = time;
    }

    @Override
    public void close() {
        scratch.close();
        builder.close();
    }

    /** The first offset the cleaner may not touch (see the class comment). */
    static long firstUncleanableOffset(PartitionLog plog, List<LogSegment> segs, long now) throws IOException {
        LogConfig cfg = plog.config();
        LogSegment active = segs.get(segs.size() - 1);
        long bound = active.baseOffset;
        bound = Math.min(bound, plog.highWatermark());
        if (plog.firstUnstableOffset().isPresent()) {
            bound = Math.min(bound, plog.firstUnstableOffset().getAsLong());
        }
        if (cfg.minCompactionLagMs() > 0) {
            for (LogSegment s : segs) {
                if (s == active || s.baseOffset >= bound) {
                    break;
                }
                if (s.largestTimestamp() > now - cfg.minCompactionLagMs()) {
                    bound = Math.min(bound, s.baseOffset);
                    break;
                }
            }
        }
        return bound;
    }

    /** Cleans {@code plog} whose dirty part starts at {@code firstDirty}. */
    Result clean(PartitionLog plog, long firstDirty) throws IOException {
        LogConfig cfg = plog.config();
        long now = time.milliseconds();
        List<LogSegment> segs = plog.segmentsSnapshot();
        long firstUncleanable = firstUncleanableOffset(plog, segs, now);
        long logStart = plog.logStartOffset();
        firstDirty = Math.max(firstDirty, segs.get(0).baseOffset);
        if (firstDirty >= firstUncleanable) {
            return new Result(firstDirty, 0, 0, 0, "nothing cleanable");
        }
        List<LogSegment> range = new ArrayList<>();
        for (LogSegment s : segs) {
            if (s.baseOffset >= firstUncleanable || s == segs.get(segs.size() - 1)) {
                break;
            }
            range.add(s);
        }

        // Header pass: producers' last batches, each segment's last batch and batch count.
        Map<Long, Long> lastBatchOfProducer = new HashMap<>();
        Map<LogSegment, Long> lastBatchOfSegment = new IdentityHashMap<>();
        Map<LogSegment, Integer> batchesOfSegment = new IdentityHashMap<>();
        for (LogSegment s : range) {
            int batches = 0;
            try (LogSegment.HeaderScanner scan = new LogSegment.HeaderScanner(s.records(), 0, s.size())) {
                while (scan.next()) {
                    batches++;
                    lastBatchOfSegment.put(s, scan.baseOffset);
                    if (scan.producerId >= 0 && scan.baseOffset < firstUncleanable) {
                        lastBatchOfProducer.put(scan.producerId, scan.baseOffset);
                    }
                }
            }
            batchesOfSegment.put(s, batches);
        }
        AbortedRanges aborted = new AbortedRanges(plog.collectAbortedTransactions(segs.get(0).baseOffset, firstUncleanable));

        // The offset map over [firstDirty, end).
        if (map == null) {
            map = new OffsetMap(dedupeBufferSize);
        } else {
            map.clear();
        }
        long end = buildMap(range, firstDirty, firstUncleanable, aborted);
        if (end <= firstDirty) {
            return new Result(firstDirty, 0, 0, 0, "the dedupe buffer cannot hold one batch's keys");
        }

        // Groups of segments below end.
        List<List<LogSegment>> groups = group(range, end, cfg, segs, batchesOfSegment);
        int cleanedSegments = 0;
        long read = 0;
        long written = 0;
        for (List<LogSegment> group : groups) {
            long[] io = cleanGroup(plog, group, end, aborted, lastBatchOfProducer, lastBatchOfSegment, now, cfg);
            if (io == null) {
                return new Result(firstDirty, cleanedSegments, read, written, "the log changed during cleaning");
            }
            read += io[0];
            written += io[1];
            cleanedSegments += group.size();
        }
        log.info("{}: cleaned {} segments below offset {} ({} -> {} bytes, {} keys)", plog.topicPartition(),
                cleanedSegments, end, read, written, map.size());
        return new Result(end, cleanedSegments, read, written, null);
    }

    private long buildMap(List<LogSegment> range, long firstDirty, long firstUncleanable, AbortedRanges aborted)
            throws IOException {
        long end = firstDirty;
        for (LogSegment s : range) {
            int start = s.baseOffset <= firstDirty ? s.indexedPosition(firstDirty) : 0;
            try (BatchReader reader = new BatchReader(s.records(), start, s.size(), ioBufferSize)) {
                RecordBatch batch;
                while ((batch = reader.next()) != null) {
                    if (batch.lastOffset() < firstDirty) {
                        continue;
                    }
                    if (batch.baseOffset() >= firstUncleanable) {
                        return end;
                    }
                    if (!batch.isControl() && !aborted.isAborted(batch)) {
                        if (!map.hasRoomFor(batch.recordCount())) {
                            return end;
                        }
                        batch.forEachRecord(r -> {
                            if (r.hasKey()) {
                                map.put(r.buffer(), r.keyIndex(), r.keySize(), r.offset());
                            }
                            return true;
                        }, scratch);
                    }
                    end = batch.lastOffset() + 1;
                }
            }
        }
        return Math.max(end, firstUncleanable);
    }

    private static List<List<LogSegment>> group(List<LogSegment> range, long end, LogConfig cfg, List<LogSegment> all,
            Map<LogSegment, Integer> batchesOfSegment) {
        List<List<LogSegment>> groups = new ArrayList<>();
        List<LogSegment> current = new ArrayList<>();
        long bytes = 0;
        long batches = 0;
        int maxIndexEntries = cfg.segmentIndexBytes() / TimeIndex.ENTRY_SIZE - 2;
        Map<LogSegment, Integer> position = new IdentityHashMap<>();
        for (int i = 0; i < all.size(); i++) {
            position.put(all.get(i), i);
        }
        for (LogSegment s : range) {
            if (s.baseOffset >= end) {
                break;
            }
            long nextBase = all.get(position.get(s) + 1).baseOffset;
            long segBatches = batchesOfSegment.getOrDefault(s, 0);
            if (!current.isEmpty()) {
                long first = current.get(0).baseOffset;
                boolean fits = bytes + s.size() <= cfg.segmentBytes()
                        && nextBase - 1 - first <= Integer.MAX_VALUE
                        && Math.min(batches + segBatches, (bytes + s.size()) / Math.max(1, cfg.indexIntervalBytes()) + 1)
                                <= maxIndexEntries;
                if (!fits) {
                    groups.add(current);
                    current = new ArrayList<>();
                    bytes = 0;
                    batches = 0;
                }
            }
            current.add(s);
            bytes += s.size();
            batches += segBatches;
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return groups;
    }

    /** Rewrites one group into a .cleaned segment and swaps it in; null if the log changed. */
    private long[] cleanGroup(PartitionLog plog, List<LogSegment> group, long end, AbortedRanges aborted,
            Map<Long, Long> lastBatchOfProducer, Map<LogSegment, Long> lastBatchOfSegment, long now, LogConfig cfg)
            throws IOException {
        LogSegment first = group.get(0);
        LogSegment lastSeg = group.get(group.size() - 1);
        LogSegment cleaned = LogSegment.open(plog.dir(), first.baseOffset, cfg, plog.fileCache(), time, true,
                LogFileNames.CLEANED);
        long read = 0;
        RecordBatch flyweight = new RecordBatch();
        ByteBuf out = Unpooled.buffer(Math.min(ioBufferSize, 1 << 20));
        boolean swapped = false;
        try {
            cleaned.activate();
            for (LogSegment s : group) {
                boolean tombstonesExpired = s.largestTimestamp() < now - cfg.deleteRetentionMs();
                Long segLast = lastBatchOfSegment.get(s);
                try (BatchReader reader = new BatchReader(s.records(), 0, s.size(), ioBufferSize)) {
                    RecordBatch batch;
                    while ((batch = reader.next()) != null) {
                        read += batch.sizeInBytes();
                        boolean groupLast = s == lastSeg && segLast != null && batch.baseOffset() == segLast;
                        boolean producerLast = batch.hasProducerId()
                                && lastBatchOfProducer.getOrDefault(batch.producerId(), -1L) == batch.baseOffset();
                        filterInto(batch, out, end, aborted, tombstonesExpired, groupLast || producerLast);
                        if (out.readableBytes() >= ioBufferSize) {
                            cleaned.append(out, out.readerIndex(), out.readableBytes(), flyweight);
                            out.clear();
                        }
                    }
                }
                for (AbortedTxn txn : s.txnIndex().allAbortedTxns()) {
                    cleaned.txnIndex().append(txn);
                }
            }
            if (out.isReadable()) {
                cleaned.append(out, out.readerIndex(), out.readableBytes(), flyweight);
            }
            cleaned.onBecomeInactive();
            cleaned.flush();
            long written = cleaned.size();
            swapped = plog.replaceSegments(cleaned, group);
            return swapped ? new long[] {read, written} : null;
        } catch (SegmentClosedException e) {
            return null;
        } finally {
            out.release();
            if (!swapped && !plog.isOffline()) {
                cleaned.deleteFiles();
            }
        }
    }

    /**
     * Appends the retained part of {@code batch} to {@code out}: the batch byte for byte if every record
     * stays, a re-encoded batch (same header fields and codec, fewer records) if some go, an empty
     * header-only batch if none stay but {@code keepEmpty}, else nothing.
     */
    private void filterInto(RecordBatch batch, ByteBuf out, long end, AbortedRanges aborted, boolean tombstonesExpired,
            boolean keepEmpty) {
        ByteBuf buf = batch.buffer();
        int start = batch.offset();
        int size = batch.sizeInBytes();
        if (batch.isControl() || batch.baseOffset() >= end) {
            out.writeBytes(buf, start, size);
            return;
        }
        boolean dropAll = aborted.isAborted(batch) && batch.lastOffset() < end;
        builder.reset()
                .baseOffset(batch.baseOffset())
                .partitionLeaderEpoch(batch.partitionLeaderEpoch())
                .compression(batch.compression())
                .producer(batch.producerId(), batch.producerEpoch(), batch.baseSequence())
                .transactional(batch.isTransactional())
                .baseTimestamp(batch.baseTimestamp())
                .maxTimestamp(batch.maxTimestamp())
                .lastOffsetDelta(batch.lastOffsetDelta());
        if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
            builder.logAppendTime(batch.maxTimestamp());
        }
        int[] removed = {0};
        if (!dropAll) {
            batch.forEachRecord(r -> {
                boolean retain = true;
                if (r.hasKey() && r.offset() < end) {
                    long latest = map.get(r.buffer(), r.keyIndex(), r.keySize());
                    if (latest >= 0 && r.offset() < latest) {
                        retain = false;
                    } else if (!r.hasValue() && tombstonesExpired) {
                        retain = false;
                    }
                }
                if (retain) {
                    builder.appendCopyOf(r);
                } else {
                    removed[0]++;
                }
                return true;
            }, scratch);
        }
        if (!dropAll && removed[0] == 0) {
            out.writeBytes(buf, start, size);
            return;
        }
        if (builder.recordCount() == 0 && !keepEmpty) {
            return;
        }
        builder.buildInto(out);
    }

    /** Aborted transactions as per-producer offset ranges. */
    static final class AbortedRanges {
        private final Map<Long, List<long[]>> byProducer = new HashMap<>();

        AbortedRanges(List<AbortedTxn> txns) {
            for (AbortedTxn t : txns) {
                byProducer.computeIfAbsent(t.producerId(), k -> new ArrayList<>())
                        .add(new long[] {t.firstOffset(), t.lastOffset()});
            }
        }

        boolean isAborted(RecordBatch batch) {
            if (!batch.isTransactional() || batch.isControl()) {
                return false;
            }
            List<long[]> ranges = byProducer.get(batch.producerId());
            if (ranges == null) {
                return false;
            }
            for (long[] r : ranges) {
                if (batch.baseOffset() >= r[0] && batch.lastOffset() <= r[1]) {
                    return true;
                }
            }
            return false;
        }
    }
}
