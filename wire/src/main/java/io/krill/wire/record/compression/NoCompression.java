package io.krill.wire.record.compression;

import io.krill.wire.record.CompressionType;
import io.netty.buffer.ByteBuf;

/** The identity codec, so callers need no special case for uncompressed batches. Stateless, thread-safe. */
public final class NoCompression implements Compression {
    public static final NoCompression INSTANCE = new NoCompression();

    private NoCompression() {
    }

    @Override
    public CompressionType type() {
        return CompressionType.NONE;
    }

    @Override
    public void compress(ByteBuf src, ByteBuf dst) {
        dst.writeBytes(src, src.readerIndex(), src.readableBytes());
    }

    @Override
    public int decompress(ByteBuf src, ByteBuf dst, int maxBytes) {
        int length = src.readableBytes();
        if (length > maxBytes) {
            throw Buffers.tooLarge("uncompressed", maxBytes);
        }
        dst.writeBytes(src, src.readerIndex(), length);
        return length;
    }

    @Override
    public String toString() {
        return "none";
    }
}
