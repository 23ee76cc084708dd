package io.krill.log;

import io.krill.log.epoch.EpochEndOffset;
import io.krill.log.epoch.LeaderEpochCache;
import io.krill.log.producer.CompletedTxn;
import io.krill.log.producer.ProducerAppendInfo;
import io.krill.log.producer.ProducerSnapshotFile;
import io.krill.log.producer.ProducerStateEntry;
import io.krill.log.producer.ProducerStateManager;
import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.ControlRecords;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition: an ordered set of {@link LogSegment}s in the directory
 * {@code <log dir>/<topic>-<partition>}, with the leader-epoch cache ({@code leader-epoch-checkpoint}) and
 * producer state ({@code <offset>.snapshot}) kept consistent with it.
 *
 * <p>Offsets: the log start offset (first readable offset, moved by retention and DeleteRecords), the
 * log end offset (LEO, the next offset to assign), the recovery point (below it every segment is fsynced,
 * indexes included, so crash recovery starts there). The high watermark is the broker's; it may be handed
 * to {@link #updateHighWatermark} so that retention never deletes above it.
 *
 * <p>Thread-safety: appends, roll, truncation, retention and segment swaps take the partition's lock,
 * held only for the operation (the fsync of flush.messages and the flush after a roll are outside it).
 * Reads ({@link #read}, offset lookups, {@link #collectAbortedTransactions}) take no lock: they see a
 * published LEO (volatile, written after the bytes and indexes) and read only complete batches below it.
 *
 * <p>Failure: an I/O error marks the log offline, reports it to the {@link LogDirFailureHandler}, and
 * every later call throws {@link KafkaStorageException}.
 *
 * <p>Parts: {@link LogLoader} opens the directory and recovers it (once, before the log is published);
 * {@link SegmentLookups} answers offset-by-timestamp and aborted-transaction lookups (lock-free, like
 * reads); {@link LogRetention} chooses the segments retention and DeleteRecords delete (under the lock).
 * Appends, reads, flush, truncation, segment swaps and close stay here, with the state they change.
 */
public final class PartitionLog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    /** ListOffsets special timestamps. */
    public static final long LATEST_TIMESTAMP = -1L;
    public static final long EARLIEST_TIMESTAMP = -2L;
    public static final long MAX_TIMESTAMP = -3L;
    public static final long EARLIEST_LOCAL_TIMESTAMP = -4L;

    private final Path dir;
    private final TopicPartition topicPartition;
    private final Time time;
    private final Scheduler scheduler;
    private final OpenFileCache fileCache;
    private final LogDirFailureHandler failureHandler;
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock flushLock = new ReentrantLock();
    private final ConcurrentSkipListMap<Long, LogSegment> segments;
    private final RecordBatch appendFlyweight = new RecordBatch();
    private final LeaderEpochCache epochCache;
    private final ProducerStateManager producerState;
    private volatile LogConfig config;
    private volatile LogOffsetMetadata nextOffsetMetadata;
    private volatile long logStartOffset;
    private volatile long recoveryPoint;
    /** Log data is fsynced below this (may be inside the active segment, unlike the recovery point). */
    private volatile long flushedOffset;
    private volatile long lastFlushTimeMs;
    private volatile long highWatermark = Long.MAX_VALUE;
    /** The lowest log end offset a truncation left since the cleaner last looked (Long.MAX_VALUE: none). */
    private final java.util.concurrent.atomic.AtomicLong truncatedTo = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
    private long unflushedMessages;
    /** Base offset of a segment rolled under the lock and not yet handed to the flush (-1: none). */
    private long rolledAt = -1;
    private volatile boolean offline;
    private volatile boolean closed;
    private final LogLoader.LoadStats loadStats;

    private PartitionLog(Builder b) throws IOException {
        this.dir = b.dir;
        this.topicPartition = TopicPartition.parseDirName(b.dir.getFileName().toString());
        this.config = b.config;
        this.time = b.time;
        this.scheduler = b.scheduler;
        this.fileCache = b.fileCache;
        this.failureHandler = b.failureHandler;
        this.lastFlushTimeMs = time.milliseconds();
        LogLoader.LoadedLog loaded;
        lock.lock();
        try {
            loaded = LogLoader.load(b, topicPartition);
        } finally {
            lock.unlock();
        }
        this.segments = loaded.segments();
        this.epochCache = loaded.epochCache();
        this.producerState = loaded.producerState();
        this.nextOffsetMetadata = loaded.nextOffsetMetadata();
        this.logStartOffset = loaded.logStartOffset();
        this.recoveryPoint = loaded.recoveryPoint();
        this.flushedOffset = loaded.recoveryPoint();
        this.loadStats = loaded.stats();
    }

    /** What loading this log did (crash recovery), for the log dir's summary. */
    LogLoader.LoadStats loadStats() {
        return loadStats;
    }

    /** Starts building a log for the partition directory {@code dir} (named {@code <topic>-<partition>}). */
    public static Builder builder(Path dir) {
        return new Builder(dir);
    }

    /** Settings for opening a {@link PartitionLog}; everything but the directory has a default. */
    public static final class Builder {
        // Package-private: the LogLoader reads the settings it loads with.
        final Path dir;
        LogConfig config = LogConfig.DEFAULT;
        Time time = Time.SYSTEM;
        Scheduler scheduler = Scheduler.IMMEDIATE;
        OpenFileCache fileCache;
        LogDirFailureHandler failureHandler = LogDirFailureHandler.NONE;
        long recoveryPoint = 0;
        long logStartOffset = 0;
        boolean hadCleanShutdown = false;
        long producerIdExpirationMs = 86_400_000L;

        private Builder(Path dir) {
            this.dir = dir;
        }

        public Builder config(LogConfig v) { config = v; return this; }
        public Builder time(Time v) { time = v; return this; }
        /** Runs post-roll flushes and delayed deletions; default {@link Scheduler#IMMEDIATE}. */
        public Builder scheduler(Scheduler v) { scheduler = v; return this; }
        /** Shared bound on open inactive-segment files; default a private cache of 64. */
        public Builder fileCache(OpenFileCache v) { fileCache = v; return this; }
        public Builder failureHandler(LogDirFailureHandler v) { failureHandler = v; return this; }
        /** From the log dir's recovery-point checkpoint (0 if unknown: recover everything after a crash). */
        public Builder recoveryPoint(long v) { recoveryPoint = v; return this; }
        /** From the log dir's log-start-offset checkpoint (0 if unknown: the first segment's base). */
        public Builder logStartOffset(long v) { logStartOffset = v; return this; }
        /** Whether the log dir had a clean-shutdown marker; false recovers from the recovery point. */
        public Builder hadCleanShutdown(boolean v) { hadCleanShutdown = v; return this; }
        public Builder producerIdExpirationMs(long v) { producerIdExpirationMs = v; return this; }

        /** Opens (creating if needed) and loads the log, recovering it if the shutdown was not clean. */
        public PartitionLog open() throws IOException {
            if (fileCache == null) {
                fileCache = new OpenFileCache(64);
            }
            return new PartitionLog(this);
        }
    }

    // =============================================================== appends

    /**
     * Appends batches as the partition leader: assigns offsets from the LEO in place
     * ({@code setBaseOffset}), stamps {@code leaderEpoch}, and with {@code message.timestamp.type =
     * LogAppendTime} sets the batches' timestamp to now (recomputing their CRC). The bytes are otherwise
     * written as given; the caller (the broker) validated them. For {@link AppendOrigin#CLIENT}, producer
     * epochs and sequences are checked and a retried idempotent batch is answered as a duplicate.
     *
     * @param records the batches: the readable bytes of the buffer (not released, not moved; mutated in
     *                place as said)
     * @throws CorruptRecordException if the bytes are not a sequence of whole v2 batches
     * @throws RecordBatchTooLargeException for a batch larger than segment.bytes
     * @throws OutOfOrderSequenceException, InvalidProducerEpochException,
     *         TransactionCoordinatorFencedException from the producer checks
     * @throws KafkaStorageException if the log directory failed
     */
    public AppendInfo appendAsLeader(ByteBuf records, int leaderEpoch, AppendOrigin origin) {
        if (origin == AppendOrigin.REPLICATION) {
            throw new IllegalArgumentException("a leader append comes from a client or a coordinator");
        }
        return append(records, origin, true, leaderEpoch);
    }

    /**
     * Appends batches fetched from the leader with their offsets and epochs unchanged. The first offset
     * must be at least the LEO (gaps are fine: compacted leaders have them) and offsets must increase.
     *
     * @throws UnexpectedAppendOffsetException if the first offset is below the LEO
     * @throws OffsetsOutOfOrderException if the batches' offsets do not increase
     */
    public AppendInfo appendAsFollower(ByteBuf records) {
        return append(records, AppendOrigin.REPLICATION, false, RecordBatch.NO_PARTITION_LEADER_EPOCH);
    }

    private AppendInfo append(ByteBuf records, AppendOrigin origin, boolean assignOffsets, int leaderEpoch) {
        checkOnline();
        int start = records.readerIndex();
        int end = records.writerIndex();
        if (start == end) {
            return AppendInfo.empty(logStartOffset);
        }
        LogConfig cfg = config;
        RecordBatch batch = new RecordBatch();
        int batchCount = 0;
        for (int i = start; i < end; ) {
            int size = RecordBatch.claimedSize(records, i);
            if (size < RecordBatch.HEADER_SIZE || size > end - i) {
                throw new CorruptRecordException("records are not whole batches: a batch at byte " + (i - start)
                        + " claims " + size + " bytes of " + (end - i) + " left");
            }
            batch.wrap(records, i);
            if (batch.magic() != RecordBatch.MAGIC) {
                throw new CorruptRecordException("unsupported record batch magic " + batch.magic());
            }
            if (size > cfg.segmentBytes()) {
                throw new RecordBatchTooLargeException("a batch of " + size + " bytes exceeds segment.bytes "
                        + cfg.segmentBytes() + " of " + topicPartition);
            }
            batchCount++;
            i += size;
        }
        if (!assignOffsets && batchCount > 1) {
            long first = batch.wrap(records, start).baseOffset();
            long last = lastOffsetOf(records, start, end, batch);
            if (last - first > Integer.MAX_VALUE) {
                return appendBatchByBatch(records, start, end);
            }
        }

        boolean flushNeeded;
        AppendInfo info;
        long rolledAt;
        lock.lock();
        try {
            checkOnline();
            info = appendLocked(records, start, end, batchCount, origin, assignOffsets, leaderEpoch, cfg);
            flushNeeded = !info.duplicate() && unflushedMessages >= cfg.flushMessages();
        } catch (IOException e) {
            throw fail("append to " + topicPartition, e);
        } finally {
            rolledAt = takeRolledAt();
            lock.unlock();
        }
        scheduleRollFlush(rolledAt);
        if (flushNeeded) {
            flush(info.lastOffset() + 1);
        }
        return info;
    }

    private static long lastOffsetOf(ByteBuf records, int start, int end, RecordBatch batch) {
        long last = -1;
        for (int i = start; i < end; i += batch.sizeInBytes()) {
            last = batch.wrap(records, i).lastOffset();
        }
        return last;
    }

    /** A follower append spanning more offsets than a segment can: one batch at a time. */
    private AppendInfo appendBatchByBatch(ByteBuf records, int start, int end) {
        RecordBatch batch = new RecordBatch();
        List<AppendInfo> parts = new ArrayList<>();
        for (int i = start; i < end; ) {
            int size = batch.wrap(records, i).sizeInBytes();
            parts.add(appendAsFollower(records.slice(i, size)));
            i += size;
        }
        AppendInfo first = parts.get(0);
        AppendInfo last = parts.get(parts.size() - 1);
        long maxTs = -1;
        long offsetOfMax = -1;
        int batches = 0;
        int recordsCount = 0;
        int bytes = 0;
        List<ProducerAppend> producers = new ArrayList<>();
        for (AppendInfo p : parts) {
            if (p.maxTimestamp() > maxTs) {
                maxTs = p.maxTimestamp();
                offsetOfMax = p.offsetOfMaxTimestamp();
            }
            batches += p.batchCount();
            recordsCount += p.recordCount();
            bytes += p.sizeInBytes();
            producers.addAll(p.producers());
        }
        return new AppendInfo(first.firstOffset(), last.lastOffset(), maxTs, offsetOfMax, -1, last.logStartOffset(),
                batches, recordsCount, bytes, producers, false);
    }

    private AppendInfo appendLocked(ByteBuf records, int start, int end, int batchCount, AppendOrigin origin,
            boolean assignOffsets, int leaderEpoch, LogConfig cfg) throws IOException {
        RecordBatch batch = appendFlyweight;
        long leo = nextOffsetMetadata.offset();
        long now = time.milliseconds();
        boolean logAppendTime = assignOffsets && cfg.timestampType() == TimestampType.LOG_APPEND_TIME;

        // Offsets: assign (leader) or check (follower).
        long next = leo;
        long prevLast = -1;
        for (int i = start; i < end; i += batch.sizeInBytes()) {
            batch.wrap(records, i);
            if (assignOffsets) {
                batch.setBaseOffset(next);
                batch.setPartitionLeaderEpoch(leaderEpoch);
                if (logAppendTime) {
                    batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, now);
                }
                next = batch.lastOffset() + 1;
            } else {
                if (i == start && batch.baseOffset() < leo) {
                    throw new UnexpectedAppendOffsetException(batch.baseOffset(), leo);
                }
                if (i != start && batch.baseOffset() <= prevLast) {
                    throw new OffsetsOutOfOrderException("follower append to " + topicPartition + ": batch at offset "
                            + batch.baseOffset() + " does not follow offset " + prevLast);
                }
                prevLast = batch.lastOffset();
            }
        }

        // Summary and producer state, staged.
        long firstOffset = -1;
        long lastOffset = -1;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long offsetOfMaxTimestamp = -1;
        int recordCount = 0;
        // Producer bookkeeping is allocated only for appends that carry producer ids.
        Map<Long, ProducerAppendInfo> staged = null;
        Map<Long, ProducerAppend> producers = null;
        List<CompletedTxn> completed = null;
        for (int i = start; i < end; i += batch.sizeInBytes()) {
            batch.wrap(records, i);
            if (firstOffset < 0) {
                firstOffset = batch.baseOffset();
            }
            lastOffset = batch.lastOffset();
            if (batch.maxTimestamp() > maxTimestamp) {
                maxTimestamp = batch.maxTimestamp();
                offsetOfMaxTimestamp = batch.lastOffset();
            }
            recordCount += batch.recordCount();
            if (!batch.hasProducerId()) {
                continue;
            }
            if (origin == AppendOrigin.CLIENT && !batch.isControl()) {
                Optional<io.krill.log.producer.BatchMetadata> dup = producerState.lastEntry(batch.producerId())
                        .flatMap(e -> e.findDuplicateBatch(batch.producerEpoch(), batch.baseSequence(), batch.lastSequence()));
                if (dup.isPresent()) {
                    if (batchCount > 1) {
                        throw new OutOfOrderSequenceException("producer " + batch.producerId()
                                + ": a retried batch inside a multi-batch append");
                    }
                    io.krill.log.producer.BatchMetadata m = dup.get();
                    // Kafka answers a duplicate with the original batch's max timestamp as its log append
                    // time, whatever the topic's timestamp type (UnifiedLog.append).
                    return new AppendInfo(m.firstOffset(), m.lastOffset(), m.timestamp(), m.lastOffset(),
                            m.timestamp(), logStartOffset, 0, 0, 0, List.of(), true);
                }
            }
            if (staged == null) {
                staged = new LinkedHashMap<>();
                producers = new LinkedHashMap<>();
                completed = new ArrayList<>(0);
            }
            CompletedTxn txn = stageProducerBatch(producerState, batch, origin, staged);
            if (txn != null) {
                completed.add(txn);
            }
            if (!batch.isControl()) {
                ProducerAppend prev = producers.get(batch.producerId());
                producers.put(batch.producerId(), new ProducerAppend(batch.producerId(), batch.producerEpoch(),
                        prev == null ? batch.baseSequence() : prev.firstSequence(), batch.lastSequence(),
                        prev == null ? batch.baseOffset() : prev.firstOffset(), batch.lastOffset(),
                        batch.isTransactional()));
            }
        }

        LogSegment segment = maybeRoll(end - start, firstOffset, lastOffset, maxTimestamp, now, cfg);
        segment.append(records, start, end - start, batch);

        // Leader epochs.
        if (assignOffsets) {
            if (leaderEpoch >= 0) {
                epochCache.assign(leaderEpoch, firstOffset);
            }
        } else {
            for (int i = start; i < end; i += batch.sizeInBytes()) {
                batch.wrap(records, i);
                int epoch = batch.partitionLeaderEpoch();
                OptionalInt latest = epochCache.latestEpoch();
                if (epoch >= 0 && (latest.isEmpty() || epoch > latest.getAsInt())) {
                    epochCache.assign(epoch, batch.baseOffset());
                }
            }
        }

        // Producer state and aborted transactions.
        if (staged != null) {
            for (ProducerAppendInfo p : staged.values()) {
                producerState.update(p);
            }
            for (CompletedTxn txn : completed) {
                completeTxn(producerState, txn, segment);
            }
        }
        producerState.updateMapEndOffset(lastOffset + 1);

        nextOffsetMetadata = new LogOffsetMetadata(lastOffset + 1, segment.baseOffset, segment.size());
        unflushedMessages += recordCount;
        return new AppendInfo(firstOffset, lastOffset, maxTimestamp, offsetOfMaxTimestamp, logAppendTime ? now : -1,
                logStartOffset, batchCount, recordCount, end - start,
                producers == null ? List.of() : new ArrayList<>(producers.values()), false);
    }

    /** Ends a transaction in producer state; an abort is also written to {@code txnIndexTarget}'s index. */
    static void completeTxn(ProducerStateManager producerState, CompletedTxn txn, LogSegment txnIndexTarget)
            throws IOException {
        if (txn.aborted() && txnIndexTarget != null) {
            long lso = producerState.lastStableOffset(txn);
            txnIndexTarget.txnIndex().append(new AbortedTxn(txn.producerId(), txn.firstOffset(), txn.lastOffset(), lso));
        }
        producerState.completeTxn(txn);
    }

    /**
     * Stages one batch's effect on its producer; returns the transaction a marker completes. Shared by
     * appends and the {@link LogLoader}'s replay.
     */
    static CompletedTxn stageProducerBatch(ProducerStateManager producerState, RecordBatch batch, AppendOrigin origin,
            Map<Long, ProducerAppendInfo> staged) {
        long pid = batch.producerId();
        ProducerAppendInfo info = staged.computeIfAbsent(pid, p -> producerState.prepareUpdate(p, origin));
        if (batch.isControl()) {
            // The one record decoded on the append path: a control batch's single record says abort or commit.
            ControlRecordType[] type = {ControlRecordType.UNKNOWN};
            int[] coordinatorEpoch = {-1};
            batch.forEachRecord(r -> {
                type[0] = ControlRecords.type(r);
                if (type[0].isTransactionMarker()) {
                    coordinatorEpoch[0] = ControlRecords.coordinatorEpoch(r);
                }
                return false;
            });
            if (!type[0].isTransactionMarker()) {
                return null;
            }
            return info.appendEndTxnMarker(type[0] == ControlRecordType.ABORT, batch.producerEpoch(),
                    coordinatorEpoch[0], batch.baseOffset(), batch.maxTimestamp());
        }
        info.appendDataBatch(batch.producerEpoch(), batch.baseSequence(), batch.lastSequence(), batch.maxTimestamp(),
                batch.baseOffset(), batch.lastOffset(), batch.isTransactional());
        return null;
    }

    private LogSegment maybeRoll(int appendBytes, long firstOffset, long lastOffset, long maxTimestamp, long now,
            LogConfig cfg) throws IOException {
        LogSegment active = segments.lastEntry().getValue();
        if (!active.shouldRoll(cfg, appendBytes, lastOffset, maxTimestamp, now)) {
            return active;
        }
        return roll(Math.max(firstOffset, nextOffsetMetadata.offset()));
    }

    /** Rolls a new active segment at the log end offset if the current one is not empty. */
    public void roll() {
        checkOnline();
        long rolledAt;
        lock.lock();
        try {
            checkOnline();
            roll(nextOffsetMetadata.offset());
        } catch (IOException e) {
            throw fail("roll of " + topicPartition, e);
        } finally {
            rolledAt = takeRolledAt();
            lock.unlock();
        }
        scheduleRollFlush(rolledAt);
    }

    /** The base of the segment a roll under the lock created, to flush up to once the lock is released. */
    private long takeRolledAt() {
        long r = rolledAt;
        rolledAt = -1;
        return r;
    }

    /**
     * Flushes the rolled segment off the append path, on the scheduler: never under the partition lock,
     * since a flush takes the flush lock and then the partition lock.
     */
    private void scheduleRollFlush(long newBase) {
        if (newBase < 0) {
            return;
        }
        scheduler.schedule("flush-" + topicPartition, () -> {
            try {
                flush(newBase);
            } catch (KafkaStorageException e) {
                log.debug("post-roll flush of {} skipped: {}", topicPartition, e.getMessage());
            }
        }, 0);
    }

    private LogSegment roll(long newBase) throws IOException {
        LogSegment active = segments.lastEntry().getValue();
        if (active.size() == 0 && active.baseOffset == newBase) {
            return active;
        }
        long leo = nextOffsetMetadata.offset();
        // An empty active segment too far below the next offset (a follower jump) stays as an empty
        // inactive segment, as in Kafka: the log start offset never falls below the first segment's base.
        active.onBecomeInactive();
        LogSegment segment = LogSegment.open(dir, newBase, config, fileCache, time, true, "");
        segment.activate();
        segments.put(newBase, segment);
        nextOffsetMetadata = new LogOffsetMetadata(leo, newBase, 0);
        // Producer state at the roll: written now (small), fsynced by the flush of the rolled segment.
        producerState.updateMapEndOffset(newBase);
        producerState.writeSnapshot(newBase, producerState.snapshotBytes(), false);
        rolledAt = Math.max(rolledAt, newBase);
        log.debug("{}: rolled segment {}", topicPartition, newBase);
        return segment;
    }

    // =============================================================== flush

    /** fsyncs everything appended so far (see {@link #flush(long)}). */
    public void flush() {
        flush(logEndOffset());
    }

    /**
     * Makes the log durable below {@code offset}: whole segments below it are fsynced with their indexes
     * and the recovery point moves to the segment holding {@code offset}; the data of that segment is
     * fsynced too (one fdatasync of the active segment: what {@code flush.messages=1} costs per append).
     * Concurrent flushes are grouped: a flush already covered by another returns at once.
     */
    public void flush(long offset) {
        checkOnline();
        flushLock.lock();
        try {
            long target = Math.min(offset, logEndOffset());
            if (target <= flushedOffset) {
                return;
            }
            long rp = recoveryPoint;
            Long startBase = segments.floorKey(rp);
            Collection<LogSegment> range = (startBase == null ? segments : segments.tailMap(startBase)).values();
            long newRecoveryPoint = rp;
            for (LogSegment s : range) {
                if (s.baseOffset >= target) {
                    break;
                }
                Long nextBase = segments.higherKey(s.baseOffset);
                try {
                    if (nextBase != null && nextBase <= target) {
                        s.flush();
                        newRecoveryPoint = nextBase;
                    } else {
                        s.records().flush();
                    }
                } catch (SegmentClosedException e) {
                    // deleted or replaced meanwhile: nothing to flush there
                } catch (IOException e) {
                    if (segments.get(s.baseOffset) == s) {
                        throw e;
                    }
                    // renamed for deletion or replaced by compaction under us: not an error of the disk
                }
            }
            for (long snap : producerState.snapshotOffsets()) {
                if (snap > rp && snap <= newRecoveryPoint) {
                    ProducerSnapshotFile.fsync(ProducerSnapshotFile.path(dir, snap));
                }
            }
            // every epoch entry below the new recovery point must be on disk: recovery re-reads only past it
            epochCache.flushIfDirty();
            lock.lock();
            try {
                long leo = logEndOffset();
                if (newRecoveryPoint > recoveryPoint && newRecoveryPoint <= leo) {
                    recoveryPoint = newRecoveryPoint;
                }
                if (target > flushedOffset && target <= leo) {
                    flushedOffset = target;
                }
                if (target >= leo) {
                    unflushedMessages = 0;
                }
                lastFlushTimeMs = time.milliseconds();
            } finally {
                lock.unlock();
            }
        } catch (IOException e) {
            throw fail("flush of " + topicPartition, e);
        } finally {
            flushLock.unlock();
        }
    }

    /** Flushes when {@code flush.ms} has passed since the last flush (the LogManager calls this). */
    public void flushIfDue(long nowMs) {
        if (!offline && !closed && config.flushMs() != Long.MAX_VALUE && nowMs - lastFlushTimeMs >= config.flushMs()
                && logEndOffset() > flushedOffset) {
            flush();
        }
    }

    // =============================================================== reads

    /**
     * Reads whole batches from {@code startOffset}: the batch containing it first (a batch may start
     * below it), then following batches while they fit {@code maxBytes} and end below {@code maxOffset}.
     *
     * @param maxOffset   exclusive bound (the high watermark or last stable offset for consumers, the LEO
     *                    for followers): a batch whose last offset reaches it is not returned
     * @param minOneBatch return the first batch even if it alone exceeds maxBytes (KIP-74)
     * @throws OffsetOutOfRangeException if startOffset is below the log start offset or above the LEO
     */
    public LogReadResult read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
        for (int attempt = 0; ; attempt++) {
            checkOnline();
            try {
                return readOnce(startOffset, maxBytes, maxOffset, minOneBatch);
            } catch (SegmentClosedException e) {
                if (attempt >= 10) {
                    throw new KafkaStorageException("segments of " + topicPartition + " keep closing under a read");
                }
            } catch (IOException e) {
                throw fail("read of " + topicPartition, e);
            }
        }
    }

    private LogReadResult readOnce(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch)
            throws IOException {
        LogOffsetMetadata leo = nextOffsetMetadata;
        long start = logStartOffset;
        if (startOffset > leo.offset() || startOffset < start) {
            throw new OffsetOutOfRangeException(startOffset, start, leo.offset(), "fetch");
        }
        long bound = Math.min(maxOffset, leo.offset());
        if (startOffset >= bound) {
            // nothing readable (a consumer at the high watermark, a follower at the end): no segment lookup,
            // as Kafka answers a read from at or past its bound
            return new LogReadResult(FileSlice.EMPTY, startOffset, -1, startOffset, start, leo.offset(), false);
        }
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
        if (entry == null) {
            entry = segments.firstEntry();
        }
        while (entry != null) {
            LogSegment s = entry.getValue();
            if (s.baseOffset > leo.offset() || s.baseOffset >= bound) {
                break;
            }
            int maxPosition = s.baseOffset == leo.segmentBaseOffset() ? leo.position() : s.size();
            LogSegment.SegmentRead r = s.read(startOffset, maxBytes, maxPosition, bound, minOneBatch);
            if (r != null) {
                long first = r.slice().isEmpty() ? -1 : r.firstOffset();
                long next = r.slice().isEmpty() ? startOffset : r.nextOffset();
                return new LogReadResult(r.slice(), startOffset, first, next, start, leo.offset(), r.firstBatchTooLarge());
            }
            if (s.baseOffset == leo.segmentBaseOffset()) {
                break;
            }
            entry = segments.higherEntry(s.baseOffset);
        }
        return new LogReadResult(FileSlice.EMPTY, startOffset, -1, startOffset, start, leo.offset(), false);
    }

    /**
     * ListOffsets: for {@link #EARLIEST_TIMESTAMP} (and {@link #EARLIEST_LOCAL_TIMESTAMP}) the log start
     * offset, for {@link #LATEST_TIMESTAMP} the LEO (the broker substitutes the HW or LSO as its
     * isolation requires), for {@link #MAX_TIMESTAMP} the first record carrying the largest timestamp,
     * otherwise the first record with timestamp &gt;= {@code timestamp}. Empty when there is no such record.
     */
    public Optional<TimestampAndOffset> fetchOffsetByTimestamp(long timestamp) {
        for (int attempt = 0; ; attempt++) {
            checkOnline();
            try {
                return SegmentLookups.offsetByTimestamp(segments, epochCache, logStartOffset, logEndOffset(), timestamp);
            } catch (SegmentClosedException e) {
                if (attempt >= 10) {
                    throw new KafkaStorageException("segments of " + topicPartition + " keep closing under a lookup");
                }
            } catch (IOException e) {
                throw fail("offset lookup in " + topicPartition, e);
            }
        }
    }

    /**
     * Aborted transactions overlapping [{@code startOffset}, {@code upperBoundOffset}) for a
     * read_committed fetch, from the transaction indexes of the segments from the one holding
     * {@code startOffset} on.
     */
    public List<AbortedTxn> collectAbortedTransactions(long startOffset, long upperBoundOffset) {
        checkOnline();
        try {
            return SegmentLookups.abortedTransactions(segments, startOffset, upperBoundOffset);
        } catch (IOException e) {
            throw fail("transaction index read of " + topicPartition, e);
        }
    }

    // =============================================================== offsets and state

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /** Swaps the config (topic config change); existing segments keep their sizes. */
    public void updateConfig(LogConfig newConfig) {
        config = newConfig;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return nextOffsetMetadata.offset();
    }

    public long recoveryPoint() {
        return recoveryPoint;
    }

    /** The broker's high watermark as last handed over (Long.MAX_VALUE if never); bounds retention. */
    public long highWatermark() {
        return highWatermark;
    }

    /** Hands the broker's high watermark over: retention then deletes only segments wholly below it. */
    public void updateHighWatermark(long hw) {
        highWatermark = hw;
    }

    /** Bytes of all segments. */
    public long size() {
        long total = 0;
        for (LogSegment s : segments.values()) {
            total += s.size();
        }
        return total;
    }

    public int numberOfSegments() {
        return segments.size();
    }

    /** Base offsets of the segments, ascending. */
    public List<Long> segmentBaseOffsets() {
        return new ArrayList<>(segments.keySet());
    }

    /** Log data is fsynced below this offset. */
    long flushedOffset() {
        return flushedOffset;
    }

    public long lastFlushTimeMs() {
        return lastFlushTimeMs;
    }

    public LeaderEpochCache leaderEpochCache() {
        return epochCache;
    }

    public OptionalInt latestEpoch() {
        return epochCache.latestEpoch();
    }

    /**
     * Records that {@code epoch} starts at the current log end offset, when this replica becomes leader
     * at that epoch: OffsetForLeaderEpoch must answer for the new epoch before anything is appended in
     * it, or a follower from an older epoch could keep records this leader never had (KIP-101).
     */
    public void assignLeaderEpochStart(int epoch) {
        checkOnline();
        lock.lock();
        try {
            OptionalInt latest = epochCache.latestEpoch();
            if (latest.isEmpty() || epoch > latest.getAsInt()) {
                epochCache.assign(epoch, logEndOffset());
            }
        } catch (IOException e) {
            throw fail("leader epoch of " + topicPartition, e);
        } finally {
            lock.unlock();
        }
    }

    /** OffsetForLeaderEpoch (KIP-101/279): see {@link LeaderEpochCache#endOffsetFor}. */
    public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
        return epochCache.endOffsetFor(leaderEpoch, logEndOffset());
    }

    /** The producer's state, for idempotence and DescribeProducers. */
    public Optional<ProducerStateEntry> producerState(long producerId) {
        return producerState.lastEntry(producerId);
    }

    public Map<Long, ProducerStateEntry> activeProducers() {
        return producerState.activeProducers();
    }

    /** The first offset of the earliest open transaction: the LSO is min(this, HW). */
    public OptionalLong firstUnstableOffset() {
        return producerState.firstUnstableOffset();
    }

    ProducerStateManager producerStateManager() {
        return producerState;
    }

    /** Drops producers idle past producer.id.expiration.ms (the LogManager calls this periodically). */
    public void removeExpiredProducers(long nowMs) {
        lock.lock();
        try {
            producerState.removeExpiredProducers(nowMs);
        } finally {
            lock.unlock();
        }
    }

    public boolean isOffline() {
        return offline;
    }

    // =============================================================== truncation

    /**
     * Removes everything at and after {@code targetOffset} (a follower diverged from its leader): later
     * segments are deleted, the segment holding it is truncated (a batch straddling the offset goes
     * whole) and becomes active, and the leader-epoch cache and producer state follow. The LEO becomes
     * the offset after the last remaining batch (at most targetOffset); if that is below the log start
     * offset (a straddling batch held it), the log restarts empty at targetOffset.
     *
     * @return whether anything was removed
     */
    public boolean truncateTo(long targetOffset) {
        if (targetOffset < 0) {
            throw new IllegalArgumentException("truncation to negative offset " + targetOffset);
        }
        checkOnline();
        lock.lock();
        try {
            checkOnline();
            if (targetOffset >= logEndOffset()) {
                return false;
            }
            if (targetOffset < segments.firstKey() || targetOffset < logStartOffset) {
                truncateFullyAndStartAtLocked(targetOffset);
                return true;
            }
            List<LogSegment> removed = new ArrayList<>(segments.tailMap(targetOffset, false).values());
            for (LogSegment s : removed) {
                segments.remove(s.baseOffset);
            }
            LogSegment seg = segments.lastEntry().getValue();
            seg.activate();
            seg.truncateTo(targetOffset);
            long leo = seg.readNextOffset();
            truncatedTo.accumulateAndGet(leo, Math::min);
            if (leo < logStartOffset) {
                // A batch straddling the target held the log start offset: nothing readable is left.
                deleteSegmentFiles(removed);
                truncateFullyAndStartAtLocked(targetOffset);
                return true;
            }
            nextOffsetMetadata = new LogOffsetMetadata(leo, seg.baseOffset, seg.size());
            recoveryPoint = Math.min(recoveryPoint, seg.baseOffset);
            flushedOffset = Math.min(flushedOffset, leo);
            epochCache.truncateFromEnd(leo);
            producerState.deleteSnapshotsAfter(leo);
            LogLoader.reloadProducerState(producerState, segments, leo);
            deleteSegmentFiles(removed);
            log.info("{}: truncated to {} (LEO {})", topicPartition, targetOffset, leo);
            return true;
        } catch (IOException e) {
            throw fail("truncation of " + topicPartition, e);
        } finally {
            lock.unlock();
        }
    }

    /** Deletes every segment and restarts the log empty at {@code newOffset} (start = end = newOffset). */
    public void truncateFullyAndStartAt(long newOffset) {
        checkOnline();
        lock.lock();
        try {
            checkOnline();
            truncateFullyAndStartAtLocked(newOffset);
        } catch (IOException e) {
            throw fail("full truncation of " + topicPartition, e);
        } finally {
            lock.unlock();
        }
    }

    private void truncateFullyAndStartAtLocked(long newOffset) throws IOException {
        List<LogSegment> removed = new ArrayList<>(segments.values());
        segments.clear();
        for (LogSegment s : removed) {
            s.closeHandles();
            s.changeFileSuffixes("", LogFileNames.DELETED);
        }
        LogSegment seg = LogSegment.open(dir, newOffset, config, fileCache, time, true, "");
        seg.activate();
        segments.put(newOffset, seg);
        nextOffsetMetadata = new LogOffsetMetadata(newOffset, newOffset, 0);
        truncatedTo.accumulateAndGet(newOffset, Math::min);
        logStartOffset = newOffset;
        recoveryPoint = newOffset;
        flushedOffset = newOffset;
        unflushedMessages = 0;
        epochCache.clear();
        producerState.truncateFullyAndStartAt(newOffset);
        scheduleDeletion(removed);
        log.info("{}: truncated fully, restarting at {}", topicPartition, newOffset);
    }

    // =============================================================== retention

    /**
     * Deletes whole segments from the start: those wholly below the log start offset, and with
     * cleanup.policy delete, those older than retention.ms (by largest timestamp) and those beyond
     * retention.bytes. Deletion stops at the first segment not wholly below the high watermark handed over
     * with {@link #updateHighWatermark}. An expired active segment is rolled first and deleted with the
     * others, as in Kafka, so the log start offset reaches the log end offset and the log keeps one empty
     * active segment.
     *
     * @return the number of segments deleted
     */
    public int deleteOldSegments() {
        checkOnline();
        lock.lock();
        try {
            checkOnline();
            List<LogSegment> deletable = LogRetention.deletableSegments(segments, config, time.milliseconds(),
                    highWatermark, logStartOffset, nextOffsetMetadata.offset());
            if (deletable.isEmpty()) {
                return 0;
            }
            if (deletable.get(deletable.size() - 1) == segments.lastEntry().getValue()) {
                roll(nextOffsetMetadata.offset());
            }
            long firstBase = segments.higherKey(deletable.get(deletable.size() - 1).baseOffset);
            if (logStartOffset < firstBase) {
                logStartOffset = firstBase;
            }
            for (LogSegment s : deletable) {
                segments.remove(s.baseOffset);
            }
            epochCache.truncateFromStart(logStartOffset);
            producerState.deleteSnapshotsBefore(firstBase);
            deleteSegmentFiles(deletable);
            log.info("{}: deleted {} segments by retention, log start offset {}", topicPartition, deletable.size(),
                    logStartOffset);
            return deletable.size();
        } catch (IOException e) {
            throw fail("retention of " + topicPartition, e);
        } finally {
            long rolled = takeRolledAt();
            lock.unlock();
            scheduleRollFlush(rolled);
        }
    }

    /**
     * DeleteRecords: moves the log start offset up to {@code offset} and deletes the segments wholly
     * below it. The broker checks {@code offset <= high watermark}.
     *
     * @return the log start offset afterwards
     * @throws OffsetOutOfRangeException if offset is above the LEO
     */
    public long deleteRecordsBefore(long offset) {
        checkOnline();
        lock.lock();
        try {
            checkOnline();
            long leo = logEndOffset();
            if (offset > leo || offset < 0) {
                throw new OffsetOutOfRangeException(offset, logStartOffset, leo, "delete-records");
            }
            if (offset > logStartOffset) {
                logStartOffset = offset;
                epochCache.truncateFromStart(offset);
            }
        } catch (IOException e) {
            throw fail("delete-records on " + topicPartition, e);
        } finally {
            lock.unlock();
        }
        deleteOldSegmentsBelowStart();
        return logStartOffset;
    }

    private void deleteOldSegmentsBelowStart() {
        lock.lock();
        try {
            List<LogSegment> deletable = LogRetention.segmentsBelowLogStart(segments, logStartOffset);
            for (LogSegment s : deletable) {
                segments.remove(s.baseOffset);
            }
            if (!deletable.isEmpty()) {
                producerState.deleteSnapshotsBefore(segments.firstKey());
                deleteSegmentFiles(deletable);
            }
        } catch (IOException e) {
            throw fail("delete-records on " + topicPartition, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Renames the segments' files to {@code .deleted} now and deletes them after file.delete.delay.ms on
     * the scheduler: readers holding a slice keep reading the renamed file; a crash in between leaves
     * {@code .deleted} files that the next load removes.
     */
    private void deleteSegmentFiles(List<LogSegment> removed) throws IOException {
        for (LogSegment s : removed) {
            s.closeHandles();
            s.changeFileSuffixes("", LogFileNames.DELETED);
        }
        scheduleDeletion(removed);
    }

    private void scheduleDeletion(List<LogSegment> removed) {
        if (removed.isEmpty()) {
            return;
        }
        scheduler.schedule("delete-segments-" + topicPartition, () -> {
            for (LogSegment s : removed) {
                try {
                    s.deleteFiles();
                } catch (IOException e) {
                    log.warn("{}: deleting segment files {} failed", topicPartition, s.records().file(), e);
                }
            }
        }, config.fileDeleteDelayMs());
    }

    // =============================================================== compaction support

    /**
     * The lowest log end offset left by truncations since the last call (Long.MAX_VALUE if none), and
     * forgets it: the cleaner moves its first dirty offset back so that re-appended data gets cleaned.
     */
    long takeTruncationPoint() {
        return truncatedTo.getAndSet(Long.MAX_VALUE);
    }

    /** The segments in order (a snapshot of the map). */
    List<LogSegment> segmentsSnapshot() {
        return new ArrayList<>(segments.values());
    }

    LogSegment activeSegment() {
        return segments.lastEntry().getValue();
    }

    ReentrantLock lock() {
        return lock;
    }

    OpenFileCache fileCache() {
        return fileCache;
    }

    Time time() {
        return time;
    }

    /**
     * Replaces {@code oldSegments} (consecutive, none active) by {@code cleaned}, which has the first old
     * segment's base offset, files suffixed {@code .cleaned}, already flushed, and ends with the old
     * segments' last offset. Crash-safe sequence: rename the cleaned files to {@code .swap} (the log file
     * last: {@code X.log.swap} is the commit point), swap the map entries, rename the old segments' files
     * to {@code .deleted} (deleted later), rename the swap files to their final names (log last). A restart
     * after the commit point completes the swap ({@link LogLoader}); one before it discards the
     * {@code .cleaned}/{@code .swap} files and keeps the old segments. Aborts (returns false, deleting
     * the cleaned files) if the log changed meanwhile so that the old segments are not all still there.
     */
    boolean replaceSegments(LogSegment cleaned, List<LogSegment> oldSegments) throws IOException {
        lock.lock();
        try {
            checkOnline();
            for (LogSegment s : oldSegments) {
                if (segments.get(s.baseOffset) != s || s == activeSegment()) {
                    cleaned.deleteFiles();
                    return false;
                }
            }
            cleaned.createMissingIndexFiles();
            cleaned.changeFileSuffixes(LogFileNames.CLEANED, LogFileNames.SWAP);
            io.krill.log.checkpoint.AtomicFile.fsyncDirectory(dir);
            // Map first (atomically replacing the first old segment, so readers never see a hole), files after.
            segments.put(cleaned.baseOffset, cleaned);
            for (LogSegment s : oldSegments) {
                if (s.baseOffset != cleaned.baseOffset) {
                    segments.remove(s.baseOffset);
                }
            }
            for (LogSegment s : oldSegments) {
                s.closeHandles();
                s.changeFileSuffixes("", LogFileNames.DELETED);
            }
            cleaned.changeFileSuffixes(LogFileNames.SWAP, "");
            io.krill.log.checkpoint.AtomicFile.fsyncDirectory(dir);
            scheduleDeletion(oldSegments);
            return true;
        } catch (IOException e) {
            throw fail("segment swap in " + topicPartition, e);
        } finally {
            lock.unlock();
        }
    }

    // =============================================================== close and failure

    /**
     * Clean close: flushes everything (indexes trimmed, final time index entries), writes a producer
     * snapshot at the LEO and closes the files. The recovery point becomes the LEO. As in Kafka, a log with
     * nothing after its recovery point is not fsynced again (only the active indexes are trimmed), and a
     * log holding no batch, no producer and no snapshot gets no snapshot (loading it replays nothing).
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (offline) {
                closeHandles();
                return;
            }
            LogSegment active = activeSegment();
            active.onBecomeInactive();
            long leo = logEndOffset();
            if (recoveryPoint < leo) {
                Long from = segments.floorKey(recoveryPoint);
                for (LogSegment s : (from == null ? segments : segments.tailMap(from)).values()) {
                    s.flush();
                }
            }
            epochCache.flushIfDirty();
            recoveryPoint = leo;
            flushedOffset = leo;
            producerState.updateMapEndOffset(leo);
            boolean nothingToSnapshot = leo == segments.firstKey() && producerState.isEmpty()
                    && producerState.latestSnapshotOffset().isEmpty();
            if (!nothingToSnapshot) {
                producerState.takeSnapshot(true);
            }
            closeHandles();
        } catch (IOException | SegmentClosedException e) {
            closeHandles();
            throw fail("close of " + topicPartition, e instanceof IOException io ? io : new IOException(e));
        } finally {
            lock.unlock();
        }
    }

    /** Closes the files without flushing or trimming anything (offline directory; tests of crashes). */
    void closeHandles() {
        closed = true;
        for (LogSegment s : segments.values()) {
            s.closeHandles();
        }
    }

    /** Takes the log offline without touching disk (its directory failed). */
    void markOffline() {
        offline = true;
        closeHandles();
    }

    private void checkOnline() {
        if (offline) {
            throw new KafkaStorageException("the log directory of " + topicPartition + " is offline");
        }
        if (closed) {
            throw new KafkaStorageException(topicPartition + " is closed");
        }
    }

    private KafkaStorageException fail(String what, IOException e) {
        if (!offline) {
            offline = true;
            log.error("{} failed, taking the log directory {} offline", what, dir.getParent(), e);
            try {
                failureHandler.onLogDirFailure(dir.toAbsolutePath().getParent(), what + " failed", e);
            } catch (RuntimeException ex) {
                log.warn("log dir failure handler threw", ex);
            }
        }
        return new KafkaStorageException(what + " failed: " + e, e);
    }

    /** For tests: the sorted (base offset to segment) view. */
    TreeMap<Long, LogSegment> segmentMap() {
        return new TreeMap<>(segments);
    }

    @Override
    public String toString() {
        return "PartitionLog(" + topicPartition + ", start=" + logStartOffset + ", end=" + logEndOffset()
                + ", segments=" + segments.size() + ")";
    }
}
