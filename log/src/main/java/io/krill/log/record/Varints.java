package io.krill.log.record;

import io.krill.wire.record.CorruptRecordException;
import io.netty.buffer.ByteBuf;

/**
 * Zig-zag varint decoding at absolute indexes of a {@link ByteBuf}, as in the v2 record format. A decoder
 * instance keeps the index after the last read ({@link #index}); it is a cursor, not thread-safe.
 */
public final class Varints {
    private ByteBuf buf;
    private int index;
    private int limit;

    public Varints reset(ByteBuf buf, int index, int limit) {
        this.buf = buf;
        this.index = index;
        this.limit = limit;
        return this;
    }

    public int index() {
        return index;
    }

    public void skip(int n) {
        if (n < 0 || index + n > limit) {
            throw new CorruptRecordException("record field overruns its batch");
        }
        index += n;
    }

    public byte readByte() {
        if (index >= limit) {
            throw new CorruptRecordException("record overruns its batch");
        }
        return buf.getByte(index++);
    }

    public int readVarint() {
        int raw = 0;
        int shift = 0;
        while (true) {
            byte b = readByte();
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 28) {
                throw new CorruptRecordException("varint longer than 5 bytes");
            }
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    public long readVarlong() {
        long raw = 0;
        int shift = 0;
        while (true) {
            byte b = readByte();
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 63) {
                throw new CorruptRecordException("varlong longer than 10 bytes");
            }
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Bytes the zig-zag varint encoding of {@code value} takes. */
    public static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xffffff80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }
}
