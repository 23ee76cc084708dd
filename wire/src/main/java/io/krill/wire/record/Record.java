package io.krill.wire.record;

import io.netty.buffer.ByteBuf;

/**
 * Flyweight over one record of a v2 batch, re-pointed at each record as a batch is iterated so that
 * reading a batch allocates nothing per record.
 *
 * <pre>
 * length            varint    bytes after this field
 * attributes        int8      unused, 0
 * timestampDelta    varlong   from the batch's baseTimestamp
 * offsetDelta       varint    from the batch's baseOffset
 * keyLength         varint    -1 for a null key
 * key               keyLength bytes
 * valueLength       varint    -1 for a null value
 * value             valueLength bytes
 * headerCount       varint
 * headers           headerCount times:
 *   headerKeyLength   varint  never negative
 *   headerKey         UTF-8
 *   headerValueLength varint  -1 for a null value
 *   headerValue       bytes
 * </pre>
 * Varints are zigzag-encoded ({@code sint32}/{@code sint64}); varints longer than 5 (varlongs: 10) bytes
 * are corrupt.
 *
 * <p>The whole record, headers included, is checked when the flyweight is pointed at it, so the
 * accessors never fail. Lengths below -1, negative header counts or header key lengths, fields past the
 * record's end, and a record whose fields do not end exactly where its length says are corrupt.
 *
 * <p>A record is valid only inside the {@link RecordVisitor#visit} call that received it: the flyweight
 * is re-pointed at the next record, and for a compressed batch {@link #buffer()} is a scratch buffer that
 * the next batch overwrites. Slices returned by {@link #key()}, {@link #value()}, {@link #headerKey} and
 * {@link #headerValue} share that memory and are not retained: copy what must outlive the visit.
 *
 * <p>Not thread-safe: owned by the thread iterating the batch.
 */
public final class Record {
    /** Smallest body: attributes, and one byte each for timestampDelta, offsetDelta, key/value lengths and header count. */
    static final int MIN_BODY_SIZE = 6;

    private ByteBuf buffer;
    private int index;
    private int end;
    private byte attributes;
    private long timestamp;
    private long timestampDelta;
    private int offsetDelta;
    private long offset;
    private int keyIndex;
    private int keySize;
    private int valueIndex;
    private int valueSize;
    private int headerCount;
    private int headersIndex;

    /** Parse cursor, only meaningful inside {@link #wrap}. */
    private int position;
    private int limit;

    /**
     * Points this flyweight at the record whose length varint starts at absolute index {@code index} of
     * {@code buffer} and checks it whole. The record may not extend past {@code limit}.
     *
     * @param logAppendTime whether the batch's timestamps are its {@code maxTimestamp} (LOG_APPEND_TIME)
     * @return the index just after the record
     * @throws CorruptRecordException if the record is malformed or does not fit before {@code limit}
     */
    int wrap(ByteBuf buffer, int index, int limit, long baseOffset, long baseTimestamp, boolean logAppendTime,
             long maxTimestamp) {
        this.buffer = buffer;
        this.index = index;
        this.position = index;
        this.limit = limit;
        int bodySize = readVarint();
        if (bodySize < MIN_BODY_SIZE || bodySize > limit - position) {
            throw new CorruptRecordException("record length " + bodySize + " out of range: " + (limit - position)
                    + " bytes left in the batch");
        }
        this.end = position + bodySize;
        this.limit = end;
        attributes = readByte();
        timestampDelta = readVarlong();
        offsetDelta = readVarint();
        keySize = readLength("key");
        keyIndex = position;
        skip(keySize);
        valueSize = readLength("value");
        valueIndex = position;
        skip(valueSize);
        headerCount = readVarint();
        if (headerCount < 0) {
            throw new CorruptRecordException("negative header count " + headerCount);
        }
        headersIndex = position;
        for (int i = 0; i < headerCount; i++) {
            int headerKeySize = readVarint();
            if (headerKeySize < 0) {
                throw new CorruptRecordException("negative header key length " + headerKeySize);
            }
            skip(headerKeySize);
            skip(readLength("header value"));
        }
        if (position != end) {
            throw new CorruptRecordException("record length says " + bodySize + " bytes but its fields take "
                    + (position - (end - bodySize)));
        }
        this.offset = baseOffset + offsetDelta;
        this.timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
        return end;
    }

    /** The buffer this record lives in: the batch's own, or the scratch of a compressed batch. */
    public ByteBuf buffer() {
        return buffer;
    }

    /** Absolute index of the record's first byte (its length varint) in {@link #buffer()}. */
    public int index() {
        return index;
    }

    /** Size of the record including its length varint. */
    public int sizeInBytes() {
        return end - index;
    }

    public byte attributes() {
        return attributes;
    }

    /** Absolute offset: the batch's baseOffset plus {@link #offsetDelta()}. */
    public long offset() {
        return offset;
    }

    public int offsetDelta() {
        return offsetDelta;
    }

    /**
     * Absolute timestamp: the batch's baseTimestamp plus the record's delta, or for a LOG_APPEND_TIME batch
     * the batch's maxTimestamp (the time the broker appended it), as Kafka's readers report it.
     */
    public long timestamp() {
        return timestamp;
    }

    /** The delta as stored, from the batch's baseTimestamp, whatever the timestamp type. */
    public long timestampDelta() {
        return timestampDelta;
    }

    public boolean hasKey() {
        return keySize >= 0;
    }

    /** Key length in bytes, -1 for a null key. */
    public int keySize() {
        return keySize;
    }

    /** Absolute index of the key's first byte in {@link #buffer()}. */
    public int keyIndex() {
        return keyIndex;
    }

    /** The key as a slice of {@link #buffer()} (no copy, not retained), or {@code null}. Allocates the slice. */
    public ByteBuf key() {
        return keySize < 0 ? null : buffer.slice(keyIndex, keySize);
    }

    public boolean hasValue() {
        return valueSize >= 0;
    }

    /** Value length in bytes, -1 for a null value. */
    public int valueSize() {
        return valueSize;
    }

    /** Absolute index of the value's first byte in {@link #buffer()}. */
    public int valueIndex() {
        return valueIndex;
    }

    /** The value as a slice of {@link #buffer()} (no copy, not retained), or {@code null}. Allocates the slice. */
    public ByteBuf value() {
        return valueSize < 0 ? null : buffer.slice(valueIndex, valueSize);
    }

    public int headerCount() {
        return headerCount;
    }

    /** Absolute index of the first header (just after the header count); headers run to the record's end. */
    public int headersIndex() {
        return headersIndex;
    }

    /** Bytes taken by the encoded headers, from {@link #headersIndex()} to the record's end. */
    public int headersSize() {
        return end - headersIndex;
    }

    /**
     * Visits the headers in order without allocating, until the visitor returns {@code false}.
     *
     * @return {@code false} if the visitor stopped early
     */
    public boolean forEachHeader(HeaderVisitor visitor) {
        int at = headersIndex;
        for (int i = 0; i < headerCount; i++) {
            position = at;
            limit = end;
            int keyLength = readVarint();
            int keyAt = position;
            position += keyLength;
            int valueLength = readVarint();
            int valueAt = position;
            at = position + Math.max(valueLength, 0);
            if (!visitor.visit(buffer, keyAt, keyLength, valueAt, valueLength)) {
                return false;
            }
        }
        return true;
    }

    /** The key of header {@code i} as a slice (UTF-8 bytes). Walks the headers before it: O(i). */
    public ByteBuf headerKey(int i) {
        seekHeader(i);
        int keyLength = readVarint();
        return buffer.slice(position, keyLength);
    }

    /** The value of header {@code i} as a slice, or {@code null}. Walks the headers before it: O(i). */
    public ByteBuf headerValue(int i) {
        seekHeader(i);
        int keyLength = readVarint();
        position += keyLength;
        int valueLength = readVarint();
        return valueLength < 0 ? null : buffer.slice(position, valueLength);
    }

    private void seekHeader(int i) {
        if (i < 0 || i >= headerCount) {
            throw new IndexOutOfBoundsException("header " + i + " of " + headerCount);
        }
        position = headersIndex;
        limit = end;
        for (int h = 0; h < i; h++) {
            // Read into locals first: "position += readVarint()" would add to the position before the read.
            int keyLength = readVarint();
            position += keyLength;
            int valueLength = readVarint();
            position += Math.max(valueLength, 0);
        }
    }

    private byte readByte() {
        if (position >= limit) {
            throw truncated();
        }
        return buffer.getByte(position++);
    }

    private int readLength(String field) {
        int length = readVarint();
        if (length < -1) {
            throw new CorruptRecordException("invalid " + field + " length " + length);
        }
        return length;
    }

    private void skip(int length) {
        if (length > 0) {
            if (length > limit - position) {
                throw new CorruptRecordException("field of " + length + " bytes runs past the record's end ("
                        + (limit - position) + " bytes left)");
            }
            position += length;
        }
    }

    private int readVarint() {
        int raw = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            byte b = readByte();
            raw |= (b & 0x7F) << shift;
            if (b >= 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new CorruptRecordException("varint longer than 5 bytes");
    }

    private long readVarlong() {
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            byte b = readByte();
            raw |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new CorruptRecordException("varlong longer than 10 bytes");
    }

    private CorruptRecordException truncated() {
        return new CorruptRecordException("record truncated at index " + position + " (limit " + limit + ")");
    }

    @Override
    public String toString() {
        return "Record(offset=" + offset + ", timestamp=" + timestamp + ", key=" + keySize + " bytes, value="
                + valueSize + " bytes, headers=" + headerCount + ")";
    }
}
