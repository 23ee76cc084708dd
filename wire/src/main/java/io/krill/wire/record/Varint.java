package io.krill.wire.record;

import io.netty.buffer.ByteBuf;

/**
 * Writing and sizing of the zigzag varints (protobuf {@code sint32}/{@code sint64}) that record v2 uses
 * for every length and delta. Reading lives in {@link Record}, which needs a bounded cursor.
 *
 * <p>Stateless, thread-safe.
 */
final class Varint {
    private Varint() {
    }

    static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xFFFFFF80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    static void writeVarint(ByteBuf out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xFFFFFF80) != 0) {
            out.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }

    static void writeVarlong(ByteBuf out, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            out.writeByte(((int) v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int) v);
    }
}
