package io.krill.log;

import java.io.IOException;
import java.nio.ByteBuffer;
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
 * <p>Lazy file: an index has a file only once an entry was written to it (or one was found at load, or
 * the segment asked for an empty one, see {@link #createEmptyFile()}). A new segment's index creates,
 * sizes and maps nothing: creating a partition log costs no index syscalls, and an idle log holds no
 * mapping (at 10,000 partitions two mappings per log would be a third of {@code vm.max_map_count}'s
 * default). Lookups on an index without entries answer from memory, so a missing file and an empty one
 * behave alike; renames and flushes skip a file that does not exist.
 *
 * <p>Life cycle: while its segment is active the index is <em>writable</em>; the first write (an entry,
 * a truncation of entries) opens the file, preallocates it to {@code segment.index.bytes} (rounded down
 * to whole entries) and maps it read-write, pinned. Until then a writable index is read like an inactive
 * one. When the segment rolls (or closes) a mapped file is trimmed to its entries
 * ({@link #deactivate()}); afterwards it is mapped read-only on demand and the mapping is kept in the
 * shared {@link OpenFileCache}. Mappings are reference counted and unmapped only after the last reader
 * let go. The last entry of a time index written at roll into an index that was never mapped is written
 * with one positional write ({@link #appendUnmapped}), not through a preallocated mapping.
 *
 * <p>Crash behaviour: an index is never trusted blindly. The entry count of a file is its size divided by
 * the entry size (a size that is not a multiple is corruption); on the first read-only mapping the whole
 * content is checked ({@link #check}) and {@link CorruptIndexException} raised, upon which the segment
 * rebuilds the index from the log. A preallocated file left by a crash (zeros at the end) belongs to a
 * segment after the recovery point: recovery discards its entries unread ({@link #discardEntries()}) and
 * recomputes them from the log, so such a file is neither checked nor reported as corrupt. Whether a
 * missing file of a segment before the recovery point is legitimate (no entry was ever due) is decided
 * by the {@link LogSegment}. The first mapping of a file this index believes absent opens it with
 * {@code O_TRUNC}, so a stray file of an earlier segment with the same name never lends it entries.
 *
 * <p>Thread-safety: one writer (the partition's append lock) and any number of concurrent readers. A
 * reader sees entries below the published (volatile) count only, which is written after the entry bytes
 * (and after the mapping holding them became the current one). File and mapping state are guarded by an
 * internal lock. Invariant: once {@code verified}, the subclass's cached last entry is loaded.
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
    /** Length of the file on disk as this index left or found it; -1: there is no file. Written under lock. */
    private volatile long fileLength;
    private MapHandle current;
    /** The read-write mapping of a writable index, created by its first write. */
    private MapHandle pinned;
    /** The segment is active: writes are allowed (and map the file on the first one). */
    private boolean writable;
    private boolean closed;

    /**
     * @param load false for a new segment's index (no file, no entries, nothing read); true to open the
     *             file if there is one (none: no entries)
     */
    protected AbstractIndex(Path file, long baseOffset, int maxIndexSize, OpenFileCache cache, boolean load)
            throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.maxIndexSize = maxIndexSize;
        this.cache = cache;
        long length = -1;
        if (load) {
            try {
                length = Files.size(file);
            } catch (NoSuchFileException e) {
                length = -1;
            }
        }
        if (length > 0 && length % entrySize() != 0) {
            throw new CorruptIndexException(file + " has size " + length + ", not a multiple of " + entrySize());
        }
        if (length > Integer.MAX_VALUE) {
            throw new CorruptIndexException(file + " is too large: " + length);
        }
        fileLength = length;
        entries = length <= 0 ? 0 : (int) (length / entrySize());
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

    /** Whether the index has a file on disk (as far as it knows: it found or created one). */
    final boolean exists() {
        return fileLength >= 0;
    }

    /** Entries the preallocated (active) file can hold. */
    final int maxEntries() {
        return maxIndexSize / entrySize();
    }

    /** Whether the file is mapped read-write for appends (a writable index that was written to). */
    final boolean isMappedForWrites() {
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

    /**
     * A counted reference to a mapping holding at least the published entries; release when done. Only
     * for an index with entries (callers answer an empty index without a mapping).
     */
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
                if (fileLength < 0) {
                    throw new IllegalStateException(file + " has no file to map (" + n + " entries)");
                }
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
     * Makes the index writable (the segment became active). Nothing is opened or mapped here: the first
     * write does that ({@link #writableBuffer()}), so an active segment that takes no append costs no
     * mapping. The first {@link #entries()} entries are kept; they must have been checked (load sanity
     * check or rebuild) or be discarded ({@link #discardEntries()}).
     */
    final void activate() {
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            writable = true;
        }
    }

    /**
     * The read-write mapping for writing (writable index, under the append lock): on the first call the
     * file is created if missing (with {@code O_TRUNC} when this index believes it absent: a stray file
     * of an earlier segment must not lend it bytes), preallocated and mapped; readers get this mapping
     * from then on.
     */
    final MappedByteBuffer writableBuffer() throws IOException {
        MapHandle h;
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            if (!writable) {
                throw new IllegalStateException(file + " is not active");
            }
            if (pinned != null) {
                return pinned.buffer;
            }
            int n = entries;
            long length = Math.max((long) maxEntries() * entrySize(), (long) n * entrySize());
            MappedByteBuffer buf;
            try (FileChannel ch = fileLength < 0
                    ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)
                    : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                // Mapping beyond the end extends the file (one ftruncate).
                buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
            }
            fileLength = Math.max(length, fileLength);
            h = new MapHandle(buf, file);
            pinned = h;
            current = h;
            verified = true;
            onEntriesChanged(buf, n);
        }
        cache.invalidate(this);
        return h.buffer;
    }

    /**
     * Writes {@code entry} as entry {@link #entries()} with one positional write, without mapping the
     * file: the last time index entry written when a never-mapped segment becomes inactive. The caller
     * publishes the new count ({@link #publishUnmappedEntry}) and its cached last entry.
     */
    final void appendUnmapped(ByteBuffer entry) throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            if (!writable || pinned != null) {
                throw new IllegalStateException(file + " is not writable without a mapping");
            }
            if (entry.remaining() != entrySize()) {
                throw new IllegalArgumentException("an entry of " + entry.remaining() + " bytes in " + file);
            }
            int n = entries;
            long pos = (long) n * entrySize();
            try (FileChannel ch = fileLength < 0
                    ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                            StandardOpenOption.TRUNCATE_EXISTING)
                    : FileChannel.open(file, StandardOpenOption.WRITE)) {
                long p = pos;
                while (entry.hasRemaining()) {
                    p += ch.write(entry, p);
                }
                if (fileLength > p) {
                    ch.truncate(p); // bytes left by a discarded preallocation
                }
            }
            fileLength = pos + entrySize();
            // a read-only mapping holds the old entries only: the next reader maps again
            current = null;
        }
        cache.invalidate(this);
    }

    /** Publishes the entry written by {@link #appendUnmapped} (the subclass then updates its last entry). */
    final void publishUnmappedEntry() {
        entries = entries + 1;
    }

    /**
     * Creates the file empty if there is none (a compaction swap renames every index file; a segment
     * becoming inactive records that its index is legitimately empty, see {@link LogSegment}).
     */
    final void createEmptyFile() throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            if (fileLength >= 0) {
                return;
            }
            if (entries != 0) {
                throw new IllegalStateException(file + " has " + entries + " entries but no file");
            }
            FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING).close();
            fileLength = 0;
        }
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
     * file left by a crash is neither checked nor mapped for reading. Only before the first write; the
     * file keeps its bytes until the first write maps it and appends overwrite them, or until
     * {@link #deactivate()} trims it.
     */
    final void discardEntries() {
        synchronized (lock) {
            if (pinned != null) {
                throw new IllegalStateException(file + " is mapped for writes");
            }
            entries = 0;
            verified = true;
            current = null;
            onEntriesChanged(null, 0);
        }
        cache.invalidate(this);
    }

    /**
     * Trims the file to its entries and drops the read-write mapping (the segment became inactive). An
     * index that was never mapped has its file trimmed only if it differs from its entries (a discarded
     * preallocation); one without a file stays without.
     */
    final void deactivate() throws IOException {
        MapHandle h;
        synchronized (lock) {
            if (!writable) {
                return;
            }
            writable = false;
            h = pinned;
            pinned = null;
            if (h != null) {
                current = null;
            }
            long length = (long) entries * entrySize();
            if (fileLength >= 0 && fileLength != length) {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(length);
                }
                fileLength = length;
            }
        }
        if (h != null) {
            h.release();
        }
    }

    final boolean isFull() {
        return entries >= maxEntries();
    }

    /** Publishes a new entry count (after writing the entry into the mapping) or a lower one (truncation). */
    final void setEntries(int n) throws IOException {
        MappedByteBuffer buf = writableBuffer();
        entries = n;
        onEntriesChanged(buf, n);
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

    /** fsync of the mapping or the file; nothing when there is no file. */
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
        } else if (fileLength >= 0) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
    }

    /** Renames the file (a missing one is not an error: only the name changes). */
    final void renameTo(Path target) throws IOException {
        synchronized (lock) {
            if (fileLength >= 0) {
                io.krill.log.checkpoint.AtomicFile.atomicMove(file, target);
            }
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
            writable = false;
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
