package io.krill.wire.record.compression;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import io.krill.wire.record.CompressionType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.io.InputStream;

/**
 * Zstandard frames (RFC 8878) through zstd-jni. Written payloads are one frame with its content size;
 * read payloads may be any number of frames, with or without content sizes (Kafka's producer streams
 * them without). Decompression streams into the destination a window at a time, so the byte limit holds
 * whatever a frame claims; the decoder's own window limit (128 MiB, zstd's default) bounds its memory.
 *
 * <p>Immutable, thread-safe: each call uses its own native context; stream buffers come from zstd-jni's
 * shared recycling pool.
 */
public final class ZstdCompression implements Compression {
    public static final int MIN_LEVEL = Zstd.minCompressionLevel();
    public static final int MAX_LEVEL = Zstd.maxCompressionLevel();
    /** zstd's and Kafka's default. */
    public static final int DEFAULT_LEVEL = 3;
    public static final ZstdCompression DEFAULT = new ZstdCompression(DEFAULT_LEVEL);

    private static final String NAME = "zstd";

    private final int level;

    public ZstdCompression(int level) {
        if (level < MIN_LEVEL || level > MAX_LEVEL) {
            throw new IllegalArgumentException("zstd level " + level + " not in [" + MIN_LEVEL + ", " + MAX_LEVEL + "]");
        }
        this.level = level;
    }

    public int level() {
        return level;
    }

    @Override
    public CompressionType type() {
        return CompressionType.ZSTD;
    }

    @Override
    public void compress(ByteBuf src, ByteBuf dst) {
        int length = src.readableBytes();
        byte[] in = src.hasArray() ? src.array() : ByteBufUtil.getBytes(src);
        int base = src.hasArray() ? src.arrayOffset() + src.readerIndex() : 0;
        int bound = (int) Math.min(Zstd.compressBound(length), Integer.MAX_VALUE - 64);
        dst.ensureWritable(bound);
        int at = dst.writerIndex();
        long written;
        if (dst.hasArray()) {
            written = Zstd.compressByteArray(dst.array(), dst.arrayOffset() + at, bound, in, base, length, level);
        } else {
            byte[] out = new byte[bound];
            written = Zstd.compressByteArray(out, 0, bound, in, base, length, level);
            if (!Zstd.isError(written)) {
                dst.setBytes(at, out, 0, (int) written);
            }
        }
        if (Zstd.isError(written)) {
            throw new IllegalStateException("zstd compression failed: " + Zstd.getErrorName(written));
        }
        dst.writerIndex(at + (int) written);
    }

    @Override
    public int decompress(ByteBuf src, ByteBuf dst, int maxBytes) {
        int start = dst.writerIndex();
        try (InputStream in = new ZstdInputStreamNoFinalizer(new ByteBufInputStream(src.duplicate()),
                RecyclingBufferPool.INSTANCE)) {
            int idle = 0;
            while (true) {
                int room = maxBytes - (dst.writerIndex() - start);
                // One byte past the limit tells "exactly at the limit" from "over it".
                int window = Math.min(Buffers.WINDOW, room + 1);
                dst.ensureWritable(window);
                int read = dst.writeBytes(in, window);
                if (read < 0) {
                    break;
                }
                if (read > room) {
                    throw Buffers.tooLarge(NAME, maxBytes);
                }
                if (read == 0 && ++idle > 16) {
                    throw Buffers.corrupt(NAME, "decoder makes no progress");
                }
            }
        } catch (IOException | ZstdException e) {
            throw Buffers.corrupt(NAME, e);
        }
        return dst.writerIndex() - start;
    }

    @Override
    public String toString() {
        return "zstd(level=" + level + ")";
    }
}
