package io.krill.log;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * A segment's {@code .index}: a sparse map from offset to the byte position of a batch in the
 * {@code .log}, one entry per {@code index.interval.bytes} of appended data.
 *
 * <p>Byte format: entries of 8 bytes, {@code relativeOffset int32, position int32}, where
 * {@code relativeOffset = batch.lastOffset - segment.baseOffset} and {@code position} is where that batch
 * starts. Both strictly increase. To find offset {@code o}, take the last entry with offset &lt;= o and scan
 * batch headers forward from its position. No entry is needed for the first batch (position 0 is the
 * default).
 *
 * <p>Crash behaviour and thread-safety: see {@link AbstractIndex}. The full check verifies strictly
 * increasing offsets and positions, non-negative relative offsets, and positions inside the log file.
 */
final class OffsetIndex extends AbstractIndex {
    static final int ENTRY_SIZE = 8;

    /** An index answer: the offset of an entry and the position of its batch. */
    record OffsetPosition(long offset, int position) {
    }

    private final IntSupplier logSize;
    private volatile long lastOffset;

    /** @param load see {@link AbstractIndex#AbstractIndex}: false for a new segment (no file until an entry) */
    OffsetIndex(Path file, long baseOffset, int maxIndexSize, OpenFileCache cache, IntSupplier logSize, boolean load)
            throws IOException {
        super(file, baseOffset, maxIndexSize, cache, load);
        this.logSize = logSize;
        this.lastOffset = entries() == 0 ? baseOffset : -1;
    }

    @Override
    int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    long key(MappedByteBuffer buf, int n) {
        return baseOffset + buf.getInt(n * ENTRY_SIZE);
    }

    private static int position(MappedByteBuffer buf, int n) {
        return buf.getInt(n * ENTRY_SIZE + 4);
    }

    @Override
    String check(MappedByteBuffer buf, int n) {
        int size = logSize.getAsInt();
        long prevOffset = -1;
        int prevPosition = -1;
        for (int i = 0; i < n; i++) {
            int rel = buf.getInt(i * ENTRY_SIZE);
            int pos = position(buf, i);
            if (rel < 0 || rel <= prevOffset) {
                return "entry " + i + " has relative offset " + rel + " after " + prevOffset;
            }
            if (pos <= prevPosition || pos >= size) {
                return "entry " + i + " has position " + pos + " after " + prevPosition + " (log size " + size + ")";
            }
            prevOffset = rel;
            prevPosition = pos;
        }
        return null;
    }

    @Override
    void onEntriesChanged(MappedByteBuffer buf, int n) {
        lastOffset = n == 0 ? baseOffset : key(buf, n - 1);
    }

    /** The offset of the last entry, or the base offset when there is none. */
    long lastOffset() throws IOException {
        long last = lastOffset;
        if (last < 0) {
            acquire().release();
            last = lastOffset;
        }
        return last;
    }

    /** The last entry with offset &lt;= {@code target}, or (baseOffset, 0). */
    OffsetPosition lookup(long target) throws IOException {
        int n = entries();
        if (n == 0 || target < baseOffset) {
            return new OffsetPosition(baseOffset, 0);
        }
        MapHandle h = acquire();
        try {
            int slot = largestLowerBound(h.buffer, n, target);
            if (slot < 0) {
                return new OffsetPosition(baseOffset, 0);
            }
            return new OffsetPosition(key(h.buffer, slot), position(h.buffer, slot));
        } finally {
            h.release();
        }
    }

    /**
     * The last entry whose batch starts at or before {@code maxPosition} and whose offset is below
     * {@code maxOffsetExclusive}, or null: every batch before that entry's position is whole within
     * {@code maxPosition} and ends below the offset bound, so a read can skip scanning their headers.
     */
    OffsetPosition lastEntryWithin(int maxPosition, long maxOffsetExclusive) throws IOException {
        int n = entries();
        if (n == 0) {
            return null;
        }
        MapHandle h = acquire();
        try {
            int lo = 0;
            int hi = n - 1;
            if (position(h.buffer, 0) > maxPosition) {
                return null;
            }
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (position(h.buffer, mid) <= maxPosition) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            int slot = lo;
            if (key(h.buffer, slot) >= maxOffsetExclusive) {
                slot = Math.min(slot, largestLowerBound(h.buffer, n, maxOffsetExclusive - 1));
            }
            return slot < 0 ? null : new OffsetPosition(key(h.buffer, slot), position(h.buffer, slot));
        } finally {
            h.release();
        }
    }

    /** Entry {@code n} (tests, diagnostics). */
    OffsetPosition entry(int n) throws IOException {
        MapHandle h = acquire();
        try {
            return new OffsetPosition(key(h.buffer, n), position(h.buffer, n));
        } finally {
            h.release();
        }
    }

    /**
     * Appends an entry (active index, append lock held); the first one creates and maps the file
     * (see {@link AbstractIndex}).
     */
    void append(long offset, int position) throws IOException {
        int n = entries();
        if (isFull()) {
            throw new IllegalStateException("index " + file() + " is full");
        }
        MappedByteBuffer buf = writableBuffer(); // maps on the first write, which also loads lastOffset
        if (n > 0 && offset <= lastOffset) {
            throw new IllegalStateException("index entry offset " + offset + " not above " + lastOffset + " in " + file());
        }
        buf.putInt(n * ENTRY_SIZE, relativeOffset(offset));
        buf.putInt(n * ENTRY_SIZE + 4, position);
        setEntries(n + 1);
    }

    /** Removes the entries with offset &gt;= {@code offset} (active index; without entries, no I/O). */
    void truncateTo(long offset) throws IOException {
        if (entries() == 0) {
            return;
        }
        MappedByteBuffer buf = writableBuffer();
        setEntries(smallestUpperBound(buf, entries(), offset));
    }

    /** Removes every entry (active index; rebuild; without entries, no I/O). */
    void reset() throws IOException {
        if (entries() == 0) {
            return;
        }
        setEntries(0);
    }
}
