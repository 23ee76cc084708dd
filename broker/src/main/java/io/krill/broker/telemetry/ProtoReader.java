package io.krill.broker.telemetry;

import java.nio.charset.StandardCharsets;

/**
 * A reader of protocol buffers' wire format over one byte array, enough for the OTLP messages Krill reads:
 * varints, fixed 32/64-bit values and length-delimited fields, each checked against the bytes that remain
 * before anything is read or allocated ({@link MalformedProtoException} otherwise). Unknown fields are
 * skipped by their wire type; groups (deprecated, unused by OTLP) are refused. A nested message is read by a
 * reader over its slice of the same array ({@link #message}). Not thread-safe; one per decode.
 */
final class ProtoReader {
    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LENGTH_DELIMITED = 2;
    static final int FIXED32 = 5;

    private final byte[] bytes;
    private int position;
    private final int limit;

    ProtoReader(byte[] bytes, int offset, int length) {
        if (offset < 0 || length < 0 || offset > bytes.length - length) {
            throw new MalformedProtoException("slice out of bounds");
        }
        this.bytes = bytes;
        this.position = offset;
        this.limit = offset + length;
    }

    boolean hasMore() {
        return position < limit;
    }

    /** The next field's tag (field number << 3 | wire type). */
    int tag() {
        long tag = varint();
        if (tag <= 0 || tag > Integer.MAX_VALUE || (tag >>> 3) == 0) {
            throw new MalformedProtoException("bad tag " + tag);
        }
        return (int) tag;
    }

    static int field(int tag) {
        return tag >>> 3;
    }

    static int wireType(int tag) {
        return tag & 7;
    }

    long varint() {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= limit) {
                throw new MalformedProtoException("truncated varint");
            }
            byte b = bytes[position++];
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new MalformedProtoException("varint longer than 10 bytes");
    }

    long fixed64() {
        need(8);
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (bytes[position + i] & 0xFFL);
        }
        position += 8;
        return value;
    }

    double doubleValue() {
        return Double.longBitsToDouble(fixed64());
    }

    /** A length-delimited field's contents as a reader (no copy). */
    ProtoReader message() {
        int length = length();
        ProtoReader nested = new ProtoReader(bytes, position, length);
        position += length;
        return nested;
    }

    String string() {
        int length = length();
        String s = new String(bytes, position, length, StandardCharsets.UTF_8);
        position += length;
        return s;
    }

    /** Skips the value of a field of {@code wireType}. */
    void skip(int wireType) {
        switch (wireType) {
            case VARINT -> varint();
            case FIXED64 -> {
                need(8);
                position += 8;
            }
            case LENGTH_DELIMITED -> {
                int length = length(); // first: it moves the position past the length's varint
                position += length;
            }
            case FIXED32 -> {
                need(4);
                position += 4;
            }
            default -> throw new MalformedProtoException("unsupported wire type " + wireType);
        }
    }

    /** Throws unless a field read as {@code wireType} was written with it. */
    static void expect(int tag, int wireType) {
        if (wireType(tag) != wireType) {
            throw new MalformedProtoException("field " + field(tag) + " has wire type " + wireType(tag)
                    + ", expected " + wireType);
        }
    }

    private int length() {
        long length = varint();
        if (length < 0 || length > limit - position) {
            throw new MalformedProtoException("length " + length + " past the end (" + (limit - position) + " left)");
        }
        return (int) length;
    }

    private void need(int n) {
        if (limit - position < n) {
            throw new MalformedProtoException("truncated: " + n + " bytes needed, " + (limit - position) + " left");
        }
    }

    /** Bytes that are not the protocol buffer they claim to be. */
    static final class MalformedProtoException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedProtoException(String message) {
            super(message, null, false, false);
        }
    }
}
