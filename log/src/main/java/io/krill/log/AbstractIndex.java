package io.krill.log;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A memory-mapped sparse index of fixed-size entries, sorted by key (see {@link OffsetIndex},
 * {@link TimeIndex}).
 *
 * <p>Life cycle: while its segment is active the file is preallocated to {@code segment.index.bytes}
 * (rounded down to whole entries) and mapped read-write, pinned. When the segment rolls (or closes) the
 * file is trimmed to its entries ({@link #deactivate()}); afterwards it is mapped read-only on demand and
 * the mapping is kept in the shared {@link OpenFileCache}. Mappings are reference counted and unmapped
 * only after the last reader let go.
 *
 * <p>Crash behaviour: an index is never trusted blindly. The entry count of a file is its size divided by
 * the entry size (a size that is not a multiple is corruption); on the first read-only mapping the whole
 * content is checked ({@link #check}) and {@link CorruptIndexException} raised, upon which the segment
 * rebuilds the index from the log. A preallocated file left by a crash (zeros at the end) belongs to a
 * segment after the recovery point: recovery discards its entries unread ({@link #discardEntries()}) and
 * recomputes them from the log, so such a file is neither checked nor reported as corrupt.
 *
 * <p>Thread-safety: one writer (the partition's append lock) and any number of concurrent readers. A
 * reader sees entries below the published (volatile) count only, which is written after the entry bytes.
 */
abstract class AbstractIndex {
    /** Readers search the last 8 KiB first: it is where fetches land and stays in the page cache. */
    private static final int WARM_BYTES = 8192;

    /** An index mapping shared by reference count. */
    static final class MapHandle extends RefCounted {
        final MappedByteBuffer buffer;
        private final Path file;

        MapHandle(MappedByteBuffer buffer, Path file) {
            this.buffer = buffer;
            this.file = file;
        }

        @Override
        protected void closeResource() {
            MappedBuffers.unmap(buffer);
        }

        @Override
        public String toString() {
            return "MapHandle(" + file + ")";
        }
    }

    protected final long baseOffset;
    private final int maxIndexSize;
    private final OpenFileCache cache;
    private final Object lock = new Object();
    private volatile Path file;
    private volatile int entries;
    private volatile boolean verified;
    private MapHandle current;
    private MapHandle pinned;
    private boolean closed;

    protected AbstractIndex(Path file, long baseOffset, int maxIndexSize, OpenFileCache cache) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.maxIndexSize = maxIndexSize;
        this.cache = cache;
        long length;
        try {
            length = Files.size(file);
        } catch (NoSuchFileException e) {
            Files.createFile(file);
            length = 0;
        }
        if (length % entrySize() != 0) {
            throw new CorruptIndexException(file + " has size " + length + ", not a multiple of " + entrySize());
        }
        if (length > Integer.MAX_VALUE) {
            throw new CorruptIndexException(file + " is too large: " + length);
        }
        entries = (int) (length / entrySize());
        verified = entries == 0;
    }

    abstract int entrySize();

    /** Checks {@code n} entries of a freshly mapped inactive index; returns a reason, or null if sound. */
    abstract String check(MappedByteBuffer buf, int n);

    /** Called after the entry count changed (loads, appends, truncation) to refresh cached last entries. */
    abstract void onEntriesChanged(MappedByteBuffer buf, int n);

    final Path file() {
        return file;
    }

    final long baseOffset() {
        return baseOffset;
    }

    final int entries() {
        return entries;
    }

    /** Entries the preallocated (active) file can hold. */
    final int maxEntries() {
        return maxIndexSize / entrySize();
    }

    final boolean isActive() {
        synchronized (lock) {
            return pinned != null;
        }
    }

    /** Size of the file on disk as it should be: preallocated when active, trimmed otherwise. */
    final long sizeInBytes() {
        return (long) entries * entrySize();
    }

    final int relativeOffset(long offset) {
        long rel = offset - baseOffset;
        if (rel < 0 || rel > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " does not fit an index with base " + baseOffset);
        }
        return (int) rel;
    }

    /** A counted reference to a mapping holding at least the published entries; release when done. */
    final MapHandle acquire() throws IOException {
        MapHandle h;
        boolean register;
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            h = current;
            if (h == null || !h.tryRetain()) {
                int n = entries;
                MappedByteBuffer buf;
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    buf = ch.map(FileChannel.MapMode.READ_ONLY, 0, (long) n * entrySize());
                }
                if (!verified) {
                    String problem = check(buf, n);
                    if (problem != null) {
                        MappedBuffers.unmap(buf);
                        throw new CorruptIndexException(file + ": " + problem);
                    }
                    verified = true;
                    onEntriesChanged(buf, n);
                }
                h = new MapHandle(buf, file);
                current = h;
            }
            register = pinned == null;
        }
        if (register) {
            cache.register(this, h);
        }
        return h;
    }

    /**
     * Preallocates the file and maps it read-write for appends (the segment became active). The first
     * {@link #entries()} entries are kept; they must have been checked (load sanity check or rebuild).
     */
    final void activate() throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            if (pinned != null) {
                return;
            }
            long length = (long) maxEntries() * entrySize();
            if (length < (long) entries * entrySize()) {
                length = (long) entries * entrySize();
            }
            MappedByteBuffer buf;
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(length);
                buf = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, length);
            }
            MapHandle h = new MapHandle(buf, file);
            pinned = h;
            current = h;
            verified = true;
            onEntriesChanged(buf, entries);
        }
        cache.invalidate(this);
    }

    /**
     * Maps the index once so that it is checked (a no-op if already checked).
     *
     * @throws CorruptIndexException if it fails the check
     */
    final void verify() throws IOException {
        if (verified) {
            return;
        }
        acquire().release();
    }

    /**
     * Forgets the entries without reading them (recovery recomputes them from the log): a preallocated
     * file left by a crash is neither checked nor mapped for reading. Only while inactive, before
     * {@link #activate()}; the file keeps its bytes until activation resizes it and appends overwrite them.
     */
    final void discardEntries() {
        synchronized (lock) {
            if (pinned != null) {
                throw new IllegalStateException(file + " is active");
            }
            entries = 0;
            verified = true;
            current = null;
            onEntriesChanged(null, 0);
        }
        cache.invalidate(this);
    }

    /** Trims the file to its entries and drops the read-write mapping (the segment became inactive). */
    final void deactivate() throws IOException {
        MapHandle h;
        synchronized (lock) {
            h = pinned;
            if (h == null) {
                return;
            }
            pinned = null;
            current = null;
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength((long) entries * entrySize());
            }
        }
        h.release();
    }

    /** The mapping for writing; only while active and under the append lock. */
    final MappedByteBuffer writableBuffer() {
        synchronized (lock) {
            if (pinned == null) {
                throw new IllegalStateException(file + " is not active");
            }
            return pinned.buffer;
        }
    }

    final boolean isFull() {
        return entries >= maxEntries();
    }

    /** Publishes a new entry count (after writing the entry) or a lower one (truncation). */
    final void setEntries(int n) {
        entries = n;
        onEntriesChanged(writableBuffer(), n);
    }

    /**
     * The largest slot whose key is at most {@code target}, or -1; searches the warm tail first.
     */
    final int largestLowerBound(MappedByteBuffer buf, int n, long target) {
        if (n == 0) {
            return -1;
        }
        int warmEntries = WARM_BYTES / entrySize();
        int firstWarm = Math.max(0, n - 1 - warmEntries);
        if (key(buf, firstWarm) <= target) {
            return binarySearch(buf, target, firstWarm, n - 1);
        }
        if (key(buf, 0) > target) {
            return -1;
        }
        return binarySearch(buf, target, 0, firstWarm);
    }

    /** The smallest slot whose key is at least {@code target}, or {@code n}. */
    final int smallestUpperBound(MappedByteBuffer buf, int n, long target) {
        int slot = largestLowerBound(buf, n, target);
        if (slot >= 0 && key(buf, slot) == target) {
            return slot;
        }
        return slot + 1;
    }

    private int binarySearch(MappedByteBuffer buf, long target, int lo, int hi) {
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (key(buf, mid) <= target) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** The search key of slot {@code n} (absolute offset or timestamp). */
    abstract long key(MappedByteBuffer buf, int n);

    final void flush() throws IOException {
        MapHandle p;
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            p = pinned;
            if (p != null) {
                p.retain();
            }
        }
        if (p != null) {
            try {
                p.buffer.force();
            } finally {
                p.release();
            }
        } else if (Files.exists(file)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
    }

    final void renameTo(Path target) throws IOException {
        synchronized (lock) {
            io.krill.log.checkpoint.AtomicFile.atomicMove(file, target);
            file = target;
        }
    }

    /** Closes for good; the mapping is unmapped when its last reader lets go. */
    final void close() {
        MapHandle p;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            p = pinned;
            pinned = null;
            current = null;
        }
        cache.invalidate(this);
        if (p != null) {
            p.release();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + file + ", entries=" + entries + ")";
    }
}
