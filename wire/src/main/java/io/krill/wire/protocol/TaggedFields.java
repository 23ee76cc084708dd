package io.krill.wire.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * The tagged-field section of flexible versions: validation on read, and the unknown (raw) fields a
 * message carries through. Tags must be strictly increasing on the wire (KIP-482); Kafka writes them
 * so, and keeping that invariant makes re-encoding byte-exact. Unknown fields are written merged
 * with the known ones in tag order.
 *
 * <p>Stateless; thread-safe.
 */
public final class TaggedFields {
    private TaggedFields() {
    }

    /** Reads the number of tagged fields; each takes at least two bytes. */
    public static int readCount(ByteBuf buf) {
        int count = ByteBufCodec.readUnsignedVarint(buf);
        if (count < 0 || (long) count * 2 > buf.readableBytes()) {
            throw new MalformedMessageException("bad tagged field count " + count);
        }
        return count;
    }

    /** Reads a tag, which must be greater than the previous one ({@code -1} for the first). */
    public static int readTag(ByteBuf buf, int previousTag) {
        int tag = ByteBufCodec.readUnsignedVarint(buf);
        if (tag <= previousTag) {
            throw new MalformedMessageException("tag " + tag + " after tag " + previousTag);
        }
        return tag;
    }

    /** Reads a tagged field's size and returns the reader index at which its value must end. */
    public static int readEnd(ByteBuf buf) {
        int size = ByteBufCodec.readUnsignedVarint(buf);
        if (size < 0 || size > buf.readableBytes()) {
            throw new MalformedMessageException("bad tagged field size " + size);
        }
        return buf.readerIndex() + size;
    }

    /** Checks that a known tagged field's value used exactly its declared size. */
    public static void checkEnd(ByteBuf buf, int end) {
        if (buf.readerIndex() != end) {
            throw new MalformedMessageException("tagged field value does not match its size");
        }
    }

    public static MalformedMessageException invalidTag(int tag, short version) {
        return new MalformedMessageException("tag " + tag + " is not valid at version " + version);
    }

    /** Copies an unknown field's value (up to {@code end}) into {@code fields}, created if null. */
    public static List<RawTaggedField> readUnknown(List<RawTaggedField> fields, int tag, ByteBuf buf, int end) {
        byte[] data = new byte[end - buf.readerIndex()];
        buf.readBytes(data);
        List<RawTaggedField> out = fields == null ? new ArrayList<>(2) : fields;
        out.add(new RawTaggedField(tag, data));
        return out;
    }

    public static int count(List<RawTaggedField> fields) {
        return fields == null ? 0 : fields.size();
    }

    /** Encoded size of the unknown fields, prefixes included. */
    public static int size(List<RawTaggedField> fields) {
        int size = 0;
        if (fields != null) {
            for (RawTaggedField f : fields) {
                size += f.encodedSize();
            }
        }
        return size;
    }

    /**
     * Writes the unknown fields from {@code index} on while their tag is below {@code tagLimit};
     * returns the index of the first one not written.
     */
    public static int writeUnknown(ByteBuf buf, List<RawTaggedField> fields, int index, int tagLimit) {
        if (fields == null) {
            return index;
        }
        int i = index;
        while (i < fields.size() && fields.get(i).tag() < tagLimit) {
            RawTaggedField f = fields.get(i++);
            ByteBufCodec.writeUnsignedVarint(buf, f.tag());
            ByteBufCodec.writeUnsignedVarint(buf, f.data().length);
            buf.writeBytes(f.data());
        }
        return i;
    }

    /** Fails a write at a non-flexible version if there are unknown tagged fields to write. */
    public static void requireNone(List<RawTaggedField> fields, String message, short version) {
        if (count(fields) > 0) {
            throw new UnwritableMessageException(message + ": tagged fields are set but version " + version
                + " is not flexible");
        }
    }

    /** Equality of unknown-field lists, a null list being equal to an empty one. */
    public static boolean equal(List<RawTaggedField> a, List<RawTaggedField> b) {
        if (count(a) == 0 || count(b) == 0) {
            return count(a) == count(b);
        }
        return a.equals(b);
    }
}
