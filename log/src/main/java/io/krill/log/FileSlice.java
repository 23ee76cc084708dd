package io.krill.log;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A zero-copy view of whole record batches in a segment file: {@code [position, position + sizeInBytes)}
 * of {@link #channel()}. The slice holds a reference on the channel, so it stays open (even if the segment
 * is deleted or its handle evicted meanwhile) until {@link #close()}; close exactly once when the bytes
 * are sent. To send with Netty, wrap it in a {@code FileRegion} whose {@code deallocate} calls
 * {@link #close()} (not {@code DefaultFileRegion} over the channel, which would close the shared channel).
 *
 * <p>The bytes are those of the batches at read time; a concurrent follower truncation may rewrite them
 * (as in Kafka). Thread-safety: the accessors are thread-safe; {@link #close()} is idempotent.
 */
public final class FileSlice implements AutoCloseable {
    /** No bytes, no channel. */
    public static final FileSlice EMPTY = new FileSlice(null, null, 0, 0);

    private final FileRecords.ChannelHandle handle;
    private final FileChannel channel;
    private final long position;
    private final int sizeInBytes;
    private final AtomicBoolean closed = new AtomicBoolean();

    FileSlice(FileRecords.ChannelHandle handle, FileChannel channel, long position, int sizeInBytes) {
        this.handle = handle;
        this.channel = channel;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
    }

    /** The segment file's channel, or {@code null} for an empty slice. Never close it: call {@link #close()}. */
    public FileChannel channel() {
        return channel;
    }

    /** Byte position of the first batch in the file. */
    public long position() {
        return position;
    }

    public int sizeInBytes() {
        return sizeInBytes;
    }

    public boolean isEmpty() {
        return sizeInBytes == 0;
    }

    /**
     * Transfers up to {@code count} bytes from {@code offset} within the slice to {@code target}
     * ({@code FileChannel.transferTo}, sendfile on Linux).
     *
     * @return the bytes transferred (possibly fewer than asked, as with the channel)
     */
    public long transferTo(WritableByteChannel target, long offset, long count) throws IOException {
        if (offset < 0 || offset > sizeInBytes) {
            throw new IndexOutOfBoundsException("offset " + offset + " of a slice of " + sizeInBytes);
        }
        long n = Math.min(count, sizeInBytes - offset);
        if (n == 0) {
            return 0;
        }
        return channel.transferTo(position + offset, n, target);
    }

    /** Reads from {@code offset} within the slice into {@code dst} (at most its remaining bytes). */
    public int read(ByteBuffer dst, long offset) throws IOException {
        int want = (int) Math.min(dst.remaining(), sizeInBytes - offset);
        if (want <= 0) {
            return 0;
        }
        ByteBuffer limited = dst.slice().limit(want);
        int total = 0;
        while (limited.hasRemaining()) {
            int n = channel.read(limited, position + offset + total);
            if (n < 0) {
                throw new IOException("end of file inside a slice");
            }
            total += n;
        }
        dst.position(dst.position() + total);
        return total;
    }

    /** Copies the slice into a new heap buffer (tests, TLS paths that cannot use sendfile). */
    public ByteBuf readAll() throws IOException {
        ByteBuffer dst = ByteBuffer.allocate(sizeInBytes);
        read(dst, 0);
        dst.flip();
        return Unpooled.wrappedBuffer(dst);
    }

    /** Releases the channel reference; idempotent. */
    @Override
    public void close() {
        if (handle != null && closed.compareAndSet(false, true)) {
            handle.release();
        }
    }

    @Override
    public String toString() {
        return "FileSlice(position=" + position + ", size=" + sizeInBytes + ")";
    }
}
