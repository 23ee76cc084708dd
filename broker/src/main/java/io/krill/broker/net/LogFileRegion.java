package io.krill.broker.net;

import io.krill.log.FileSlice;
import io.netty.channel.DefaultFileRegion;

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

    @Override
    protected void deallocate() {
        slice.close();
    }
}
