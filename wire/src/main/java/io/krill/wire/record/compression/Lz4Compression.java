package io.krill.wire.record.compression;

import io.krill.wire.record.CompressionType;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * LZ4 in the standard LZ4 frame format, as Kafka clients write it for magic 2 batches:
 *
 * <pre>
 * frame:  magic 04 22 4D 18 | FLG | BD | [content size LE64 if FLG.3] | HC | block* | 00 00 00 00
 *         | [content checksum LE32 if FLG.2]
 * FLG:    bits 7-6 version = 01, bit 5 block independence (required), bit 4 block checksum,
 *         bit 3 content size, bit 2 content checksum, bit 1 reserved = 0, bit 0 dictionary id (unsupported)
 * BD:     bits 6-4 block max size (4: 64 KiB, 5: 256 KiB, 6: 1 MiB, 7: 4 MiB), other bits 0
 * HC:     second byte of XXH32(seed 0) over FLG up to the byte before HC
 * block:  size LE32 (high bit set = stored uncompressed) | data | [XXH32 of data, LE32, if FLG.4]
 * </pre>
 * The HC quirk: Kafka's pre-0.10 (magic 0) writer hashed the magic too; magic 2 batches carry the
 * standard checksum over the descriptor only, which is what is written and verified here. Written
 * frames use 64 KiB independent blocks without checksums, as Kafka's producer does. Frames may follow
 * one another; bytes after the last frame are corrupt. Linked blocks are refused, as Kafka does.
 *
 * <p>Immutable, thread-safe (lz4-java's compressors, decompressors and hashes are).
 */
public final class Lz4Compression implements Compression {
    public static final int MIN_LEVEL = 1;
    public static final int MAX_LEVEL = 17;
    /** Kafka's default; at the default level the fast compressor is used, above or below it LZ4 HC. */
    public static final int DEFAULT_LEVEL = 9;
    public static final Lz4Compression DEFAULT = new Lz4Compression(DEFAULT_LEVEL);

    private static final String NAME = "lz4";
    private static final int MAGIC = 0x184D2204;
    private static final int FLG_VERSION_MASK = 0xC0;
    private static final int FLG_VERSION_1 = 0x40;
    private static final int FLG_BLOCK_INDEPENDENCE = 0x20;
    private static final int FLG_BLOCK_CHECKSUM = 0x10;
    private static final int FLG_CONTENT_SIZE = 0x08;
    private static final int FLG_CONTENT_CHECKSUM = 0x04;
    private static final int FLG_RESERVED = 0x02;
    private static final int FLG_DICTIONARY_ID = 0x01;
    private static final int BD_RESERVED = 0x8F;
    private static final int BLOCK_SIZE_64K = 4;
    private static final int BLOCK_UNCOMPRESSED = 0x80000000;
    private static final int WRITE_BLOCK_SIZE = 64 * 1024;

    private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();
    private static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();
    private static final byte WRITE_FLG = (byte) (FLG_VERSION_1 | FLG_BLOCK_INDEPENDENCE);
    private static final byte WRITE_BD = (byte) (BLOCK_SIZE_64K << 4);
    private static final byte WRITE_HC = headerChecksum(new byte[] {WRITE_FLG, WRITE_BD});

    private final int level;
    private final LZ4Compressor compressor;

    public Lz4Compression(int level) {
        if (level < MIN_LEVEL || level > MAX_LEVEL) {
            throw new IllegalArgumentException("lz4 level " + level + " not in [" + MIN_LEVEL + ", " + MAX_LEVEL + "]");
        }
        this.level = level;
        LZ4Factory factory = LZ4Factory.fastestInstance();
        this.compressor = level == DEFAULT_LEVEL ? factory.fastCompressor() : factory.highCompressor(level);
    }

    public int level() {
        return level;
    }

    @Override
    public CompressionType type() {
        return CompressionType.LZ4;
    }

    @Override
    public void compress(ByteBuf src, ByteBuf dst) {
        dst.writeIntLE(MAGIC);
        dst.writeByte(WRITE_FLG);
        dst.writeByte(WRITE_BD);
        dst.writeByte(WRITE_HC);
        ByteBuffer in = src.nioBuffer().slice();
        int length = in.remaining();
        for (int done = 0; done < length; done += WRITE_BLOCK_SIZE) {
            int blockLength = Math.min(WRITE_BLOCK_SIZE, length - done);
            int maxLength = compressor.maxCompressedLength(blockLength);
            dst.ensureWritable(4 + maxLength);
            int at = dst.writerIndex();
            ByteBuffer out = dst.nioBuffer(at + 4, maxLength).slice();
            int compressed = compressor.compress(in, done, blockLength, out, 0, maxLength);
            if (compressed < blockLength) {
                dst.setIntLE(at, compressed);
                dst.writerIndex(at + 4 + compressed);
            } else {
                dst.setIntLE(at, blockLength | BLOCK_UNCOMPRESSED);
                dst.setBytes(at + 4, src, src.readerIndex() + done, blockLength);
                dst.writerIndex(at + 4 + blockLength);
            }
        }
        dst.writeIntLE(0);
    }

    @Override
    public int decompress(ByteBuf src, ByteBuf dst, int maxBytes) {
        int start = dst.writerIndex();
        ByteBuffer in = src.nioBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
        int length = in.remaining();
        int position = 0;
        try {
            do {
                position = decompressFrame(in, position, length, dst, start, maxBytes);
            } while (position < length);
        } catch (LZ4Exception e) {
            throw Buffers.corrupt(NAME, e);
        }
        return dst.writerIndex() - start;
    }

    /** Decompresses the frame at {@code position} of {@code in}; returns the index after it. */
    private static int decompressFrame(ByteBuffer in, int position, int length, ByteBuf dst, int start, int maxBytes) {
        if (length - position < 7) {
            throw Buffers.corrupt(NAME, "frame header truncated");
        }
        if (in.getInt(position) != MAGIC) {
            throw Buffers.corrupt(NAME, "bad frame magic");
        }
        int descriptor = position + 4;
        int flg = in.get(descriptor) & 0xFF;
        int bd = in.get(descriptor + 1) & 0xFF;
        if ((flg & FLG_VERSION_MASK) != FLG_VERSION_1) {
            throw Buffers.corrupt(NAME, "unsupported frame version " + (flg >>> 6));
        }
        if ((flg & FLG_RESERVED) != 0 || (bd & BD_RESERVED) != 0) {
            throw Buffers.corrupt(NAME, "reserved frame descriptor bits set");
        }
        if ((flg & FLG_DICTIONARY_ID) != 0) {
            throw Buffers.corrupt(NAME, "dictionary frames are unsupported");
        }
        if ((flg & FLG_BLOCK_INDEPENDENCE) == 0) {
            throw Buffers.corrupt(NAME, "linked blocks are unsupported");
        }
        int blockSizeCode = (bd >>> 4) & 0x07;
        if (blockSizeCode < BLOCK_SIZE_64K) {
            throw Buffers.corrupt(NAME, "undefined block size code " + blockSizeCode);
        }
        int maxBlockSize = 1 << (2 * blockSizeCode + 8);
        boolean blockChecksum = (flg & FLG_BLOCK_CHECKSUM) != 0;
        boolean contentChecksum = (flg & FLG_CONTENT_CHECKSUM) != 0;
        int descriptorLength = 2;
        long contentSize = -1;
        if ((flg & FLG_CONTENT_SIZE) != 0) {
            if (length - descriptor < 2 + 8 + 1) {
                throw Buffers.corrupt(NAME, "frame header truncated");
            }
            contentSize = in.getLong(descriptor + 2);
            if (contentSize < 0 || contentSize > maxBytes - (dst.writerIndex() - start)) {
                throw Buffers.tooLarge(NAME, maxBytes);
            }
            descriptorLength += 8;
        }
        byte hc = in.get(descriptor + descriptorLength);
        if (hc != (byte) (XXHASH.hash(in, descriptor, descriptorLength, 0) >> 8)) {
            throw Buffers.corrupt(NAME, "frame descriptor checksum mismatch");
        }
        position = descriptor + descriptorLength + 1;
        int frameStart = dst.writerIndex();
        while (true) {
            if (length - position < 4) {
                throw Buffers.corrupt(NAME, "block size truncated");
            }
            int blockHeader = in.getInt(position);
            position += 4;
            if (blockHeader == 0) {
                break;
            }
            boolean stored = (blockHeader & BLOCK_UNCOMPRESSED) != 0;
            int blockLength = blockHeader & ~BLOCK_UNCOMPRESSED;
            if (blockLength > maxBlockSize) {
                throw Buffers.corrupt(NAME, "block of " + blockLength + " bytes exceeds the frame's maximum " + maxBlockSize);
            }
            if (length - position < blockLength + (blockChecksum ? 4 : 0)) {
                throw Buffers.corrupt(NAME, "block truncated");
            }
            if (blockChecksum && XXHASH.hash(in, position, blockLength, 0) != in.getInt(position + blockLength)) {
                throw Buffers.corrupt(NAME, "block checksum mismatch");
            }
            int room = maxBytes - (dst.writerIndex() - start);
            if (stored) {
                if (blockLength > room) {
                    throw Buffers.tooLarge(NAME, maxBytes);
                }
                dst.writeBytes(in.duplicate().position(position).limit(position + blockLength));
            } else {
                int window = Math.min(maxBlockSize, room);
                dst.ensureWritable(window);
                int at = dst.writerIndex();
                int written;
                try {
                    written = DECOMPRESSOR.decompress(in, position, blockLength, dst.nioBuffer(at, window).slice(), 0,
                            window);
                } catch (LZ4Exception e) {
                    if (window < maxBlockSize) {
                        throw Buffers.corrupt(NAME, "block is malformed or decompresses past the limit of "
                                + maxBytes + " bytes");
                    }
                    throw e;
                }
                dst.writerIndex(at + written);
            }
            position += blockLength + (blockChecksum ? 4 : 0);
        }
        int frameSize = dst.writerIndex() - frameStart;
        if (contentSize >= 0 && contentSize != frameSize) {
            throw Buffers.corrupt(NAME, "frame declares " + contentSize + " bytes but holds " + frameSize);
        }
        if (contentChecksum) {
            if (length - position < 4) {
                throw Buffers.corrupt(NAME, "content checksum truncated");
            }
            if (XXHASH.hash(dst.nioBuffer(frameStart, frameSize).slice(), 0, frameSize, 0) != in.getInt(position)) {
                throw Buffers.corrupt(NAME, "content checksum mismatch");
            }
            position += 4;
        }
        return position;
    }

    private static byte headerChecksum(byte[] descriptor) {
        return (byte) (XXHASH.hash(descriptor, 0, descriptor.length, 0) >> 8);
    }

    @Override
    public String toString() {
        return "lz4(level=" + level + ")";
    }
}
