package io.krill.log;

import io.krill.wire.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * A segment's {@code .timeindex}: a sparse, monotonic map from timestamp to offset, for ListOffsets by
 * time and retention by time.
 *
 * <p>Byte format: entries of 12 bytes, {@code timestamp int64, relativeOffset int32}. An entry (T, o)
 * says: T is the largest batch max-timestamp up to and including offset o's batch, and no earlier offset
 * of the segment reaches T. Timestamps strictly increase, offsets never decrease. An entry is added with
 * each offset-index entry when the max timestamp grew, and once more when the segment becomes inactive
 * (so the last entry is the segment's largest timestamp); to leave room for that one, the index counts
 * as full one entry early.
 *
 * <p>Crash behaviour and thread-safety: see {@link AbstractIndex}. The full check verifies strictly
 * increasing timestamps, non-decreasing non-negative relative offsets.
 */
final class TimeIndex extends AbstractIndex {
    static final int ENTRY_SIZE = 12;

    /** A time index answer; timestamp -1 means "no entry". */
    record TimestampOffset(long timestamp, long offset) {
    }

    private volatile long lastTimestamp;
    private volatile long lastOffset;
    private volatile boolean lastLoaded;

    /** @param load see {@link AbstractIndex#AbstractIndex}: false for a new segment (no file until an entry) */
    TimeIndex(Path file, long baseOffset, int maxIndexSize, OpenFileCache cache, boolean load) throws IOException {
        super(file, baseOffset, maxIndexSize, cache, load);
        if (entries() == 0) {
            lastTimestamp = RecordBatch.NO_TIMESTAMP;
            lastOffset = baseOffset;
            lastLoaded = true;
        }
    }

    @Override
    int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    long key(MappedByteBuffer buf, int n) {
        return buf.getLong(n * ENTRY_SIZE);
    }

    private long offset(MappedByteBuffer buf, int n) {
        return baseOffset + buf.getInt(n * ENTRY_SIZE + 8);
    }

    @Override
    String check(MappedByteBuffer buf, int n) {
        long prevTs = Long.MIN_VALUE;
        int prevRel = 0;
        for (int i = 0; i < n; i++) {
            long ts = key(buf, i);
            int rel = buf.getInt(i * ENTRY_SIZE + 8);
            if (i > 0 && ts <= prevTs) {
                return "entry " + i + " has timestamp " + ts + " after " + prevTs;
            }
            if (rel < prevRel) {
                return "entry " + i + " has relative offset " + rel + " after " + prevRel;
            }
            prevTs = ts;
            prevRel = rel;
        }
        return null;
    }

    @Override
    void onEntriesChanged(MappedByteBuffer buf, int n) {
        if (n == 0) {
            lastTimestamp = RecordBatch.NO_TIMESTAMP;
            lastOffset = baseOffset;
        } else {
            lastTimestamp = key(buf, n - 1);
            lastOffset = offset(buf, n - 1);
        }
        lastLoaded = true;
    }

    /** Full one entry early: the last slot is kept for the entry written when the segment rolls. */
    boolean isFullForAppend() {
        return entries() >= maxEntries() - 1;
    }

    /** The last entry, or (-1, baseOffset) when empty. */
    TimestampOffset lastEntry() throws IOException {
        if (!lastLoaded) {
            acquire().release();
        }
        return new TimestampOffset(lastTimestamp, lastOffset);
    }

    /**
     * The last entry with timestamp &lt;= {@code target}, or (-1, baseOffset): a scan for the first
     * offset with timestamp &gt;= target may start at the returned offset's batch.
     */
    TimestampOffset lookup(long target) throws IOException {
        int n = entries();
        if (n == 0) {
            return new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
        }
        MapHandle h = acquire();
        try {
            int slot = largestLowerBound(h.buffer, n, target);
            if (slot < 0) {
                return new TimestampOffset(RecordBatch.NO_TIMESTAMP, baseOffset);
            }
            return new TimestampOffset(key(h.buffer, slot), offset(h.buffer, slot));
        } finally {
            h.release();
        }
    }

    /** Entry {@code n} (tests, diagnostics). */
    TimestampOffset entry(int n) throws IOException {
        MapHandle h = acquire();
        try {
            return new TimestampOffset(key(h.buffer, n), offset(h.buffer, n));
        } finally {
            h.release();
        }
    }

    /**
     * Appends (timestamp, offset) if the timestamp is above the last entry's (active index, append lock).
     * The first entry creates and maps the file, except the final entry of an index that was never
     * mapped: that one is a single positional write (a segment rolled or closed with one time index
     * entry costs no preallocation and no mapping).
     *
     * @param skipFullCheck true for the final entry written at roll, which uses the reserved slot
     */
    void maybeAppend(long timestamp, long offset, boolean skipFullCheck) throws IOException {
        if (timestamp < 0) {
            return;
        }
        int n = entries();
        TimestampOffset last = lastEntry();
        if (n > 0 && timestamp <= last.timestamp()) {
            return;
        }
        if (n > 0 && offset < last.offset()) {
            throw new IllegalStateException("time index offset " + offset + " below " + last.offset() + " in " + file());
        }
        if (skipFullCheck ? isFull() : isFullForAppend()) {
            if (skipFullCheck) {
                return;
            }
            throw new IllegalStateException("time index " + file() + " is full");
        }
        if (skipFullCheck && !isMappedForWrites()) {
            ByteBuffer entry = ByteBuffer.allocate(ENTRY_SIZE);
            entry.putLong(timestamp).putInt(relativeOffset(offset)).flip();
            appendUnmapped(entry);
            lastTimestamp = timestamp;
            lastOffset = offset;
            lastLoaded = true;
            publishUnmappedEntry();
            return;
        }
        MappedByteBuffer buf = writableBuffer();
        buf.putLong(n * ENTRY_SIZE, timestamp);
        buf.putInt(n * ENTRY_SIZE + 8, relativeOffset(offset));
        setEntries(n + 1);
    }

    /** Removes the entries with offset &gt;= {@code offset} (active index; without entries, no I/O). */
    void truncateTo(long offset) throws IOException {
        int n = entries();
        if (n == 0) {
            return;
        }
        MappedByteBuffer buf = writableBuffer();
        int keep = n;
        while (keep > 0 && offset(buf, keep - 1) >= offset) {
            keep--;
        }
        setEntries(keep);
    }

    /** Removes every entry (active index; rebuild; without entries, no I/O). */
    void reset() throws IOException {
        if (entries() == 0) {
            return;
        }
        setEntries(0);
    }
}
