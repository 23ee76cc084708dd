package io.krill.log;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A segment's {@code .log} file: record batches (v2, as appended, no framing of its own) back to back.
 *
 * <p>Byte format: {@code batch*}, each batch {@code baseOffset int64, batchLength int32, ...} (see
 * {@link io.krill.wire.record.RecordBatch}); offsets strictly increase from batch to batch.
 *
 * <p>Crash behaviour: appends are plain writes into the page cache; the tail after the last fsync may be
 * lost or torn. Recovery ({@link LogSegment#recover}) keeps the longest valid prefix and truncates the rest.
 *
 * <p>Thread-safety: one appender at a time (the partition's append lock); any number of concurrent
 * readers via positional reads. {@link #sizeInBytes()} is published (volatile) after the bytes are
 * written, so a reader bounded by it sees only complete batches. While the segment is active its channel
 * is pinned open; once inactive, the channel is opened on demand and kept in the shared
 * {@link OpenFileCache}. {@link #acquire()} hands out a counted reference; the channel closes after the
 * cache and every holder released it.
 */
final class FileRecords {

    /** The open channel, shared by reference count. */
    static final class ChannelHandle extends RefCounted {
        final FileChannel channel;
        private final Path file;

        ChannelHandle(FileChannel channel, Path file) {
            this.channel = channel;
            this.file = file;
        }

        @Override
        protected void closeResource() {
            try {
                channel.close();
            } catch (IOException e) {
                LogSegment.log.warn("closing {} failed", file, e);
            }
        }

        @Override
        public String toString() {
            return "ChannelHandle(" + file + ")";
        }
    }

    private final OpenFileCache cache;
    private final Object lock = new Object();
    private volatile Path file;
    private volatile int size;
    private ChannelHandle current;
    private ChannelHandle pinned;
    private boolean closed;

    private FileRecords(Path file, OpenFileCache cache, int size) {
        this.file = file;
        this.cache = cache;
        this.size = size;
    }

    /** Opens an existing file, or creates an empty one when {@code create} (replacing a stale one). */
    static FileRecords open(Path file, OpenFileCache cache, boolean create) throws IOException {
        if (create) {
            return create(file, cache, true);
        }
        long length = Files.size(file);
        if (length > Integer.MAX_VALUE) {
            throw new IOException(file + " is larger than 2 GiB");
        }
        return new FileRecords(file, cache, (int) length);
    }

    /**
     * Creates the file empty ({@code O_CREAT|O_EXCL}) and keeps the channel it was created with pinned
     * for appends, as {@link #pin()} would: one {@code openat}, no stat. With {@code replaceExisting} a
     * stale file of that name is deleted first (a segment created in a directory that already held
     * segments); in a directory just made there is nothing to replace.
     */
    static FileRecords create(Path file, OpenFileCache cache, boolean replaceExisting) throws IOException {
        if (replaceExisting) {
            Files.deleteIfExists(file);
        }
        FileRecords records = new FileRecords(file, cache, 0);
        ChannelHandle h = new ChannelHandle(FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE), file);
        synchronized (records.lock) {
            records.current = h;
            records.pinned = h;
        }
        return records;
    }

    Path file() {
        return file;
    }

    /** Bytes of complete batches, published after each append. */
    int sizeInBytes() {
        return size;
    }

    /** A counted reference to the open channel; release it when done. */
    ChannelHandle acquire() throws IOException {
        ChannelHandle h;
        boolean register;
        synchronized (lock) {
            if (closed) {
                throw new SegmentClosedException(String.valueOf(file));
            }
            h = current;
            if (h == null || !h.tryRetain()) {
                h = new ChannelHandle(FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE), file);
                current = h;
            }
            register = pinned == null;
        }
        if (register) {
            cache.register(this, h);
        }
        return h;
    }

    /** Keeps the channel open for appends until {@link #unpin()} (the segment became active). */
    void pin() throws IOException {
        ChannelHandle h = acquire();
        synchronized (lock) {
            if (pinned != null) {
                h.release();
                return;
            }
            pinned = h;
        }
        cache.invalidate(this);
    }

    /** Hands the pinned channel over to the cache (the segment became inactive). */
    void unpin() {
        ChannelHandle h;
        synchronized (lock) {
            h = pinned;
            pinned = null;
        }
        if (h != null) {
            if (!closedNow()) {
                cache.register(this, h);
            }
            h.release();
        }
    }

    private boolean closedNow() {
        synchronized (lock) {
            return closed;
        }
    }

    private FileChannel pinnedChannel() {
        synchronized (lock) {
            if (pinned == null) {
                throw new IllegalStateException(file + " is not open for appends");
            }
            return pinned.channel;
        }
    }

    /**
     * Appends {@code length} bytes of {@code buf} from absolute index {@code index} at the end of the file,
     * then publishes the new size.
     *
     * @return the position the bytes were written at
     */
    int append(ByteBuf buf, int index, int length) throws IOException {
        FileChannel ch = pinnedChannel();
        int position = size;
        long written = 0;
        if (buf.nioBufferCount() == 1) {
            ByteBuffer src = buf.nioBuffer(index, length);
            while (src.hasRemaining()) {
                written += ch.write(src, position + written);
            }
        } else {
            for (ByteBuffer src : buf.nioBuffers(index, length)) {
                while (src.hasRemaining()) {
                    written += ch.write(src, position + written);
                }
            }
        }
        size = position + length;
        return position;
    }

    /** Reads exactly {@code dst.remaining()} bytes at {@code position}, or fewer at end of file. */
    int read(ByteBuffer dst, long position) throws IOException {
        ChannelHandle h = acquire();
        try {
            return readFully(h.channel, dst, position);
        } finally {
            h.release();
        }
    }

    static int readFully(FileChannel ch, ByteBuffer dst, long position) throws IOException {
        int total = 0;
        while (dst.hasRemaining()) {
            int n = ch.read(dst, position + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /** A slice holding its own channel reference (see {@link FileSlice}). */
    FileSlice slice(int position, int length) throws IOException {
        if (length == 0) {
            return FileSlice.EMPTY;
        }
        ChannelHandle h = acquire();
        return new FileSlice(h, h.channel, position, length);
    }

    /** fdatasync: the data and the size, not other metadata. */
    void flush() throws IOException {
        ChannelHandle h = acquire();
        try {
            h.channel.force(false);
        } finally {
            h.release();
        }
    }

    /** Cuts the file to {@code newSize} bytes (recovery, follower truncation). */
    void truncateTo(int newSize) throws IOException {
        if (newSize > size) {
            throw new IllegalArgumentException("truncate " + file + " to " + newSize + " above its size " + size);
        }
        ChannelHandle h = acquire();
        try {
            h.channel.truncate(newSize);
            size = newSize;
        } finally {
            h.release();
        }
    }

    /** Re-reads the size from disk (after recovery wrote through another path). */
    void refreshSize() throws IOException {
        size = (int) Files.size(file);
    }

    void renameTo(Path target) throws IOException {
        synchronized (lock) {
            io.krill.log.checkpoint.AtomicFile.atomicMove(file, target);
            file = target;
        }
    }

    /** Closes for good: no new acquisitions; the channel closes when its last holder releases it. */
    void close() {
        ChannelHandle p;
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

    boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    @Override
    public String toString() {
        return "FileRecords(" + file + ", size=" + size + ")";
    }
}
