package io.krill.wire.protocol;

import java.util.Arrays;

/**
 * A tagged field unknown to the schema, kept as raw bytes so that a message re-encodes exactly as
 * it was read.
 *
 * <p>Immutable as long as callers do not modify the array passed in or returned by {@link #data()}.
 */
public final class RawTaggedField {
    private final int tag;
    private final byte[] data;

    public RawTaggedField(int tag, byte[] data) {
        if (tag < 0) {
            throw new IllegalArgumentException("negative tag " + tag);
        }
        this.tag = tag;
        this.data = data;
    }

    public int tag() {
        return tag;
    }

    /** The field's value bytes, without the tag and size prefixes. */
    public byte[] data() {
        return data;
    }

    /** Encoded size including the tag and size varints. */
    int encodedSize() {
        return ByteBufCodec.sizeOfUnsignedVarint(tag) + ByteBufCodec.sizeOfUnsignedVarint(data.length)
            + data.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RawTaggedField other && tag == other.tag && Arrays.equals(data, other.data);
    }

    @Override
    public int hashCode() {
        return 31 * tag + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "RawTaggedField(tag=" + tag + ", " + data.length + " bytes)";
    }
}
