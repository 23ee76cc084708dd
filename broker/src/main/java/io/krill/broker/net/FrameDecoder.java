package io.krill.broker.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the inbound byte stream into Kafka request frames: a 4-byte big-endian size, then that many
 * bytes. Emits each frame as a retained slice of the cumulation (no copy), size prefix stripped.
 *
 * <p>A size that is negative or larger than {@code socket.request.max.bytes} closes the connection
 * before anything is allocated for it, as Kafka does: there is no way to resynchronise a stream whose
 * framing is broken. A zero-length frame is passed on; the request decoder rejects it.
 *
 * <p>Not thread-safe, not sharable: one instance per channel, used by its event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    static final int SIZE_PREFIX = 4;

    private final int maxFrameBytes;

    public FrameDecoder(int maxFrameBytes) {
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be positive: " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= SIZE_PREFIX) {
            int size = in.getInt(in.readerIndex());
            if (size < 0 || size > maxFrameBytes) {
                LOG.warn("Closing connection from {}: request size {} is outside [0, {}] (socket.request.max.bytes)",
                        ctx.channel().remoteAddress(), size, maxFrameBytes);
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            if (in.readableBytes() < SIZE_PREFIX + size) {
                return;
            }
            in.skipBytes(SIZE_PREFIX);
            out.add(in.readRetainedSlice(size));
        }
    }
}
