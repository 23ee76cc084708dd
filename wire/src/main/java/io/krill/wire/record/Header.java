package io.krill.wire.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One record header to write with {@link RecordBatchBuilder}: a non-null UTF-8 key and a value that may
 * be null. Reading goes through {@link Record#forEachHeader} instead, which allocates nothing.
 *
 * <p>Immutable once built, provided the caller does not modify the value array it passed in; thread-safe.
 */
public final class Header {
    private final String key;
    private final byte[] keyBytes;
    private final byte[] value;

    public Header(String key, byte[] value) {
        this.key = Objects.requireNonNull(key, "header key");
        this.keyBytes = key.getBytes(StandardCharsets.UTF_8);
        this.value = value;
    }

    public String key() {
        return key;
    }

    /** The value, or {@code null}. Not copied: do not modify. */
    public byte[] value() {
        return value;
    }

    byte[] keyBytes() {
        return keyBytes;
    }

    /** Encoded size inside a record: key length varint, key, value length varint, value. */
    int sizeInBytes() {
        int valueLength = value == null ? -1 : value.length;
        return Varint.sizeOfVarint(keyBytes.length) + keyBytes.length + Varint.sizeOfVarint(valueLength)
                + Math.max(valueLength, 0);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Header
                && key.equals(((Header) other).key)
                && Arrays.equals(value, ((Header) other).value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Header(" + key + ", " + (value == null ? "null" : value.length + " bytes") + ")";
    }
}
