package io.krill.broker.net;

import io.krill.broker.security.Session;
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
 * <p>On SASL listeners a connection that has not authenticated yet gets a much smaller bound
 * ({@code sasl.server.max.receive.size}), so junk from unauthenticated peers cannot make the broker
 * buffer large frames.
 *
 * <p>Not thread-safe, not sharable: one instance per channel, used by its event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    static final int SIZE_PREFIX = 4;

    private final int maxFrameBytes;
    private final Session session;
    private final int maxUnauthenticatedFrameBytes;

    public FrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, null, maxFrameBytes);
    }

    /**
     * @param session                      the connection's session; while it is not authenticated frames are
     *                                     bounded by {@code maxUnauthenticatedFrameBytes} (null: no such bound)
     */
    public FrameDecoder(int maxFrameBytes, Session session, int maxUnauthenticatedFrameBytes) {
        if (maxFrameBytes <= 0 || maxUnauthenticatedFrameBytes <= 0) {
            throw new IllegalArgumentException("frame bounds must be positive: " + maxFrameBytes + ", "
                    + maxUnauthenticatedFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.session = session;
        this.maxUnauthenticatedFrameBytes = maxUnauthenticatedFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= SIZE_PREFIX) {
            int size = in.getInt(in.readerIndex());
            boolean unauthenticated = session != null && !session.isAuthenticated();
            int max = unauthenticated ? Math.min(maxFrameBytes, maxUnauthenticatedFrameBytes) : maxFrameBytes;
            if (size < 0 || size > max) {
                LOG.warn("Closing connection from {}: request size {} is outside [0, {}] ({})",
                        ctx.channel().remoteAddress(), size, max,
                        unauthenticated ? "sasl.server.max.receive.size before authentication" : "socket.request.max.bytes");
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
