package io.krill.log;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.DecompressionBuffer;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment of a partition log: the {@code .log} file ({@link FileRecords}) with its offset index,
 * time index and transaction index, all named by the segment's base offset. Every offset in the segment
 * is in [baseOffset, baseOffset + 2^31), so indexes store 32-bit relative offsets.
 *
 * <p>The last segment of a log is <em>active</em>: its channel is pinned open and its indexes are
 * writable (mapped read-write and preallocated from their first entry on). {@link #onBecomeInactive()}
 * (roll, close) writes a final time index entry with the segment's largest timestamp and trims the
 * indexes; {@link #activate()} reverses that when truncation makes an older segment the last one.
 *
 * <p>Files: a new segment is its {@code .log} alone; the {@code .index} appears with the first offset
 * index entry (the first batch starting more than {@code index.interval.bytes} into the segment), the
 * {@code .timeindex} with the first time index entry (at the latest the final one written when the
 * segment becomes inactive), the {@code .txnindex} with the first aborted transaction. Creating a log or
 * rolling costs no index file, mapping or preallocation, and an idle active segment maps nothing.
 *
 * <p>Crash behaviour of missing index files: so that a missing file can be told from a lost one, a
 * non-empty segment becoming inactive leaves an empty file for an index that has no entry although it
 * could have had one: a time index when no batch carried a timestamp, an offset index when the segment
 * is larger than {@code index.interval.bytes} plus one batch header (a batch could have started beyond
 * the interval; rare: one large batch). At load a segment before the recovery point therefore treats a
 * missing index file by size: a missing time index of a non-empty segment, or a missing offset index of
 * a segment larger than {@code index.interval.bytes + }{@link RecordBatch#HEADER_SIZE}, was lost and is
 * rebuilt from the batch headers with a warning ({@link #needsIndexRebuild()}); a missing offset index
 * of a smaller segment is what appending left (no batch can start beyond the interval, so no entry was
 * ever due): nothing is rebuilt or reported, and lookups scan from position 0 as they would with the
 * empty index. Segments from the recovery point on are re-read by recovery in any case. (If
 * {@code index.interval.bytes} was lowered since the segment was written, a missing offset index may be
 * rebuilt with a warning although none was lost: harmless, the rebuild is what the new interval asks
 * for.) A stray index file with the name of a new segment cannot lend it entries: creation in an
 * existing directory deletes stale files of its names first, and a file is opened with {@code O_TRUNC}
 * when its index believes it absent.
 *
 * <p>Thread-safety: mutations (append, truncate, recover, activate/deactivate, rename) are done by the
 * owner of the partition's lock; reads ({@link #read}, {@link #translateOffset},
 * {@link #findOffsetByTimestamp}) run concurrently and are bounded by a size the caller read before.
 */
final class LogSegment {
    static final Logger log = LoggerFactory.getLogger(LogSegment.class);
    private static final int SCAN_BUFFER = 16 * 1024;

    /** Where a batch is: file position, offsets and size. */
    record BatchLocation(int position, long baseOffset, long lastOffset, int size, long maxTimestamp) {
    }

    /** A segment read: the slice of whole batches and the offset after the last one (null if empty). */
    record SegmentRead(FileSlice slice, long firstOffset, long nextOffset, boolean firstBatchTooLarge) {
    }

    /** Receives every valid batch during {@link #recover}, for producer state, txn index and epochs. */
    interface RecoveryObserver {
        void onBatch(LogSegment segment, RecordBatch batch) throws IOException;
    }

    private static final TimeIndex.TimestampOffset UNKNOWN = new TimeIndex.TimestampOffset(Long.MIN_VALUE, -1);

    final long baseOffset;
    private final Path dir;
    private final FileRecords records;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final TransactionIndex txnIndex;
    private final int indexIntervalBytes;
    private final long rollJitterMs;
    private final Time time;
    private int bytesSinceLastIndexEntry;
    /** Largest batch max timestamp and the last offset of its batch; UNKNOWN until loaded. */
    private volatile TimeIndex.TimestampOffset maxTimestamp = UNKNOWN;
    /** The max timestamp of the segment's first batch, which segment.ms counts from; Long.MIN_VALUE until read. */
    private volatile long rollingBasedTimestamp = Long.MIN_VALUE;
    /** Wall-clock time the segment was opened or truncated empty: segment.ms counts from it without a first timestamp. */
    private volatile long createdMs;
    private volatile boolean active;
    /** Set when opening found an index missing or malformed: rebuild before use. */
    private boolean needsIndexRebuild;
    private boolean txnIndexCorrupt;

    private LogSegment(Path dir, long baseOffset, FileRecords records, OffsetIndex offsetIndex, TimeIndex timeIndex,
            TransactionIndex txnIndex, LogConfig config, Time time, boolean needsIndexRebuild, boolean txnIndexCorrupt,
            TimeIndex.TimestampOffset maxTimestamp) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.records = records;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.txnIndex = txnIndex;
        this.indexIntervalBytes = config.indexIntervalBytes();
        this.rollJitterMs = config.segmentJitterMs() > 0
                ? ThreadLocalRandom.current().nextLong(config.segmentJitterMs()) : 0;
        this.time = time;
        this.needsIndexRebuild = needsIndexRebuild;
        this.txnIndexCorrupt = txnIndexCorrupt;
        this.maxTimestamp = maxTimestamp;
        this.createdMs = time.milliseconds();
    }

    /**
     * Opens the existing segment at {@code baseOffset} (or with {@code create}, creates it empty as
     * {@link #create} in a directory that already holds files), every file name carrying {@code suffix}
     * ("" normally, {@code .swap} / {@code .cleaned} for compaction output). An index that is malformed,
     * or missing although the segment must have one (see the class comment), is replaced by an empty one
     * and flagged ({@link #needsIndexRebuild()}); the segment starts inactive.
     */
    static LogSegment open(Path dir, long baseOffset, LogConfig config, OpenFileCache cache, Time time,
            boolean create, String suffix) throws IOException {
        if (create) {
            return create(dir, baseOffset, config, cache, time, suffix, false);
        }
        Path logFile = LogFileNames.file(dir, baseOffset, LogFileNames.LOG, suffix);
        Path indexFile = LogFileNames.file(dir, baseOffset, LogFileNames.INDEX, suffix);
        Path timeFile = LogFileNames.file(dir, baseOffset, LogFileNames.TIME_INDEX, suffix);
        Path txnFile = LogFileNames.file(dir, baseOffset, LogFileNames.TXN_INDEX, suffix);
        FileRecords records = FileRecords.open(logFile, cache, false);
        boolean rebuild = false;
        OffsetIndex offsetIndex;
        try {
            offsetIndex = new OffsetIndex(indexFile, baseOffset, config.segmentIndexBytes(), cache, records::sizeInBytes, true);
        } catch (CorruptIndexException e) {
            log.warn("{}; rebuilding it", e.getMessage());
            Files.delete(indexFile);
            offsetIndex = new OffsetIndex(indexFile, baseOffset, config.segmentIndexBytes(), cache, records::sizeInBytes, false);
            rebuild = true;
        }
        TimeIndex timeIndex;
        try {
            timeIndex = new TimeIndex(timeFile, baseOffset, config.segmentIndexBytes(), cache, true);
        } catch (CorruptIndexException e) {
            log.warn("{}; rebuilding it", e.getMessage());
            Files.delete(timeFile);
            timeIndex = new TimeIndex(timeFile, baseOffset, config.segmentIndexBytes(), cache, false);
            rebuild = true;
        }
        int size = records.sizeInBytes();
        if (!offsetIndex.exists() && offsetIndexEntryPossible(size, config.indexIntervalBytes())) {
            rebuild = true; // lost: a segment this large leaves a file when it becomes inactive
        }
        if (!timeIndex.exists() && size > 0) {
            rebuild = true; // lost: a non-empty segment leaves a file when it becomes inactive
        }
        TransactionIndex txnIndex;
        boolean txnCorrupt = false;
        try {
            txnIndex = new TransactionIndex(txnFile, baseOffset, true);
            if (txnIndex.entries() > 0 && txnIndex.check() != null) {
                log.warn("{}: {}; recovering the segment", txnFile, txnIndex.check());
                txnCorrupt = true;
            }
        } catch (CorruptIndexException e) {
            log.warn("{}; recovering the segment", e.getMessage());
            Files.delete(txnFile);
            txnIndex = new TransactionIndex(txnFile, baseOffset, false);
            txnCorrupt = true;
        }
        return new LogSegment(dir, baseOffset, records, offsetIndex, timeIndex, txnIndex, config, time, rebuild, txnCorrupt,
                UNKNOWN);
    }

    /**
     * Creates the empty segment at {@code baseOffset}: the {@code .log} file only, its channel pinned
     * for appends (the indexes create their files with their first entries). The segment starts inactive;
     * {@link #activate()} costs nothing more. In a directory that already held files
     * ({@code freshDirectory} false: a roll, a full truncation, compaction output) stale files with the
     * segment's names are deleted first, so that no earlier segment's index is ever taken for this one's
     * (four unlinks per roll); in a directory just made there is nothing to delete.
     */
    static LogSegment create(Path dir, long baseOffset, LogConfig config, OpenFileCache cache, Time time, String suffix,
            boolean freshDirectory) throws IOException {
        Path logFile = LogFileNames.file(dir, baseOffset, LogFileNames.LOG, suffix);
        Path indexFile = LogFileNames.file(dir, baseOffset, LogFileNames.INDEX, suffix);
        Path timeFile = LogFileNames.file(dir, baseOffset, LogFileNames.TIME_INDEX, suffix);
        Path txnFile = LogFileNames.file(dir, baseOffset, LogFileNames.TXN_INDEX, suffix);
        if (!freshDirectory) {
            Files.deleteIfExists(indexFile);
            Files.deleteIfExists(timeFile);
            Files.deleteIfExists(txnFile);
        }
        FileRecords records = FileRecords.create(logFile, cache, !freshDirectory);
        OffsetIndex offsetIndex = new OffsetIndex(indexFile, baseOffset, config.segmentIndexBytes(), cache,
                records::sizeInBytes, false);
        TimeIndex timeIndex = new TimeIndex(timeFile, baseOffset, config.segmentIndexBytes(), cache, false);
        TransactionIndex txnIndex = new TransactionIndex(txnFile, baseOffset, false);
        return new LogSegment(dir, baseOffset, records, offsetIndex, timeIndex, txnIndex, config, time, false, false,
                new TimeIndex.TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset));
    }

    /**
     * Whether a segment of {@code size} bytes can have an offset index entry: the first entry is for the
     * first batch starting more than {@code indexIntervalBytes} into the segment, and a batch is at least
     * a header long.
     */
    static boolean offsetIndexEntryPossible(int size, int indexIntervalBytes) {
        return size > (long) indexIntervalBytes + RecordBatch.HEADER_SIZE;
    }

    FileRecords records() {
        return records;
    }

    OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    TransactionIndex txnIndex() {
        return txnIndex;
    }

    int size() {
        return records.sizeInBytes();
    }

    boolean isActive() {
        return active;
    }

    boolean needsIndexRebuild() {
        return needsIndexRebuild;
    }

    boolean txnIndexCorrupt() {
        return txnIndexCorrupt;
    }

    boolean canConvertToRelativeOffset(long offset) {
        long rel = offset - baseOffset;
        return rel >= 0 && rel <= Integer.MAX_VALUE;
    }

    // ---------------------------------------------------------------- life cycle

    /**
     * Pins the channel and makes the indexes writable (each maps its file at its first write): this is now
     * the last segment. Checks the indexes first unless they are to be rebuilt.
     */
    void activate() throws IOException {
        if (active) {
            return;
        }
        if (!needsIndexRebuild) {
            try {
                offsetIndex.verify();
                timeIndex.verify();
            } catch (CorruptIndexException e) {
                log.warn("{}; rebuilding the indexes", e.getMessage());
                needsIndexRebuild = true;
            }
        }
        pinForAppends();
        if (needsIndexRebuild) {
            rebuildIndexes();
        } else {
            int lastIndexed = offsetIndex.lookup(Long.MAX_VALUE).position();
            bytesSinceLastIndexEntry = size() - lastIndexed;
            loadMaxTimestamp();
        }
    }

    /**
     * Activates the segment for {@link #recover}, which recomputes the offset and time indexes from the log:
     * their entries are discarded unread, so an index that a crash left preallocated (zeros after the
     * last entry) is neither checked nor rebuilt twice, and is not reported as corrupt.
     */
    void activateForRecovery() throws IOException {
        if (active) {
            return;
        }
        offsetIndex.discardEntries();
        timeIndex.discardEntries();
        pinForAppends();
    }

    private void pinForAppends() throws IOException {
        records.pin();
        offsetIndex.activate();
        timeIndex.activate();
        active = true;
    }

    /**
     * Writes the final time index entry, leaves empty files for indexes whose absence could otherwise be
     * taken for a loss (see the class comment), trims the indexes and unpins the channel (roll, clean
     * close).
     */
    void onBecomeInactive() throws IOException {
        if (!active) {
            return;
        }
        TimeIndex.TimestampOffset max = maxTimestampAndOffset();
        if (max.timestamp() >= 0) {
            timeIndex.maybeAppend(max.timestamp(), max.offset(), true);
        }
        int size = size();
        if (size > 0) {
            if (!timeIndex.exists()) {
                timeIndex.createEmptyFile(); // no batch had a timestamp
            }
            if (!offsetIndex.exists() && offsetIndexEntryPossible(size, indexIntervalBytes)) {
                offsetIndex.createEmptyFile(); // large enough for an entry, yet none was due
            }
        }
        offsetIndex.deactivate();
        timeIndex.deactivate();
        records.unpin();
        active = false;
    }

    // ---------------------------------------------------------------- append

    /**
     * Appends {@code length} bytes of whole batches from absolute {@code index} of {@code buf} (active
     * segment, append lock held), then adds index entries: one per {@code index.interval.bytes}, keyed by
     * a batch's last offset, with a time index entry when the max timestamp grew.
     */
    void append(ByteBuf buf, int index, int length, RecordBatch flyweight) throws IOException {
        if (size() == 0) {
            rollingBasedTimestamp = flyweight.wrap(buf, index).maxTimestamp();
        }
        int position = records.append(buf, index, length);
        TimeIndex.TimestampOffset max = maxTimestampAndOffset();
        int i = index;
        int end = index + length;
        while (i < end) {
            RecordBatch batch = flyweight.wrap(buf, i);
            int size = batch.sizeInBytes();
            indexBatch(position + (i - index), size, batch.lastOffset(), batch.maxTimestamp(), max);
            max = maxTimestamp;
            i += size;
        }
    }

    private void indexBatch(int position, int size, long lastOffset, long batchMaxTimestamp,
            TimeIndex.TimestampOffset max) throws IOException {
        if (batchMaxTimestamp > max.timestamp()) {
            max = new TimeIndex.TimestampOffset(batchMaxTimestamp, lastOffset);
            maxTimestamp = max;
        }
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.append(lastOffset, position);
            if (max.timestamp() >= 0) {
                timeIndex.maybeAppend(max.timestamp(), max.offset(), false);
            }
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += size;
    }

    /**
     * Whether the next append of {@code appendBytes} bytes ending at {@code lastOffset}, whose largest
     * timestamp is {@code appendMaxTimestamp} (-1: none), needs a new segment.
     */
    boolean shouldRoll(LogConfig config, int appendBytes, long lastOffset, long appendMaxTimestamp, long now) {
        int size = size();
        if (size == 0) {
            return !canConvertToRelativeOffset(lastOffset);
        }
        boolean fullBySize = size > config.segmentBytes() - appendBytes;
        boolean fullByTime = timeWaitedForRoll(appendMaxTimestamp, now) > config.segmentMs() - rollJitterMs;
        return fullBySize || fullByTime || offsetIndex.isFull() || timeIndex.isFullForAppend()
                || !canConvertToRelativeOffset(lastOffset);
    }

    /**
     * How far segment.ms has run, counted as Kafka counts it (LogSegment#timeWaitedForRoll): in record
     * time, from the max timestamp of the segment's first batch to the append's, so that a segment spans
     * at most segment.ms of record time (time-based retention then drops old records apart from new ones,
     * and a Fetch, which reads one segment, stops where Kafka's does); in wall-clock time since the segment
     * was opened when its first batch has no timestamp.
     */
    long timeWaitedForRoll(long appendMaxTimestamp, long now) {
        long first = rollingBasedTimestamp();
        return first >= 0 ? appendMaxTimestamp - first : now - createdMs;
    }

    /** The max timestamp of the segment's first batch (-1 if it has none, or no batch yet). */
    long rollingBasedTimestamp() {
        long t = rollingBasedTimestamp;
        if (t != Long.MIN_VALUE) {
            return t;
        }
        if (size() < RecordBatch.HEADER_SIZE) {
            return RecordBatch.NO_TIMESTAMP;
        }
        t = RecordBatch.NO_TIMESTAMP;
        try (BatchReader reader = new BatchReader(records, 0, size(), RecordBatch.HEADER_SIZE)) {
            RecordBatch first = reader.next();
            if (first != null) {
                t = first.maxTimestamp();
            }
        } catch (IOException | RuntimeException e) {
            log.debug("reading the first batch of {} failed", records.file(), e);
        }
        rollingBasedTimestamp = t;
        return t;
    }

    // ---------------------------------------------------------------- reads

    /**
     * The first batch at or after {@code startPosition} whose last offset is at least {@code offset},
     * scanning headers up to {@code maxPosition}; null if there is none.
     */
    BatchLocation translateOffset(long offset, int startPosition, int maxPosition) throws IOException {
        try (HeaderScanner scan = new HeaderScanner(records, startPosition, maxPosition)) {
            while (scan.next()) {
                if (scan.lastOffset >= offset) {
                    return new BatchLocation(scan.position, scan.baseOffset, scan.lastOffset, scan.size, scan.maxTimestamp);
                }
            }
            return null;
        }
    }

    /** The index's start position for {@code offset}, rebuilding a corrupt index on the way. */
    int indexedPosition(long offset) throws IOException {
        try {
            return offsetIndex.lookup(offset).position();
        } catch (CorruptIndexException e) {
            handleCorruptIndex(e);
            return offsetIndex.lookup(offset).position();
        }
    }

    /**
     * Reads whole batches starting with the one containing {@code startOffset} (or the first after it),
     * up to {@code maxSize} bytes (the first batch regardless when {@code minOneBatch}), stopping before
     * the first batch whose last offset reaches {@code maxOffset} and at {@code maxPosition}.
     *
     * @return null if no batch of this segment (below maxPosition) reaches startOffset
     */
    SegmentRead read(long startOffset, int maxSize, int maxPosition, long maxOffset, boolean minOneBatch) throws IOException {
        int start = indexedPosition(startOffset);
        try (HeaderScanner scan = new HeaderScanner(records, start, maxPosition)) {
            while (scan.next()) {
                if (scan.lastOffset >= startOffset) {
                    break;
                }
            }
            if (!scan.valid) {
                return null;
            }
            int firstPosition = scan.position;
            long firstOffset = scan.baseOffset;
            int length = 0;
            long nextOffset = startOffset;
            boolean tooLarge = false;
            // Skip the headers of batches the index proves whole and below the bounds: one header read
            // per index entry instead of one per batch.
            int limit = (int) Math.min(maxPosition, (long) firstPosition + maxSize);
            if (scan.lastOffset < maxOffset && scan.position + scan.size <= limit) {
                OffsetIndex.OffsetPosition jump = lastEntryWithin(limit, maxOffset);
                if (jump != null && jump.position() > scan.position + scan.size) {
                    scan.seek(jump.position());
                    if (scan.next()) {
                        length = jump.position() - firstPosition;
                        // The batches before are returned; reading on from this batch's base is equivalent.
                        nextOffset = scan.baseOffset;
                    } else {
                        scan.seek(firstPosition);
                        scan.next();
                    }
                }
            }
            do {
                if (scan.lastOffset >= maxOffset) {
                    break;
                }
                if ((long) length + scan.size > maxSize) {
                    if (length == 0) {
                        if (minOneBatch) {
                            length = scan.size;
                            nextOffset = scan.lastOffset + 1;
                        } else {
                            tooLarge = true;
                        }
                    }
                    break;
                }
                length += scan.size;
                nextOffset = scan.lastOffset + 1;
            } while (scan.next());
            return new SegmentRead(records.slice(firstPosition, length), firstOffset, nextOffset, tooLarge);
        }
    }

    private OffsetIndex.OffsetPosition lastEntryWithin(int limit, long maxOffset) throws IOException {
        try {
            return offsetIndex.lastEntryWithin(limit, maxOffset);
        } catch (CorruptIndexException e) {
            handleCorruptIndex(e);
            return offsetIndex.lastEntryWithin(limit, maxOffset);
        }
    }

    /**
     * The first record at or after {@code startingOffset} with timestamp &gt;= {@code timestamp}, or null.
     * Starts from the time index, scans batch headers, then walks the records of the matching batch
     * (decompressing it if needed).
     */
    TimestampAndOffset findOffsetByTimestamp(long timestamp, long startingOffset) throws IOException {
        long fromOffset = Math.max(startingOffset, timeIndexLookup(timestamp).offset());
        int start = indexedPosition(fromOffset);
        int max = size();
        try (BatchReader reader = new BatchReader(records, start, max, SCAN_BUFFER)) {
            RecordBatch batch;
            while ((batch = reader.next()) != null) {
                if (batch.lastOffset() < startingOffset || batch.maxTimestamp() < timestamp) {
                    continue;
                }
                TimestampAndOffset found = firstRecordAtOrAfter(batch, timestamp, startingOffset);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private TimeIndex.TimestampOffset timeIndexLookup(long timestamp) throws IOException {
        try {
            return timeIndex.lookup(timestamp);
        } catch (CorruptIndexException e) {
            handleCorruptIndex(e);
            return timeIndex.lookup(timestamp);
        }
    }

    static TimestampAndOffset firstRecordAtOrAfter(RecordBatch batch, long timestamp, long startingOffset) {
        TimestampAndOffset[] found = new TimestampAndOffset[1];
        try (DecompressionBuffer scratch = batch.compression() == CompressionType.NONE ? null : new DecompressionBuffer()) {
            batch.forEachRecord(r -> {
                if (r.offset() >= startingOffset && r.timestamp() >= timestamp) {
                    found[0] = new TimestampAndOffset(r.timestamp(), r.offset(), java.util.OptionalInt.empty());
                    return false;
                }
                return true;
            }, scratch);
        }
        return found[0];
    }

    /**
     * The record ListOffsets MAX_TIMESTAMP names in this segment, given the segment's
     * {@link #maxTimestampAndOffset()} {@code max}: the first batch, from the offset index's entry for
     * {@code max}'s offset on, whose max timestamp is {@code max}'s (-1 too: in a segment without timestamps
     * that is its first batch), and in it the first record carrying that timestamp (every record of a
     * LogAppendTime batch does), with the batch's leader epoch. Null if the segment is empty or that batch
     * has no such record. Kafka 4.4 answers the same way (UnifiedLog#fetchOffsetByTimestamp and
     * RecordBatch#offsetOfMaxTimestamp), so both brokers name the same record.
     */
    TimestampAndOffset firstRecordWithMaxTimestamp(TimeIndex.TimestampOffset max) throws IOException {
        int start = indexedPosition(max.offset());
        try (BatchReader reader = new BatchReader(records, start, size(), SCAN_BUFFER)) {
            RecordBatch batch;
            while ((batch = reader.next()) != null) {
                if (batch.maxTimestamp() != max.timestamp()) {
                    continue;
                }
                long offset = firstOffsetWithTimestamp(batch, max.timestamp());
                if (offset < 0) {
                    return null;
                }
                int epoch = batch.partitionLeaderEpoch();
                return new TimestampAndOffset(max.timestamp(), offset, epoch >= 0 ? OptionalInt.of(epoch) : OptionalInt.empty());
            }
        }
        return null;
    }

    /** The offset of the batch's first record whose timestamp is exactly {@code timestamp}, or -1. */
    private static long firstOffsetWithTimestamp(RecordBatch batch, long timestamp) {
        long[] found = {-1};
        try (DecompressionBuffer scratch = batch.compression() == CompressionType.NONE ? null : new DecompressionBuffer()) {
            batch.forEachRecord(r -> {
                if (r.timestamp() == timestamp) {
                    found[0] = r.offset();
                    return false;
                }
                return true;
            }, scratch);
        }
        return found[0];
    }

    /** The offset after the segment's last batch, or the base offset when empty. */
    long readNextOffset() throws IOException {
        int size = size();
        if (size == 0) {
            return baseOffset;
        }
        int start = indexedPosition(Long.MAX_VALUE);
        long next = baseOffset;
        try (HeaderScanner scan = new HeaderScanner(records, start, size)) {
            while (scan.next()) {
                next = scan.lastOffset + 1;
            }
        }
        return next;
    }

    /** Largest batch max timestamp and the offset of its batch's end; (-1, base) for a segment without. */
    TimeIndex.TimestampOffset maxTimestampAndOffset() throws IOException {
        TimeIndex.TimestampOffset m = maxTimestamp;
        if (m == UNKNOWN) {
            loadMaxTimestamp();
            m = maxTimestamp;
        }
        return m;
    }

    private void loadMaxTimestamp() throws IOException {
        TimeIndex.TimestampOffset last;
        try {
            last = timeIndex.lastEntry();
        } catch (CorruptIndexException e) {
            handleCorruptIndex(e);
            last = timeIndex.lastEntry();
        }
        // The final entry written at roll/close makes this exact for a cleanly closed segment; batches after
        // the last entry (an active segment loaded after recovery or truncation) are scanned.
        TimeIndex.TimestampOffset max = last;
        int start = indexedPosition(last.offset());
        try (HeaderScanner scan = new HeaderScanner(records, start, size())) {
            while (scan.next()) {
                if (scan.maxTimestamp > max.timestamp()) {
                    max = new TimeIndex.TimestampOffset(scan.maxTimestamp, scan.lastOffset);
                }
            }
        }
        maxTimestamp = max;
    }

    /**
     * The segment's largest timestamp for retention: the largest batch max timestamp, or the file's
     * modification time when no batch has a timestamp.
     */
    long largestTimestamp() throws IOException {
        long ts = maxTimestampAndOffset().timestamp();
        return ts >= 0 ? ts : lastModified();
    }

    long lastModified() throws IOException {
        return Files.getLastModifiedTime(records.file()).toMillis();
    }

    // ---------------------------------------------------------------- recovery and truncation

    private void handleCorruptIndex(CorruptIndexException e) throws IOException {
        synchronized (this) {
            log.warn("{}; rebuilding the indexes of segment {}", e.getMessage(), baseOffset);
            boolean wasActive = active;
            if (!wasActive) {
                offsetIndex.activate();
                timeIndex.activate();
            }
            rebuildIndexes();
            if (!wasActive) {
                TimeIndex.TimestampOffset max = maxTimestamp;
                if (max.timestamp() >= 0) {
                    timeIndex.maybeAppend(max.timestamp(), max.offset(), true);
                }
                offsetIndex.deactivate();
                timeIndex.deactivate();
            }
        }
    }

    /** Rebuilds the offset and time indexes from the batch headers (indexes must be active). */
    void rebuildIndexes() throws IOException {
        offsetIndex.reset();
        timeIndex.reset();
        bytesSinceLastIndexEntry = 0;
        TimeIndex.TimestampOffset max = new TimeIndex.TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
        maxTimestamp = max;
        try (HeaderScanner scan = new HeaderScanner(records, 0, size())) {
            while (scan.next()) {
                indexBatch(scan.position, scan.size, scan.lastOffset, scan.maxTimestamp, max);
                max = maxTimestamp;
            }
        }
        needsIndexRebuild = false;
    }

    /**
     * Validates every batch (length, magic, codec, CRC, offsets increasing and fitting the segment),
     * rebuilds the three indexes from the valid ones, reports each to {@code observer}, and truncates the
     * file after the last valid batch. The segment must be active (indexes writable; see
     * {@link #activateForRecovery()}).
     *
     * @return bytes truncated
     */
    int recover(RecoveryObserver observer) throws IOException {
        offsetIndex.reset();
        timeIndex.reset();
        txnIndex.reset();
        bytesSinceLastIndexEntry = 0;
        TimeIndex.TimestampOffset max = new TimeIndex.TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
        maxTimestamp = max;
        int size = size();
        int validBytes = 0;
        long expectedMinOffset = baseOffset;
        try (BatchReader reader = new BatchReader(records, 0, size, 1024 * 1024)) {
            RecordBatch batch;
            while ((batch = reader.next()) != null) {
                try {
                    batch.validate(batch.sizeInBytes());
                } catch (CorruptRecordException e) {
                    log.warn("segment {} of {}: invalid batch at position {}: {}", baseOffset, dir, reader.position(),
                            e.getMessage());
                    break;
                }
                if (batch.baseOffset() < expectedMinOffset || !canConvertToRelativeOffset(batch.lastOffset())) {
                    log.warn("segment {} of {}: batch at position {} has offsets {}..{}, expected from {}", baseOffset,
                            dir, reader.position(), batch.baseOffset(), batch.lastOffset(), expectedMinOffset);
                    break;
                }
                indexBatch(reader.position(), batch.sizeInBytes(), batch.lastOffset(), batch.maxTimestamp(), max);
                max = maxTimestamp;
                observer.onBatch(this, batch);
                expectedMinOffset = batch.lastOffset() + 1;
                validBytes = reader.nextPosition();
            }
        }
        needsIndexRebuild = false;
        txnIndexCorrupt = false;
        int truncated = size - validBytes;
        if (truncated > 0) {
            log.warn("segment {} of {}: truncating {} invalid bytes at position {}", baseOffset, dir, truncated, validBytes);
            records.truncateTo(validBytes);
        }
        if (validBytes == 0) {
            rollingBasedTimestamp = Long.MIN_VALUE;
            createdMs = time.milliseconds();
        }
        return truncated;
    }

    /**
     * Removes every batch whose last offset is at least {@code offset} (a batch straddling it goes whole)
     * from the file and the indexes. The segment must be active.
     *
     * @return bytes removed
     */
    int truncateTo(long offset) throws IOException {
        BatchLocation loc = translateOffset(offset, indexedPosition(offset), size());
        offsetIndex.truncateTo(offset);
        timeIndex.truncateTo(offset);
        txnIndex.truncateTo(offset);
        if (loc == null) {
            return 0;
        }
        int before = size();
        records.truncateTo(loc.position());
        int lastIndexed = offsetIndex.lookup(Long.MAX_VALUE).position();
        bytesSinceLastIndexEntry = size() - lastIndexed;
        maxTimestamp = UNKNOWN;
        loadMaxTimestamp();
        if (size() == 0) {
            rollingBasedTimestamp = Long.MIN_VALUE;
            createdMs = time.milliseconds();
        }
        return before - size();
    }

    // ---------------------------------------------------------------- files

    /** fsync of the log, indexes and txn index. */
    void flush() throws IOException {
        records.flush();
        offsetIndex.flush();
        timeIndex.flush();
        txnIndex.flush();
    }

    /**
     * Renames every file from {@code oldSuffix} to {@code newSuffix} (e.g. "" to ".deleted"), replacing
     * existing targets: a {@code .deleted} file of an earlier segment with the same base offset (cleaned or
     * truncated again within file.delete.delay.ms) is garbage.
     */
    void changeFileSuffixes(String oldSuffix, String newSuffix) throws IOException {
        // The log file last: compaction relies on a renamed .log meaning the indexes were renamed before it.
        offsetIndex.renameTo(rename(offsetIndex.file(), oldSuffix, newSuffix));
        timeIndex.renameTo(rename(timeIndex.file(), oldSuffix, newSuffix));
        txnIndex.renameTo(rename(txnIndex.file(), oldSuffix, newSuffix));
        records.renameTo(rename(records.file(), oldSuffix, newSuffix));
    }

    private static Path rename(Path file, String oldSuffix, String newSuffix) {
        String name = file.getFileName().toString();
        if (!name.endsWith(oldSuffix)) {
            throw new IllegalStateException(file + " does not end with '" + oldSuffix + "'");
        }
        return file.resolveSibling(name.substring(0, name.length() - oldSuffix.length()) + newSuffix);
    }

    /** Closes the handles (in-flight readers keep theirs) without trimming anything. */
    void closeHandles() {
        records.close();
        offsetIndex.close();
        timeIndex.close();
        active = false;
    }

    /** Clean close: trims the active indexes and writes the final time index entry, then closes. */
    void close() throws IOException {
        try {
            onBecomeInactive();
        } finally {
            closeHandles();
        }
    }

    /**
     * Closes and deletes every file of the segment, the log last: a crash in between leaves either a
     * segment whose lost indexes the next load rebuilds, or no segment, never index files without a log
     * (which a later segment with the same base could be confused with).
     */
    void deleteFiles() throws IOException {
        closeHandles();
        Files.deleteIfExists(offsetIndex.file());
        Files.deleteIfExists(timeIndex.file());
        Files.deleteIfExists(txnIndex.file());
        Files.deleteIfExists(records.file());
    }

    /**
     * Creates the missing index files empty (a compaction swap: the loader completing an interrupted swap
     * relies on every {@code .swap} file being there).
     */
    void createMissingIndexFiles() throws IOException {
        offsetIndex.createEmptyFile();
        timeIndex.createEmptyFile();
        txnIndex.createIfMissing();
    }

    boolean isClosed() {
        return records.isClosed();
    }

    @Override
    public String toString() {
        return "LogSegment(base=" + baseOffset + ", size=" + size() + ", active=" + active + ")";
    }

    /**
     * Scans batch headers through a window buffer (no full batch reads): many small batches cost one read
     * per window, large ones one read per header. Stops at {@code end} or at an implausible header.
     */
    static final class HeaderScanner implements AutoCloseable {
        private static final int FIELDS = RecordBatch.PRODUCER_ID_OFFSET + 8;
        private final BatchReaderWindow window;
        private final int end;
        private int next;
        boolean valid;
        int position;
        int size;
        long baseOffset;
        long lastOffset;
        long maxTimestamp;
        int partitionLeaderEpoch;
        short attributes;
        long producerId;

        HeaderScanner(FileRecords records, int start, int end) throws IOException {
            this.window = BatchReaderWindow.acquire(records, SCAN_BUFFER);
            this.end = end;
            this.next = start;
        }

        /** Continues at {@code position}, which must be a batch start. */
        void seek(int position) {
            next = position;
        }

        boolean next() throws IOException {
            valid = false;
            if (end - next < RecordBatch.HEADER_SIZE) {
                return false;
            }
            if (!window.ensure(next, FIELDS, end)) {
                return false;
            }
            int at = window.index(next);
            int length = window.buf.getInt(at + RecordBatch.LENGTH_OFFSET);
            long total = RecordBatch.LOG_OVERHEAD + (long) length;
            if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD || next + total > end) {
                return false;
            }
            position = next;
            size = (int) total;
            baseOffset = window.buf.getLong(at + RecordBatch.BASE_OFFSET_OFFSET);
            lastOffset = baseOffset + window.buf.getInt(at + RecordBatch.LAST_OFFSET_DELTA_OFFSET);
            maxTimestamp = window.buf.getLong(at + RecordBatch.MAX_TIMESTAMP_OFFSET);
            partitionLeaderEpoch = window.buf.getInt(at + RecordBatch.PARTITION_LEADER_EPOCH_OFFSET);
            attributes = window.buf.getShort(at + RecordBatch.ATTRIBUTES_OFFSET);
            producerId = window.buf.getLong(at + RecordBatch.PRODUCER_ID_OFFSET);
            next += size;
            valid = true;
            return true;
        }

        @Override
        public void close() {
            window.close();
        }
    }

    /**
     * A window of file bytes for {@link HeaderScanner}. After a large batch only the next header's bytes
     * are read (so scanning large batches never reads their data); after small ones a whole window. The
     * buffer is a per-thread scratch reused across scans (a fresh one when a scan nests in another).
     */
    static final class BatchReaderWindow implements AutoCloseable {
        private static final int SMALL_BATCH = 2048;
        private static final ThreadLocal<BatchReaderWindow> SCRATCH = new ThreadLocal<>();

        private final java.nio.ByteBuffer nio;
        final ByteBuf buf;
        private FileRecords.ChannelHandle handle;
        private boolean inUse;
        private long start = -1;
        private int filled;
        private long lastPos = -1;

        private BatchReaderWindow(int capacity) {
            this.nio = java.nio.ByteBuffer.allocate(capacity);
            this.buf = io.netty.buffer.Unpooled.wrappedBuffer(nio.array());
        }

        static BatchReaderWindow acquire(FileRecords records, int capacity) throws IOException {
            BatchReaderWindow w = SCRATCH.get();
            if (w == null || w.inUse || w.nio.capacity() != capacity) {
                w = new BatchReaderWindow(capacity);
                if (SCRATCH.get() == null) {
                    SCRATCH.set(w);
                }
            }
            w.handle = records.acquire();
            w.inUse = true;
            w.start = -1;
            w.filled = 0;
            w.lastPos = -1;
            return w;
        }

        boolean ensure(long pos, int len, int end) throws IOException {
            if (start >= 0 && pos >= start && pos + len <= start + filled) {
                lastPos = pos;
                return true;
            }
            boolean largeBatches = lastPos >= 0 && pos - lastPos > SMALL_BATCH;
            int want = largeBatches ? len : nio.capacity();
            nio.clear();
            nio.limit((int) Math.min(want, end - pos));
            filled = FileRecords.readFully(handle.channel, nio, pos);
            start = pos;
            lastPos = pos;
            return filled >= len;
        }

        int index(long pos) {
            return (int) (pos - start);
        }

        @Override
        public void close() {
            FileRecords.ChannelHandle h = handle;
            handle = null;
            inUse = false;
            if (h != null) {
                h.release();
            }
        }
    }
}
