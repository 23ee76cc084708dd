package io.krill.wire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * Encoders, decoders and exact sizes of the protocol's variable-length types, shared by all
 * generated messages so that they stay short. {@code compact} selects the flexible-version encoding
 * (unsigned varint of length + 1, 0 meaning null) over the classic one (int16 length for strings,
 * int32 for bytes and arrays, -1 meaning null).
 *
 * <p>Every reader checks a length against {@link ByteBuf#readableBytes()} before allocating or
 * slicing anything sized by it, and throws {@link MalformedMessageException} for bad input. Writers
 * throw {@link UnwritableMessageException}; {@code field} only names the field in that message.
 *
 * <p>Stateless; thread-safe.
 */
public final class ByteBufCodec {
    /** Kafka's all-zero UUID, the default of uuid fields. */
    public static final UUID ZERO_UUID = new UUID(0L, 0L);
    /** The default of non-nullable bytes fields; shared, as it has no content to mutate. */
    public static final byte[] EMPTY_BYTES = new byte[0];

    private static final int MAX_STRING_BYTES = Short.MAX_VALUE;

    private ByteBufCodec() {
    }

    // ---------------------------------------------------------------- varints

    /**
     * Reads an unsigned varint of at most 5 bytes (values above 2^31-1 come back negative and are
     * rejected by the callers that use them as lengths or tags).
     */
    public static int readUnsignedVarint(ByteBuf buf) {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (!buf.isReadable()) {
                throw new MalformedMessageException("truncated varint");
            }
            int b = buf.readByte();
            if (shift == 28 && (b & 0xf0) != 0) {
                throw new MalformedMessageException("varint longer than 32 bits");
            }
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedMessageException("varint longer than 5 bytes");
    }

    public static void writeUnsignedVarint(ByteBuf buf, int value) {
        while ((value & 0xffffff80) != 0) {
            buf.writeByte((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        buf.writeByte(value);
    }

    public static int sizeOfUnsignedVarint(int value) {
        // One byte per started group of 7 significant bits; 0 still takes one byte.
        int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }

    // ---------------------------------------------------------------- fixed-size helpers

    public static UUID readUuid(ByteBuf buf) {
        requireReadable(buf, 16);
        return new UUID(buf.readLong(), buf.readLong());
    }

    public static void writeUuid(ByteBuf buf, UUID value, String field) {
        if (value == null) {
            throw new UnwritableMessageException(field + ": uuid is null");
        }
        buf.writeLong(value.getMostSignificantBits());
        buf.writeLong(value.getLeastSignificantBits());
    }

    public static void writeUint16(ByteBuf buf, int value, String field) {
        if (value < 0 || value > 0xffff) {
            throw new UnwritableMessageException(field + ": " + value + " is not a uint16");
        }
        buf.writeShort(value);
    }

    public static void writeUint32(ByteBuf buf, long value, String field) {
        if (value < 0 || value > 0xffffffffL) {
            throw new UnwritableMessageException(field + ": " + value + " is not a uint32");
        }
        buf.writeInt((int) value);
    }

    // ---------------------------------------------------------------- strings

    /** Reads a string, decoding UTF-8 straight from the buffer; null only if {@code nullable}. */
    public static String readString(ByteBuf buf, boolean compact, boolean nullable) {
        int length;
        if (compact) {
            length = readUnsignedVarint(buf) - 1;
        } else {
            requireReadable(buf, 2);
            length = buf.readShort();
        }
        if (length < 0) {
            requireNull(length, nullable, "string");
            return null;
        }
        if (length > MAX_STRING_BYTES) {
            throw new MalformedMessageException("string of " + length + " bytes exceeds 32767");
        }
        requireReadable(buf, length);
        String s = buf.toString(buf.readerIndex(), length, StandardCharsets.UTF_8);
        buf.skipBytes(length);
        return s;
    }

    public static void writeString(ByteBuf buf, String value, boolean compact, boolean nullable, String field) {
        if (value == null) {
            writeNullLength(buf, compact, nullable, true, field);
            return;
        }
        int scanned = utf8Length(value);
        int length = scanned < 0 ? -scanned - 1 : scanned;
        if (length > MAX_STRING_BYTES) {
            throw new UnwritableMessageException(field + ": string of " + length + " UTF-8 bytes exceeds 32767");
        }
        if (compact) {
            writeUnsignedVarint(buf, length + 1);
        } else {
            buf.writeShort(length);
        }
        if (scanned >= 0) {
            ByteBufUtil.reserveAndWriteUtf8(buf, value, length);
        } else {
            // Lone surrogates: Netty's encoder differs from the JDK's (which Kafka uses) here; rare enough to copy.
            buf.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        }
    }

    public static int stringSize(String value, boolean compact) {
        if (value == null) {
            return compact ? 1 : 2;
        }
        int scanned = utf8Length(value);
        int length = scanned < 0 ? -scanned - 1 : scanned;
        return compact ? sizeOfUnsignedVarint(length + 1) + length : 2 + length;
    }

    /**
     * The length of {@code s} in UTF-8 as the JDK encodes it (a lone surrogate becomes one '?'), without
     * encoding it; {@code -length - 1} if {@code s} has a lone surrogate.
     */
    static int utf8Length(String s) {
        int n = s.length();
        int length = n;
        boolean lone = false;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                length += 1;
            } else if (!Character.isSurrogate(c)) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                length += 2;
                i++;
            } else {
                lone = true;
            }
        }
        return lone ? -length - 1 : length;
    }

    // ---------------------------------------------------------------- bytes and records

    /** Reads a bytes field into a new array. */
    public static byte[] readBytes(ByteBuf buf, boolean compact, boolean nullable) {
        int length = readBytesLength(buf, compact, nullable);
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        buf.readBytes(bytes);
        return bytes;
    }

    /**
     * Reads a {@code zeroCopy} bytes field as a slice of {@code buf}: no copy, same reference count,
     * valid only while {@code buf} is.
     */
    public static ByteBuf readSlice(ByteBuf buf, boolean compact, boolean nullable) {
        int length = readBytesLength(buf, compact, nullable);
        return length < 0 ? null : buf.readSlice(length);
    }

    /**
     * Reads a records field as {@link ByteBufRecords} over a slice of {@code buf}: no copy, same
     * reference count, valid only while {@code buf} is.
     */
    public static Records readRecords(ByteBuf buf, boolean compact, boolean nullable) {
        ByteBuf slice = readSlice(buf, compact, nullable);
        return slice == null ? null : ByteBufRecords.of(slice);
    }

    private static int readBytesLength(ByteBuf buf, boolean compact, boolean nullable) {
        int length;
        if (compact) {
            length = readUnsignedVarint(buf) - 1;
        } else {
            requireReadable(buf, 4);
            length = buf.readInt();
        }
        if (length < 0) {
            requireNull(length, nullable, "bytes");
            return -1;
        }
        requireReadable(buf, length);
        return length;
    }

    public static void writeBytes(ByteBuf buf, byte[] value, boolean compact, boolean nullable, String field) {
        if (value == null) {
            writeNullLength(buf, compact, nullable, false, field);
            return;
        }
        writeLength(buf, value.length, compact);
        buf.writeBytes(value);
    }

    /** Writes the readable bytes of {@code value} without moving its reader index. */
    public static void writeBytes(ByteBuf buf, ByteBuf value, boolean compact, boolean nullable, String field) {
        if (value == null) {
            writeNullLength(buf, compact, nullable, false, field);
            return;
        }
        int length = value.readableBytes();
        writeLength(buf, length, compact);
        buf.writeBytes(value, value.readerIndex(), length);
    }

    /**
     * Writes the length prefix of {@code value} from {@link Records#sizeInBytes()}, then lets it write
     * itself: in-memory records write their bytes, file-backed ones may write nothing (see
     * {@link Records}).
     */
    public static void writeRecords(ByteBuf buf, Records value, boolean compact, boolean nullable, String field) {
        if (value == null) {
            writeNullLength(buf, compact, nullable, false, field);
            return;
        }
        int length = value.sizeInBytes();
        if (length < 0) {
            throw new UnwritableMessageException(field + ": negative records size " + length);
        }
        writeLength(buf, length, compact);
        value.writeTo(buf);
    }

    public static int bytesSize(byte[] value, boolean compact) {
        return value == null ? nullLengthSize(compact) : lengthSize(value.length, compact) + value.length;
    }

    public static int bytesSize(ByteBuf value, boolean compact) {
        if (value == null) {
            return nullLengthSize(compact);
        }
        int length = value.readableBytes();
        return lengthSize(length, compact) + length;
    }

    /** The encoded size of a records field, counting {@link Records#sizeInBytes()} in full. */
    public static int recordsSize(Records value, boolean compact) {
        if (value == null) {
            return nullLengthSize(compact);
        }
        int length = value.sizeInBytes();
        return lengthSize(length, compact) + length;
    }

    // ---------------------------------------------------------------- arrays

    /**
     * Reads an array's element count, or -1 for a null array (only if {@code nullable}). Rejects a
     * count whose elements, at {@code minElementSize} bytes each (at least 1), cannot fit in the
     * remaining bytes, so the caller may allocate a list of that capacity.
     */
    public static int readArrayLength(ByteBuf buf, boolean compact, boolean nullable, int minElementSize) {
        int count;
        if (compact) {
            count = readUnsignedVarint(buf) - 1;
        } else {
            requireReadable(buf, 4);
            count = buf.readInt();
        }
        if (count < 0) {
            requireNull(count, nullable, "array");
            return -1;
        }
        if ((long) count * Math.max(1, minElementSize) > buf.readableBytes()) {
            throw new MalformedMessageException("array of " + count + " elements cannot fit in the "
                + buf.readableBytes() + " remaining bytes");
        }
        return count;
    }

    public static void writeArrayLength(ByteBuf buf, List<?> value, boolean compact, boolean nullable, String field) {
        if (value == null) {
            writeNullLength(buf, compact, nullable, false, field);
        } else {
            writeLength(buf, value.size(), compact);
        }
    }

    public static int arrayLengthSize(List<?> value, boolean compact) {
        return value == null ? nullLengthSize(compact) : lengthSize(value.size(), compact);
    }

    // ---------------------------------------------------------------- structs

    /** Reads {@code message} at {@code version} and returns it; lets generated code read in one expression. */
    public static <M extends Message> M readStruct(M message, ByteBuf buf, short version) {
        message.read(buf, version);
        return message;
    }

    /**
     * Writes the presence marker of a struct field (int8 -1 null, 1 present) when it is
     * {@code nullable}; returns whether the struct itself must be written.
     */
    public static boolean writeStructMarker(ByteBuf buf, Object value, boolean nullable, String field) {
        if (value == null) {
            if (!nullable) {
                throw new UnwritableMessageException(field + ": non-nullable struct is null");
            }
            buf.writeByte(-1);
            return false;
        }
        if (nullable) {
            buf.writeByte(1);
        }
        return true;
    }

    /** As {@link #writeStructMarker}, for a tagged struct field, whose marker is a varint 0 or 1. */
    public static boolean writeTaggedStructMarker(ByteBuf buf, Object value, boolean nullable, String field) {
        if (value == null) {
            if (!nullable) {
                throw new UnwritableMessageException(field + ": non-nullable struct is null");
            }
            buf.writeByte(0);
            return false;
        }
        if (nullable) {
            buf.writeByte(1);
        }
        return true;
    }

    // ---------------------------------------------------------------- shared

    /** Throws unless {@code n} bytes are readable; {@code n} may be any int. */
    public static void requireReadable(ByteBuf buf, int n) {
        if (n > buf.readableBytes()) {
            throw new MalformedMessageException("need " + n + " bytes, " + buf.readableBytes() + " remaining");
        }
    }

    private static void requireNull(int length, boolean nullable, String what) {
        if (length != -1) {
            throw new MalformedMessageException("negative " + what + " length " + length);
        }
        if (!nullable) {
            throw new MalformedMessageException("null " + what + " in a non-nullable field");
        }
    }

    private static void writeNullLength(ByteBuf buf, boolean compact, boolean nullable, boolean string,
                                        String field) {
        if (!nullable) {
            throw new UnwritableMessageException(field + ": non-nullable field is null");
        }
        if (compact) {
            buf.writeByte(0);
        } else if (string) {
            buf.writeShort(-1);
        } else {
            buf.writeInt(-1);
        }
    }

    private static void writeLength(ByteBuf buf, int length, boolean compact) {
        if (compact) {
            writeUnsignedVarint(buf, length + 1);
        } else {
            buf.writeInt(length);
        }
    }

    private static int lengthSize(int length, boolean compact) {
        return compact ? sizeOfUnsignedVarint(length + 1) : 4;
    }

    private static int nullLengthSize(boolean compact) {
        return compact ? 1 : 4;
    }
}
