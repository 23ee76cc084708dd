package io.krill.log.epoch;

import io.krill.log.checkpoint.LeaderEpochCheckpointFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;

/**
 * A partition's leader epochs: (epoch, start offset) pairs with both strictly increasing, kept in the
 * {@code leader-epoch-checkpoint} file. Used by followers to find where their log diverges from the
 * leader's (KIP-101/279).
 *
 * <p>When the file is written: a new epoch ({@link #assign}, on every leadership change and on the
 * first batch of a new epoch a follower appends) and a moved log start ({@link #truncateFromStart})
 * only mark the cache dirty; {@link #flushIfDirty} writes it, and the log calls that before its
 * recovery point moves (and at close). Truncations from the end and {@link #clear} are written at
 * once. So becoming the leader of thousands of partitions costs no fsync per partition (it cost two:
 * the file and its directory), as in Kafka since KAFKA-15046.
 *
 * <p>Crash behaviour: the file is replaced atomically, so after a crash it holds a state that was
 * current at some point, and every entry starting below the recovery point is in it. The log's
 * recovery reconciles the rest: {@link #truncateFromEnd} to the log end offset, {@link #truncateFromStart}
 * to the log start offset, and entries re-assigned from the batches it recovers past the recovery
 * point. What a crash can lose is an epoch that no batch carries (a leadership that appended nothing),
 * which no follower's divergence check needs: its end offset is the next epoch's start, which a later
 * entry records.
 *
 * <p>Thread-safety: fully thread-safe; mutations take a write lock, queries a read lock. The partition log
 * only mutates it under its own lock.
 */
public final class LeaderEpochCache {
    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_OFFSET = -1L;

    private final LeaderEpochCheckpointFile checkpoint;
    private final TreeMap<Integer, EpochEntry> epochs = new TreeMap<>();
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    /** Latest epoch, or UNDEFINED_EPOCH; read without the lock on the append path. */
    private volatile int latestEpoch = UNDEFINED_EPOCH;
    /** Start offset of the latest epoch, read with it on the append path's fast check. */
    private volatile long latestStartOffset = UNDEFINED_OFFSET;
    /** Entries changed since the file was last written (write lock). */
    private boolean dirty;

    /**
     * Loads the cache from {@code checkpoint} (may be {@code null} for a cache kept only in memory). Entries
     * that are not strictly increasing in both epoch and offset are dropped as assignment would.
     */
    public LeaderEpochCache(LeaderEpochCheckpointFile checkpoint) throws IOException {
        this(checkpoint, checkpoint == null ? List.of() : checkpoint.read());
    }

    private LeaderEpochCache(LeaderEpochCheckpointFile checkpoint, List<EpochEntry> initial) {
        this.checkpoint = checkpoint;
        for (EpochEntry e : initial) {
            assignInternal(e);
        }
    }

    /**
     * An empty cache for a log whose directory was just made: the checkpoint is not read (there is none);
     * it is written to {@code checkpoint} as usual.
     */
    public static LeaderEpochCache forNewLog(LeaderEpochCheckpointFile checkpoint) {
        return new LeaderEpochCache(checkpoint, List.of());
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}. A no-op when it is the latest epoch and
     * starts no earlier than recorded; otherwise entries that conflict (an epoch at least as large, or a
     * start offset at least as large) are removed first, as in Kafka.
     */
    public void assign(int epoch, long startOffset) throws IOException {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("invalid epoch entry " + epoch + "@" + startOffset);
        }
        if (epoch == latestEpoch && startOffset >= latestStartOffset && latestStartOffset >= 0) {
            return;
        }
        lock.writeLock().lock();
        try {
            if (assignInternal(new EpochEntry(epoch, startOffset))) {
                dirty = true;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Publishes the latest entry for the lock-free check in {@link #assign} (write lock held). */
    private void publishLatest() {
        Map.Entry<Integer, EpochEntry> last = epochs.lastEntry();
        latestStartOffset = UNDEFINED_OFFSET;
        latestEpoch = last == null ? UNDEFINED_EPOCH : last.getKey();
        latestStartOffset = last == null ? UNDEFINED_OFFSET : last.getValue().startOffset();
    }

    private boolean assignInternal(EpochEntry entry) {
        Map.Entry<Integer, EpochEntry> last = epochs.lastEntry();
        if (last != null && entry.epoch() == last.getValue().epoch()
                && entry.startOffset() >= last.getValue().startOffset()) {
            return false;
        }
        removeFromEnd(e -> e.epoch() >= entry.epoch() || e.startOffset() >= entry.startOffset());
        epochs.put(entry.epoch(), entry);
        publishLatest();
        return true;
    }

    private List<EpochEntry> removeFromEnd(Predicate<EpochEntry> matching) {
        List<EpochEntry> removed = new ArrayList<>();
        while (!epochs.isEmpty() && matching.test(epochs.lastEntry().getValue())) {
            removed.add(epochs.pollLastEntry().getValue());
        }
        publishLatest();
        return removed;
    }

    public OptionalInt latestEpoch() {
        int e = latestEpoch;
        return e == UNDEFINED_EPOCH ? OptionalInt.empty() : OptionalInt.of(e);
    }

    public Optional<EpochEntry> latestEntry() {
        lock.readLock().lock();
        try {
            return epochs.isEmpty() ? Optional.empty() : Optional.of(epochs.lastEntry().getValue());
        } finally {
            lock.readLock().unlock();
        }
    }

    public Optional<EpochEntry> earliestEntry() {
        lock.readLock().lock();
        try {
            return epochs.isEmpty() ? Optional.empty() : Optional.of(epochs.firstEntry().getValue());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The entries in increasing order (a copy). */
    public List<EpochEntry> entries() {
        lock.readLock().lock();
        try {
            return new ArrayList<>(epochs.values());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The epoch whose range contains {@code offset}: the last entry starting at or before it. */
    public OptionalInt epochForOffset(long offset) {
        lock.readLock().lock();
        try {
            EpochEntry found = null;
            for (EpochEntry e : epochs.values()) {
                if (e.startOffset() > offset) {
                    break;
                }
                found = e;
            }
            return found == null ? OptionalInt.empty() : OptionalInt.of(found.epoch());
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * KIP-101/279 end offset of {@code requestedEpoch}: for the latest epoch, ({@code epoch}, log end
     * offset); for an older known range, (the largest epoch &lt;= requested, the start offset of the first
     * larger epoch); for an epoch below the earliest known, (requested, the earliest start offset); and
     * {@link EpochEndOffset#UNDEFINED} for {@link #UNDEFINED_EPOCH} or an epoch above the latest.
     */
    public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        lock.readLock().lock();
        try {
            if (requestedEpoch == UNDEFINED_EPOCH || epochs.isEmpty()) {
                return EpochEndOffset.UNDEFINED;
            }
            if (requestedEpoch == epochs.lastKey()) {
                return new EpochEndOffset(requestedEpoch, logEndOffset);
            }
            Map.Entry<Integer, EpochEntry> higher = epochs.higherEntry(requestedEpoch);
            if (higher == null) {
                return EpochEndOffset.UNDEFINED;
            }
            Map.Entry<Integer, EpochEntry> floor = epochs.floorEntry(requestedEpoch);
            if (floor == null) {
                return new EpochEndOffset(requestedEpoch, higher.getValue().startOffset());
            }
            return new EpochEndOffset(floor.getKey(), higher.getValue().startOffset());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Removes the entries starting at or after {@code endOffset} (log truncation to that offset). */
    public void truncateFromEnd(long endOffset) throws IOException {
        lock.writeLock().lock();
        try {
            if (endOffset >= 0 && !epochs.isEmpty() && epochs.lastEntry().getValue().startOffset() >= endOffset) {
                removeFromEnd(e -> e.startOffset() >= endOffset);
                flush();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Drops the entries wholly before {@code startOffset} (log start offset moved): entries starting at or
     * before it are removed and the last of them is kept with its start raised to {@code startOffset}.
     */
    public void truncateFromStart(long startOffset) throws IOException {
        lock.writeLock().lock();
        try {
            EpochEntry lastRemoved = null;
            int removed = 0;
            while (!epochs.isEmpty() && epochs.firstEntry().getValue().startOffset() <= startOffset) {
                lastRemoved = epochs.pollFirstEntry().getValue();
                removed++;
            }
            if (lastRemoved != null) {
                epochs.put(lastRemoved.epoch(), new EpochEntry(lastRemoved.epoch(), startOffset));
                publishLatest();
                if (removed > 1 || lastRemoved.startOffset() != startOffset) {
                    dirty = true;
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Removes every entry (the log was truncated fully). */
    public void clear() throws IOException {
        lock.writeLock().lock();
        try {
            epochs.clear();
            publishLatest();
            flush();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Writes the file (durably: fsynced, renamed, directory fsynced) if an entry changed since it was last
     * written. The log calls this before it moves its recovery point, and when it closes.
     */
    public void flushIfDirty() throws IOException {
        lock.writeLock().lock();
        try {
            if (dirty) {
                flush();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void flush() throws IOException {
        if (checkpoint != null) {
            checkpoint.write(new ArrayList<>(epochs.values()));
        }
        dirty = false;
    }

    @Override
    public String toString() {
        return "LeaderEpochCache" + entries();
    }
}
