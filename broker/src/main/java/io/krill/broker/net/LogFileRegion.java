package io.krill.broker.net;

import io.krill.log.FileSlice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;

/**
 * Log bytes sent with sendfile: a {@link DefaultFileRegion} (so the epoll transport takes its native
 * sendfile path) over a segment's shared channel, that releases the {@link FileSlice} instead of closing
 * the channel when Netty is done with it.
 *
 * <p>Thread-safety: as Netty's FileRegion; the slice is released exactly once by reference counting.
 */
final class LogFileRegion extends DefaultFileRegion {
    private final FileSlice slice;

    LogFileRegion(FileSlice slice) {
        super(slice.channel(), slice.position(), slice.sizeInBytes());
        this.slice = slice;
    }

    /**
     * The region's bytes in a buffer, for TLS connections (an SslHandler can only encrypt buffers). Reads
     * the file on the calling thread; does not release the region.
     */
    ByteBuf read(ByteBufAllocator allocator) throws IOException {
        int size = (int) slice.sizeInBytes();
        ByteBuf buf = allocator.ioBuffer(size);
        try {
            long position = slice.position();
            while (buf.writerIndex() < size) {
                int n = buf.writeBytes(slice.channel(), position + buf.writerIndex(), size - buf.writerIndex());
                if (n < 0) {
                    throw new IOException("log segment ended " + (size - buf.writerIndex()) + " bytes early");
                }
            }
            return buf;
        } catch (IOException | RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    @Override
    protected void deallocate() {
        slice.close();
    }
}
