package io.krill.wire.record.compression;

import io.krill.wire.record.CompressionType;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * gzip (RFC 1952) over the JDK's raw deflate, framed by hand so that input and output are ByteBufs
 * (heap or direct) with no stream copies, and decompression stops at a byte limit.
 *
 * <pre>
 * member:  1f 8b | CM=8 | FLG | MTIME (4) | XFL | OS | [FEXTRA: len LE16 + bytes] [FNAME: NUL-terminated]
 *          [FCOMMENT: NUL-terminated] [FHCRC: 2] | deflate data | CRC32 LE32 | ISIZE LE32 (size mod 2^32)
 * </pre>
 * A payload is one or more members back to back (what {@code GZIPInputStream} reads). Written members
 * carry no optional fields; trailing bytes that are not another member are corrupt.
 *
 * <p>Immutable, thread-safe: each call uses its own {@link Deflater}/{@link Inflater}, ended before
 * returning.
 */
public final class GzipCompression implements Compression {
    public static final int MIN_LEVEL = Deflater.BEST_SPEED;
    public static final int MAX_LEVEL = Deflater.BEST_COMPRESSION;
    /** zlib's default (6), as Kafka's producer uses. */
    public static final int DEFAULT_LEVEL = Deflater.DEFAULT_COMPRESSION;
    public static final GzipCompression DEFAULT = new GzipCompression(DEFAULT_LEVEL);

    private static final String NAME = "gzip";
    private static final int HEADER_SIZE = 10;
    private static final int TRAILER_SIZE = 8;
    private static final int FHCRC = 0x02;
    private static final int FEXTRA = 0x04;
    private static final int FNAME = 0x08;
    private static final int FCOMMENT = 0x10;
    private static final int FRESERVED = 0xE0;
    /** ID1 ID2 CM FLG MTIME(4) XFL OS(255 = unknown). */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final int level;

    public GzipCompression(int level) {
        if (level != DEFAULT_LEVEL && (level < MIN_LEVEL || level > MAX_LEVEL)) {
            throw new IllegalArgumentException("gzip level " + level + " not in [" + MIN_LEVEL + ", " + MAX_LEVEL + "]");
        }
        this.level = level;
    }

    public int level() {
        return level;
    }

    @Override
    public CompressionType type() {
        return CompressionType.GZIP;
    }

    @Override
    public void compress(ByteBuf src, ByteBuf dst) {
        int length = src.readableBytes();
        CRC32 crc = new CRC32();
        crc.update(src.nioBuffer());
        dst.writeBytes(HEADER);
        Deflater deflater = new Deflater(level, true);
        try {
            deflater.setInput(src.nioBuffer());
            deflater.finish();
            while (!deflater.finished()) {
                dst.ensureWritable(Math.max(length / 2, 256));
                ByteBuffer out = dst.nioBuffer(dst.writerIndex(), dst.writableBytes());
                int written = deflater.deflate(out);
                dst.writerIndex(dst.writerIndex() + written);
            }
        } finally {
            deflater.end();
        }
        dst.writeIntLE((int) crc.getValue());
        dst.writeIntLE(length);
    }

    @Override
    public int decompress(ByteBuf src, ByteBuf dst, int maxBytes) {
        int start = dst.writerIndex();
        int position = src.readerIndex();
        int end = src.writerIndex();
        Inflater inflater = new Inflater(true);
        try {
            do {
                position = skipHeader(src, position, end);
                int memberStart = dst.writerIndex();
                inflater.reset();
                inflater.setInput(src.nioBuffer(position, end - position));
                while (!inflater.finished()) {
                    int room = maxBytes - (dst.writerIndex() - start);
                    // One byte past the limit tells "exactly at the limit" from "over it".
                    int window = Math.min(Buffers.WINDOW, room + 1);
                    dst.ensureWritable(window);
                    int written = inflater.inflate(dst.nioBuffer(dst.writerIndex(), window));
                    dst.writerIndex(dst.writerIndex() + written);
                    if (written > room) {
                        throw Buffers.tooLarge(NAME, maxBytes);
                    }
                    if (written == 0 && !inflater.finished()) {
                        if (inflater.needsDictionary()) {
                            throw Buffers.corrupt(NAME, "deflate stream needs a preset dictionary");
                        }
                        throw Buffers.corrupt(NAME, inflater.needsInput() ? "deflate stream truncated"
                                : "deflate stream makes no progress");
                    }
                }
                position = end - inflater.getRemaining();
                if (end - position < TRAILER_SIZE) {
                    throw Buffers.corrupt(NAME, "trailer truncated");
                }
                int memberSize = dst.writerIndex() - memberStart;
                CRC32 crc = new CRC32();
                crc.update(dst.nioBuffer(memberStart, memberSize));
                if (src.getIntLE(position) != (int) crc.getValue()) {
                    throw Buffers.corrupt(NAME, "CRC32 mismatch");
                }
                if (src.getIntLE(position + 4) != memberSize) {
                    throw Buffers.corrupt(NAME, "ISIZE mismatch");
                }
                position += TRAILER_SIZE;
            } while (position < end);
        } catch (DataFormatException e) {
            throw Buffers.corrupt(NAME, e);
        } finally {
            inflater.end();
        }
        return dst.writerIndex() - start;
    }

    /** Checks a member header at {@code position} and returns where its deflate data starts. */
    private static int skipHeader(ByteBuf src, int position, int end) {
        if (end - position < HEADER_SIZE) {
            throw Buffers.corrupt(NAME, "header truncated");
        }
        if (src.getByte(position) != 0x1f || src.getByte(position + 1) != (byte) 0x8b) {
            throw Buffers.corrupt(NAME, "bad magic");
        }
        if (src.getByte(position + 2) != 8) {
            throw Buffers.corrupt(NAME, "compression method " + src.getByte(position + 2) + " is not deflate");
        }
        int flags = src.getUnsignedByte(position + 3);
        if ((flags & FRESERVED) != 0) {
            throw Buffers.corrupt(NAME, "reserved header flags set");
        }
        position += HEADER_SIZE;
        if ((flags & FEXTRA) != 0) {
            if (end - position < 2) {
                throw Buffers.corrupt(NAME, "extra field truncated");
            }
            int extraLength = src.getUnsignedShortLE(position);
            position += 2;
            if (end - position < extraLength) {
                throw Buffers.corrupt(NAME, "extra field truncated");
            }
            position += extraLength;
        }
        if ((flags & FNAME) != 0) {
            position = skipZeroTerminated(src, position, end);
        }
        if ((flags & FCOMMENT) != 0) {
            position = skipZeroTerminated(src, position, end);
        }
        if ((flags & FHCRC) != 0) {
            if (end - position < 2) {
                throw Buffers.corrupt(NAME, "header CRC truncated");
            }
            position += 2;
        }
        return position;
    }

    private static int skipZeroTerminated(ByteBuf src, int position, int end) {
        int zero = src.indexOf(position, end, (byte) 0);
        if (zero < 0) {
            throw Buffers.corrupt(NAME, "unterminated header string");
        }
        return zero + 1;
    }

    @Override
    public String toString() {
        return "gzip(level=" + level + ")";
    }
}
