package io.krill.log;

import io.krill.log.checkpoint.AtomicFile;
import io.krill.log.checkpoint.CorruptCheckpointException;
import io.krill.log.checkpoint.LeaderEpochCheckpointFile;
import io.krill.log.epoch.LeaderEpochCache;
import io.krill.log.producer.CompletedTxn;
import io.krill.log.producer.ProducerAppendInfo;
import io.krill.log.producer.ProducerStateManager;
import io.krill.wire.record.RecordBatch;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the directory of one partition and brings it to the state a {@link PartitionLog} starts from:
 * the segments, the log start offset, the log end offset, the recovery point, the leader-epoch cache and
 * the producer state. Runs once, when the log opens.
 *
 * <p>A new log: when the directory does not exist it is made with one {@code mkdir} (its parent too
 * when that is missing) and the log starts empty at the builder's log start offset with one empty
 * segment (its {@code .log} file only; see {@link LogSegment}); there is nothing to list, clean up,
 * recover or read (no producer snapshots, no leader-epoch checkpoint), whatever the clean-shutdown flag
 * says. This is what the broker pays per partition when it creates thousands at once. A directory that
 * exists, even empty, is loaded as follows.
 *
 * <p>In order: deletes temporary and half-written files ({@code .deleted}, {@code .cleaned}, checkpoint
 * {@code .tmp}) and completes compaction swaps that passed their commit point ({@code X.log.swap}, see
 * {@link #completeSwap}); opens every {@code .log} file as a segment (an empty segment at the checkpointed
 * log start offset if there is none); rebuilds missing or malformed indexes of trusted segments from the
 * batch headers.
 *
 * <p>Crash behaviour: without the clean-shutdown marker, every segment from the one holding the
 * checkpointed recovery point is re-read batch by batch ({@link LogSegment#recover}); the first bad batch
 * and everything after it are truncated, later segments deleted. This is ordinary recovery, not a sign of
 * corruption: the indexes of these segments (typically the active one, left preallocated with zeros) are
 * discarded unread and recomputed from the batches, without a warning. As in Kafka, what recovery kept
 * is not fsynced here: the recovery point stays at the checkpointed one (capped by the LEO), so a crash
 * before the next flush recovers the same segments again. A segment whose transaction index cannot be
 * trusted moves the start of recovery back to it. Indexes of segments before the start of recovery are
 * trusted only once checked; one that is malformed, or missing although the segment must have it, is
 * rebuilt with a warning, while a missing index that no entry was ever due for is not (how the two are
 * told apart: {@link LogSegment}). Producer state comes from the latest snapshot at or below the recovery start plus
 * a replay of the batches after it; a lost or corrupt {@code leader-epoch-checkpoint} is rebuilt from the
 * batch headers.
 *
 * <p>Thread-safety: none; an instance is used once by the thread opening the log (the PartitionLog
 * constructor, under the partition's lock). The static producer-state replay helpers are also called by
 * {@link PartitionLog#truncateTo} and run under the partition's lock.
 */
final class LogLoader {
    private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

    /** What the loaded log starts from; the recovery point is also the initial flushed offset. */
    record LoadedLog(ConcurrentSkipListMap<Long, LogSegment> segments, LeaderEpochCache epochCache,
            ProducerStateManager producerState, LogOffsetMetadata nextOffsetMetadata, long logStartOffset,
            long recoveryPoint, LoadStats stats) {
    }

    /**
     * What loading did, for the log dir's summary: segments re-read by crash recovery and bytes it truncated
     * (both 0 after a clean shutdown).
     */
    record LoadStats(int recoveredSegments, long truncatedBytes, int rebuiltIndexes, boolean newDirectory) {
        static final LoadStats NONE = new LoadStats(0, 0, 0, false);
        static final LoadStats NEW_DIRECTORY = new LoadStats(0, 0, 0, true);
    }

    private final Path dir;
    private final TopicPartition topicPartition;
    private final LogConfig config;
    private final OpenFileCache fileCache;
    private final Time time;
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    private LeaderEpochCache epochCache;
    /** The leader-epoch checkpoint was missing or unreadable at load: rebuild it from the log. */
    private boolean epochCheckpointLost;
    private ProducerStateManager producerState;
    private LogOffsetMetadata nextOffsetMetadata;
    private long logStartOffset;
    private long recoveryPoint;
    private long recoveredTruncatedBytes;
    private long truncatedBytes;
    private int recoveredSegments;
    private int rebuiltIndexes;

    private LogLoader(Path dir, TopicPartition topicPartition, PartitionLog.Builder b) {
        this.dir = dir;
        this.topicPartition = topicPartition;
        this.config = b.config;
        this.fileCache = b.fileCache;
        this.time = b.time;
    }

    /**
     * Loads the log the builder describes, recovering it if the shutdown was not clean; creates it empty
     * if its directory does not exist.
     */
    static LoadedLog load(PartitionLog.Builder b, TopicPartition topicPartition) throws IOException {
        LogLoader loader = new LogLoader(b.dir, topicPartition, b);
        if (createDirectory(b.dir)) {
            return loader.createNew(b);
        }
        loader.epochCache = loader.loadEpochCache();
        loader.producerState = new ProducerStateManager(b.dir, b.producerIdExpirationMs);
        loader.load(b.recoveryPoint, b.logStartOffset, b.hadCleanShutdown);
        return new LoadedLog(loader.segments, loader.epochCache, loader.producerState, loader.nextOffsetMetadata,
                loader.logStartOffset, loader.recoveryPoint,
                new LoadStats(loader.recoveredSegments, loader.truncatedBytes, loader.rebuiltIndexes, false));
    }

    /**
     * Makes {@code dir}: one {@code mkdir}, or the missing parents first when that fails for want of a
     * parent. Returns false if it already existed (then it is loaded; if it is no directory, listing it
     * fails).
     */
    private static boolean createDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (NoSuchFileException e) {
            Path parent = dir.toAbsolutePath().getParent();
            if (parent == null) {
                throw e;
            }
            Files.createDirectories(parent);
            try {
                Files.createDirectory(dir);
                return true;
            } catch (FileAlreadyExistsException again) {
                return false;
            }
        }
    }

    /** The log of a directory just made: one empty segment at the log start offset, nothing read. */
    private LoadedLog createNew(PartitionLog.Builder b) throws IOException {
        long base = Math.max(0, b.logStartOffset);
        LogSegment segment = LogSegment.create(dir, base, config, fileCache, time, "", true);
        segment.activate();
        segments.put(base, segment);
        LeaderEpochCache epochs = LeaderEpochCache.forNewLog(
                new LeaderEpochCheckpointFile(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME)));
        ProducerStateManager producers = ProducerStateManager.forNewLog(dir, b.producerIdExpirationMs);
        producers.updateMapEndOffset(base);
        log.debug("{}: created a new log at offset {}", topicPartition, base);
        return new LoadedLog(segments, epochs, producers, new LogOffsetMetadata(base, base, 0), base, base,
                LoadStats.NEW_DIRECTORY);
    }

    private LeaderEpochCache loadEpochCache() throws IOException {
        LeaderEpochCheckpointFile file = new LeaderEpochCheckpointFile(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME));
        epochCheckpointLost = !Files.exists(file.file());
        try {
            return new LeaderEpochCache(file);
        } catch (CorruptCheckpointException e) {
            log.warn("{}: {}; rebuilding the leader epoch cache from the log", topicPartition, e.getMessage());
            Files.deleteIfExists(file.file());
            epochCheckpointLost = true;
            return new LeaderEpochCache(file);
        }
    }

    private void load(long checkpointedRecoveryPoint, long checkpointedLogStart, boolean hadCleanShutdown)
            throws IOException {
        removeTempFilesAndCompleteSwaps();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                long base = LogFileNames.offsetOf(name);
                if (base >= 0 && name.endsWith(LogFileNames.LOG)) {
                    segments.put(base, LogSegment.open(dir, base, config, fileCache, time, false, ""));
                }
            }
        }
        if (segments.isEmpty()) {
            long base = Math.max(0, checkpointedLogStart);
            segments.put(base, LogSegment.open(dir, base, config, fileCache, time, true, ""));
        }
        long firstBase = segments.firstKey();
        logStartOffset = Math.max(checkpointedLogStart, firstBase);

        // Where recovery starts: the segment holding the recovery point after a crash, or an earlier
        // segment whose transaction index cannot be trusted.
        long recoverFrom = Long.MAX_VALUE;
        if (!hadCleanShutdown) {
            Long floor = segments.floorKey(Math.max(checkpointedRecoveryPoint, firstBase));
            recoverFrom = floor == null ? firstBase : floor;
        }
        for (LogSegment s : segments.values()) {
            if (s.txnIndexCorrupt() && s.baseOffset < recoverFrom) {
                recoverFrom = s.baseOffset;
            }
        }
        // Indexes of trusted segments that were missing or malformed are rebuilt from the batch headers
        // (those of segments recovery re-reads are recomputed by it, which is no sign of corruption).
        for (LogSegment s : segments.headMap(recoverFrom).values()) {
            if (s.needsIndexRebuild()) {
                log.warn("{}: indexes of segment {} are missing or malformed; rebuilding them from the log",
                        topicPartition, s.baseOffset);
                rebuiltIndexes++;
                if (s != segments.lastEntry().getValue()) {
                    s.activate();
                    s.onBecomeInactive();
                }
            }
        }

        if (recoverFrom != Long.MAX_VALUE) {
            recoverSegmentsFrom(recoverFrom);
        }
        LogSegment last = segments.lastEntry().getValue();
        last.activate();
        long leo = last.readNextOffset();
        nextOffsetMetadata = new LogOffsetMetadata(leo, last.baseOffset, last.size());
        if (logStartOffset > leo) {
            logStartOffset = leo;
        }
        // As in Kafka, recovery does not fsync what it kept: the recovery point stays where the checkpoint
        // had it (capped by the LEO), so a crash before the next flush recovers the same segments again.
        recoveryPoint = Math.min(Math.max(checkpointedRecoveryPoint, firstBase), leo);
        truncatedBytes = recoveredTruncatedBytes;
        recoveredSegments = recoverFrom == Long.MAX_VALUE ? 0 : segments.tailMap(recoverFrom).size();

        if (epochCheckpointLost && recoverFrom > firstBase) {
            rebuildEpochCache(firstBase, recoverFrom == Long.MAX_VALUE ? leo : recoverFrom);
        }
        epochCache.truncateFromEnd(leo);
        epochCache.truncateFromStart(logStartOffset);

        producerState.deleteSnapshotsAfter(leo);
        if (recoverFrom == Long.MAX_VALUE) {
            reloadProducerState(producerState, segments, leo);
        } else {
            producerState.updateMapEndOffset(leo);
        }
        producerState.deleteSnapshotsBefore(segments.firstKey());
        log.debug("{}: loaded {} segments, log start {}, LEO {}, recovery point {}{}", topicPartition, segments.size(),
                logStartOffset, leo, recoveryPoint, hadCleanShutdown ? "" : " (recovered after an unclean shutdown)");
    }

    /** Deletes temporary and half-written files and completes committed compaction swaps. */
    private void removeTempFilesAndCompleteSwaps() throws IOException {
        List<Path> logSwaps = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.endsWith(LogFileNames.DELETED) || name.endsWith(LogFileNames.CLEANED)
                    || name.endsWith(AtomicFile.TMP_SUFFIX)) {
                Files.deleteIfExists(f);
            } else if (name.endsWith(LogFileNames.LOG + LogFileNames.SWAP)) {
                logSwaps.add(f);
            }
        }
        for (Path swapLog : logSwaps) {
            completeSwap(swapLog);
        }
        // Index swaps without a log swap belong to a compaction that never committed.
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                if (f.getFileName().toString().endsWith(LogFileNames.SWAP)) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /**
     * Finishes a committed compaction swap found at load. The cleaned segment at base X replaces every
     * segment whose base lies in [X, next offset of the swap). Renames happen indexes first, log last, so
     * while {@code X.log.swap} exists: an index type with an {@code X.<type>.swap} file still has the old
     * segment's file under the regular name (delete it, rename the swap); one without was already renamed.
     */
    private void completeSwap(Path swapLog) throws IOException {
        long base = LogFileNames.offsetOf(swapLog.getFileName().toString());
        long swapNext = base;
        FileRecords swapRecords = FileRecords.open(swapLog, fileCache, false);
        try (LogSegment.HeaderScanner scan = new LogSegment.HeaderScanner(swapRecords, 0, swapRecords.sizeInBytes())) {
            while (scan.next()) {
                swapNext = scan.lastOffset + 1;
            }
        } finally {
            swapRecords.close();
        }
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                String name = f.getFileName().toString();
                long offset = LogFileNames.offsetOf(name);
                boolean regular = name.endsWith(LogFileNames.LOG) || name.endsWith(LogFileNames.INDEX)
                        || name.endsWith(LogFileNames.TIME_INDEX) || name.endsWith(LogFileNames.TXN_INDEX);
                if (regular && offset > base && offset < swapNext) {
                    Files.delete(f);
                }
            }
        }
        for (String type : new String[] {LogFileNames.INDEX, LogFileNames.TIME_INDEX, LogFileNames.TXN_INDEX}) {
            Path swap = LogFileNames.file(dir, base, type, LogFileNames.SWAP);
            if (Files.exists(swap)) {
                Path target = LogFileNames.file(dir, base, type, "");
                Files.deleteIfExists(target);
                Files.move(swap, target);
            }
        }
        Path target = LogFileNames.file(dir, base, LogFileNames.LOG, "");
        Files.deleteIfExists(target);
        Files.move(swapLog, target);
        AtomicFile.fsyncDirectory(dir);
        log.info("{}: completed an interrupted compaction swap at offset {} (up to {})", topicPartition, base, swapNext);
    }

    private void recoverSegmentsFrom(long recoverFrom) throws IOException {
        // Producer state as of recoverFrom: the latest snapshot at or below it plus the batches in between.
        long firstBase = segments.firstKey();
        producerState.deleteSnapshotsAfter(recoverFrom);
        producerState.loadFromSnapshot(recoverFrom, firstBase);
        replayProducerState(producerState, segments, Math.max(producerState.mapEndOffset(), firstBase), recoverFrom);
        List<LogSegment> toRecover = new ArrayList<>(segments.tailMap(recoverFrom).values());
        for (int i = 0; i < toRecover.size(); i++) {
            LogSegment s = toRecover.get(i);
            s.activateForRecovery();
            int truncated = s.recover(this::onRecoveredBatch);
            recoveredTruncatedBytes += truncated;
            boolean lastKept = truncated > 0 || i == toRecover.size() - 1;
            if (truncated > 0) {
                for (LogSegment later : toRecover.subList(i + 1, toRecover.size())) {
                    log.warn("{}: deleting segment {} after a truncated one", topicPartition, later.baseOffset);
                    segments.remove(later.baseOffset);
                    later.deleteFiles();
                }
            }
            if (lastKept) {
                break;
            }
            s.onBecomeInactive();
        }
    }

    private void onRecoveredBatch(LogSegment segment, RecordBatch batch) throws IOException {
        if (batch.partitionLeaderEpoch() >= 0) {
            OptionalInt latest = epochCache.latestEpoch();
            if (latest.isEmpty() || batch.partitionLeaderEpoch() > latest.getAsInt()) {
                epochCache.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
            }
        }
        applyReplayedBatch(producerState, batch, segment);
        producerState.updateMapEndOffset(batch.lastOffset() + 1);
    }

    /** Applies one batch to producer state outside an append (recovery and replay). */
    private static void applyReplayedBatch(ProducerStateManager producerState, RecordBatch batch,
            LogSegment txnIndexTarget) throws IOException {
        if (!batch.hasProducerId()) {
            return;
        }
        Map<Long, ProducerAppendInfo> staged = new LinkedHashMap<>(2);
        CompletedTxn completed = PartitionLog.stageProducerBatch(producerState, batch, AppendOrigin.REPLICATION, staged);
        for (ProducerAppendInfo info : staged.values()) {
            producerState.update(info);
        }
        if (completed != null) {
            PartitionLog.completeTxn(producerState, completed, txnIndexTarget);
        }
    }

    /** Replays batches in [from, to) into producer state (no transaction index writes). */
    private static void replayProducerState(ProducerStateManager producerState,
            NavigableMap<Long, LogSegment> segments, long from, long to) throws IOException {
        if (from >= to) {
            return;
        }
        Long startBase = segments.floorKey(from);
        Collection<LogSegment> range = (startBase == null ? segments : segments.tailMap(startBase)).values();
        for (LogSegment s : range) {
            if (s.baseOffset >= to) {
                break;
            }
            int start = s.indexedPosition(from);
            try (BatchReader reader = new BatchReader(s.records(), start, s.size(), 64 * 1024)) {
                RecordBatch batch;
                while ((batch = reader.next()) != null) {
                    if (batch.baseOffset() >= to) {
                        break;
                    }
                    if (batch.lastOffset() >= from) {
                        applyReplayedBatch(producerState, batch, null);
                    }
                }
            }
        }
        producerState.updateMapEndOffset(to);
    }

    /**
     * Producer state for the log below {@code leo}: latest snapshot then replay. Also used by truncation,
     * under the partition's lock.
     */
    static void reloadProducerState(ProducerStateManager producerState, NavigableMap<Long, LogSegment> segments,
            long leo) throws IOException {
        long firstBase = segments.firstKey();
        producerState.loadFromSnapshot(leo, firstBase);
        replayProducerState(producerState, segments, Math.max(producerState.mapEndOffset(), firstBase), leo);
        producerState.updateMapEndOffset(leo);
    }

    private void rebuildEpochCache(long from, long to) throws IOException {
        for (LogSegment s : segments.values()) {
            if (s.baseOffset >= to) {
                break;
            }
            try (LogSegment.HeaderScanner scan = new LogSegment.HeaderScanner(s.records(), 0, s.size())) {
                while (scan.next()) {
                    if (scan.baseOffset >= to) {
                        break;
                    }
                    int epoch = scan.partitionLeaderEpoch;
                    OptionalInt latest = epochCache.latestEpoch();
                    if (epoch >= 0 && (latest.isEmpty() || epoch > latest.getAsInt())) {
                        epochCache.assign(epoch, scan.baseOffset);
                    }
                }
            }
        }
    }}
