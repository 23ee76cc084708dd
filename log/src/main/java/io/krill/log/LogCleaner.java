package io.krill.log;

import io.krill.log.checkpoint.OffsetCheckpointFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner of a {@link LogManager}: one background thread compacting the logs whose
 * cleanup.policy includes {@code compact} (algorithm: {@link Cleaner}). It picks the log with the highest
 * dirty ratio (dirty bytes / cleanable bytes, where "dirty" is from the log's first dirty offset to its
 * first uncleanable offset) at or above {@code min.cleanable.dirty.ratio}, or any log whose oldest dirty
 * segment is older than {@code max.compaction.lag.ms}; when nothing qualifies it sleeps
 * {@code log.cleaner.backoff.ms}. The first dirty offset of every log is kept in each log dir's
 * {@code cleaner-offset-checkpoint}, written after each cleaning (a lost update only makes the next
 * cleaning redo work).
 *
 * <p>Never blocks appends or reads: it reads inactive segments without locks, writes the cleaned copy
 * beside them, and takes the partition lock only for the swap, which it abandons if the log changed
 * (truncation, retention, deletion) meanwhile. Never interrupted (an interrupt would close shared file
 * channels): {@link #close()} sets a flag and waits for the current cleaning to finish.
 *
 * <p>Thread-safety: all public methods are thread-safe.
 */
public final class LogCleaner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

    private final LogManager manager;
    private final LogManagerConfig config;
    private final Time time;
    private final Cleaner cleaner;
    private final Map<TopicPartition, Long> firstDirty = new ConcurrentHashMap<>();
    private final java.util.Set<TopicPartition> uncleanable = ConcurrentHashMap.newKeySet();
    private final Object monitor = new Object();
    private final Object cleaningLock = new Object();
    private volatile boolean stopped;
    private Thread thread;

    LogCleaner(LogManager manager, LogManagerConfig config, Time time) {
        this.manager = manager;
        this.config = config;
        this.time = time;
        this.cleaner = new Cleaner(config.cleanerDedupeBufferSize(), config.cleanerIoBufferSize(), time);
        for (Path dir : manager.liveLogDirs()) {
            try {
                firstDirty.putAll(new OffsetCheckpointFile(dir.resolve(OffsetCheckpointFile.CLEANER_OFFSET)).readOffsets());
            } catch (IOException e) {
                log.warn("unreadable cleaner checkpoint in {} ({}); cleaning from the start", dir, e.getMessage());
            }
        }
    }

    synchronized void start() {
        thread = new Thread(this::run, "krill-log-cleaner");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stopped) {
            boolean cleaned = false;
            try {
                cleaned = cleanOnce();
            } catch (Throwable t) {
                log.error("log cleaner pass failed", t);
            }
            if (!cleaned) {
                synchronized (monitor) {
                    if (!stopped) {
                        try {
                            monitor.wait(Math.max(1, config.cleanerBackoffMs()));
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /** Wakes the cleaner thread (e.g. after a config change). */
    public void wakeup() {
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    /**
     * Cleans the dirtiest cleanable log, if any; returns whether a log was cleaned. The cleaner thread
     * calls this in a loop; tests call it directly.
     */
    public boolean cleanOnce() {
        synchronized (cleaningLock) {
            PartitionLog target = null;
            double best = -1;
            long now = time.milliseconds();
            for (PartitionLog l : manager.allLogs()) {
                if (stopped) {
                    return false;
                }
                if (!l.config().compactEnabled() || l.isOffline() || uncleanable.contains(l.topicPartition())) {
                    continue;
                }
                try {
                    double ratio = cleanableRatio(l, now);
                    if (ratio > best) {
                        best = ratio;
                        target = l;
                    }
                } catch (IOException | LogException | SegmentClosedException e) {
                    log.debug("skipping {} this round: {}", l.topicPartition(), e.toString());
                }
            }
            if (target == null) {
                return false;
            }
            return clean(target);
        }
    }

    /** Cleans one log now regardless of its dirty ratio; returns whether anything was cleaned. */
    public boolean clean(PartitionLog target) {
        synchronized (cleaningLock) {
            TopicPartition tp = target.topicPartition();
            try {
                Cleaner.Result r = cleaner.clean(target, firstDirtyOffset(target));
                if (r.skipped()) {
                    log.debug("{}: not cleaned: {}", tp, r.skippedReason());
                    return false;
                }
                firstDirty.put(tp, r.endOffset());
                checkpoint(target.dir().getParent());
                return true;
            } catch (IOException e) {
                log.warn("{}: cleaning failed", tp, e);
                return false;
            } catch (LogException | SegmentClosedException e) {
                log.info("{}: cleaning abandoned: {}", tp, e.getMessage());
                return false;
            } catch (io.krill.wire.record.CorruptRecordException e) {
                // Corrupt data (or a decompression bomb) in a segment: Kafka's answer too, leave the log alone.
                log.error("{}: corrupt records, the log is no longer cleaned until restart", tp, e);
                uncleanable.add(tp);
                return false;
            }
        }
    }

    /** The dirty ratio if the log is due for cleaning, else -1. */
    private double cleanableRatio(PartitionLog l, long now) throws IOException {
        List<LogSegment> segs = l.segmentsSnapshot();
        long dirty = firstDirtyOffset(l);
        long uncleanable = Cleaner.firstUncleanableOffset(l, segs, now);
        if (dirty >= uncleanable) {
            return -1;
        }
        long cleanBytes = 0;
        long dirtyBytes = 0;
        boolean overdue = false;
        for (int i = 0; i < segs.size(); i++) {
            LogSegment s = segs.get(i);
            if (s.baseOffset >= uncleanable) {
                break;
            }
            Long next = i + 1 < segs.size() ? segs.get(i + 1).baseOffset : null;
            if (next != null && next <= dirty) {
                cleanBytes += s.size();
            } else {
                dirtyBytes += s.size();
                if (l.config().maxCompactionLagMs() != Long.MAX_VALUE
                        && now - s.largestTimestamp() > l.config().maxCompactionLagMs()) {
                    overdue = true;
                }
            }
        }
        if (dirtyBytes == 0) {
            return -1;
        }
        double ratio = (double) dirtyBytes / (cleanBytes + dirtyBytes);
        if (overdue) {
            return 1 + ratio;
        }
        return ratio >= l.config().minCleanableDirtyRatio() ? ratio : -1;
    }

    /** The log's first dirty offset: its checkpoint, clamped to [log start offset, log end offset]. */
    long firstDirtyOffset(PartitionLog l) {
        long truncated = l.takeTruncationPoint();
        if (truncated != Long.MAX_VALUE) {
            firstDirty.computeIfPresent(l.topicPartition(), (tp, v) -> Math.min(v, truncated));
        }
        long checkpointed = firstDirty.getOrDefault(l.topicPartition(), l.logStartOffset());
        if (checkpointed < l.logStartOffset() || checkpointed > l.logEndOffset()) {
            return l.logStartOffset();
        }
        return checkpointed;
    }

    /** Forgets a deleted partition (its checkpoint entry goes with the next checkpoint write). */
    void abortAndForget(TopicPartition tp) {
        firstDirty.remove(tp);
    }

    private void checkpoint(Path dir) {
        Map<TopicPartition, Long> entries = new HashMap<>();
        for (PartitionLog l : manager.allLogs()) {
            Long v = firstDirty.get(l.topicPartition());
            if (v != null && l.dir().getParent().equals(dir)) {
                entries.put(l.topicPartition(), v);
            }
        }
        try {
            new OffsetCheckpointFile(dir.resolve(OffsetCheckpointFile.CLEANER_OFFSET)).writeOffsets(entries);
        } catch (IOException e) {
            manager.handleLogDirFailure(dir, "writing the cleaner checkpoint failed", e);
        }
    }

    /** Writes every live dir's cleaner checkpoint. */
    void checkpointAll() {
        for (Path dir : manager.liveLogDirs()) {
            checkpoint(dir);
        }
    }

    /** Stops the thread after the current cleaning (no interrupt). */
    @Override
    public void close() {
        stopped = true;
        wakeup();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                t.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (cleaningLock) {
            cleaner.close();
        }
    }
}
