package io.krill.wire.record.compression;

import io.krill.wire.record.CompressionType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyError;

/**
 * Snappy in the framing of snappy-java's {@code SnappyOutputStream}, which is what Kafka's Java clients
 * write (not the official snappy framing format):
 *
 * <pre>
 * header:  82 'S' 'N' 'A' 'P' 'P' 'Y' 00 | version int32 BE (1) | compatible version int32 BE (1)
 * chunk*:  compressed length int32 BE (&gt; 0) | raw snappy block of at most 32 KiB uncompressed
 * </pre>
 * A header may appear again between chunks (streams concatenated). A payload that does not start with
 * the magic is read as one raw snappy block, as {@code SnappyInputStream} does: some non-Java clients
 * write that. Trailing bytes that do not form a whole chunk are corrupt.
 *
 * <p>Stateless, thread-safe.
 */
public final class SnappyCompression implements Compression {
    public static final SnappyCompression INSTANCE = new SnappyCompression();

    private static final String NAME = "snappy";
    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    private static final int HEADER_SIZE = 16;
    private static final int VERSION = 1;
    private static final int COMPATIBLE_VERSION = 1;
    /** snappy-java's default block size, which Kafka's producer keeps. */
    private static final int BLOCK_SIZE = 32 * 1024;

    private SnappyCompression() {
    }

    @Override
    public CompressionType type() {
        return CompressionType.SNAPPY;
    }

    @Override
    public void compress(ByteBuf src, ByteBuf dst) {
        dst.writeBytes(MAGIC);
        dst.writeInt(VERSION);
        dst.writeInt(COMPATIBLE_VERSION);
        int length = src.readableBytes();
        byte[] in = src.hasArray() ? src.array() : ByteBufUtil.getBytes(src);
        int base = src.hasArray() ? src.arrayOffset() + src.readerIndex() : 0;
        try {
            for (int done = 0; done < length; done += BLOCK_SIZE) {
                int blockLength = Math.min(BLOCK_SIZE, length - done);
                int maxLength = Snappy.maxCompressedLength(blockLength);
                dst.ensureWritable(4 + maxLength);
                int at = dst.writerIndex();
                int compressed;
                if (dst.hasArray()) {
                    compressed = Snappy.compress(in, base + done, blockLength, dst.array(), dst.arrayOffset() + at + 4);
                } else {
                    byte[] out = new byte[maxLength];
                    compressed = Snappy.compress(in, base + done, blockLength, out, 0);
                    dst.setBytes(at + 4, out, 0, compressed);
                }
                dst.setInt(at, compressed);
                dst.writerIndex(at + 4 + compressed);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("snappy compression failed", e);
        }
    }

    @Override
    public int decompress(ByteBuf src, ByteBuf dst, int maxBytes) {
        int start = dst.writerIndex();
        int length = src.readableBytes();
        byte[] in = src.hasArray() ? src.array() : ByteBufUtil.getBytes(src);
        int base = src.hasArray() ? src.arrayOffset() + src.readerIndex() : 0;
        try {
            if (!hasMagic(in, base, length)) {
                uncompressBlock(in, base, length, dst, maxBytes, maxBytes);
                return dst.writerIndex() - start;
            }
            int position = 0;
            while (position < length) {
                if (hasMagic(in, base + position, length - position)) {
                    if (length - position < HEADER_SIZE) {
                        throw Buffers.corrupt(NAME, "stream header truncated");
                    }
                    position += HEADER_SIZE;
                    continue;
                }
                if (length - position < 4) {
                    throw Buffers.corrupt(NAME, "chunk length truncated");
                }
                int chunkLength = readInt(in, base + position);
                position += 4;
                if (chunkLength <= 0 || chunkLength > length - position) {
                    throw Buffers.corrupt(NAME, "chunk length " + chunkLength + " out of range (" + (length - position)
                            + " bytes left)");
                }
                uncompressBlock(in, base + position, chunkLength, dst, maxBytes - (dst.writerIndex() - start), maxBytes);
                position += chunkLength;
            }
        } catch (IOException | SnappyError e) {
            throw Buffers.corrupt(NAME, e);
        }
        return dst.writerIndex() - start;
    }

    private static void uncompressBlock(byte[] in, int offset, int length, ByteBuf dst, int room, int maxBytes)
            throws IOException {
        int size = Snappy.uncompressedLength(in, offset, length);
        if (size < 0) {
            throw Buffers.corrupt(NAME, "block claims " + Integer.toUnsignedString(size) + " bytes");
        }
        if (size > room) {
            throw Buffers.tooLarge(NAME, maxBytes);
        }
        dst.ensureWritable(size);
        int at = dst.writerIndex();
        int written;
        if (dst.hasArray()) {
            written = Snappy.uncompress(in, offset, length, dst.array(), dst.arrayOffset() + at);
        } else {
            byte[] out = new byte[size];
            written = Snappy.uncompress(in, offset, length, out, 0);
            dst.setBytes(at, out, 0, written);
        }
        if (written != size) {
            throw Buffers.corrupt(NAME, "block claims " + size + " bytes but holds " + written);
        }
        dst.writerIndex(at + written);
    }

    private static boolean hasMagic(byte[] in, int offset, int length) {
        if (length < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (in[offset + i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private static int readInt(byte[] in, int offset) {
        return (in[offset] & 0xFF) << 24 | (in[offset + 1] & 0xFF) << 16 | (in[offset + 2] & 0xFF) << 8
                | (in[offset + 3] & 0xFF);
    }

    @Override
    public String toString() {
        return "snappy";
    }
}
