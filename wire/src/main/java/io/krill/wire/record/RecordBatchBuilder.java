package io.krill.wire.record;

import io.krill.wire.record.compression.Compression;
import io.krill.wire.record.compression.NoCompression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * Builds one valid v2 record batch (layout in {@link RecordBatch}, records in {@link Record}): set the
 * header fields, append records, then {@link #build()} or {@link #buildInto}. Used by tests, the log's
 * compactor (explicit offset deltas with gaps, a kept lastOffsetDelta, copies of existing records) and
 * the coordinators (transaction markers, control batches).
 *
 * <pre>{@code
 * try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
 *     builder.baseOffset(100).compression(CompressionType.ZSTD).producer(pid, epoch, 0);
 *     builder.append(now, key, value, new Header("trace", traceId));
 *     ByteBuf batch = builder.build();   // caller releases
 * }
 * }</pre>
 *
 * <p>Records are encoded on append into an internal buffer and compressed on build. The baseTimestamp
 * is the first record's timestamp unless {@link #baseTimestamp} or {@link #deleteHorizon} fixed it
 * before; maxTimestamp is the largest record timestamp, or the log append time for LOG_APPEND_TIME
 * batches, unless {@link #maxTimestamp} overrides it. Offset deltas must strictly increase.
 *
 * <p>Not thread-safe. Reusable after {@link #reset()}; {@link #close()} releases the internal buffer.
 */
public final class RecordBatchBuilder implements AutoCloseable {
    private static final Header[] NO_HEADERS = new Header[0];
    private static final int INITIAL_RECORDS_CAPACITY = 1024;

    private final ByteBufAllocator allocator;
    private ByteBuf records;

    private long baseOffset;
    private int partitionLeaderEpoch;
    private Compression compression;
    private TimestampType timestampType;
    private long logAppendTime;
    private long producerId;
    private short producerEpoch;
    private int baseSequence;
    private boolean transactional;
    private boolean control;
    private boolean deleteHorizon;
    private boolean baseTimestampFixed;
    private long baseTimestamp;
    private boolean maxTimestampOverridden;
    private long maxTimestampOverride;
    private int lastOffsetDeltaOverride;

    private int recordCount;
    private int lastOffsetDelta;
    private long maxTimestamp;

    /** A builder whose buffers come from {@link ByteBufAllocator#DEFAULT}. */
    public RecordBatchBuilder() {
        this(ByteBufAllocator.DEFAULT);
    }

    public RecordBatchBuilder(ByteBufAllocator allocator) {
        this.allocator = allocator;
        reset();
    }

    /** Forgets the records and restores every setting to its default, keeping the internal buffer. */
    public RecordBatchBuilder reset() {
        if (records != null) {
            records.clear();
        }
        baseOffset = 0;
        partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
        compression = NoCompression.INSTANCE;
        timestampType = TimestampType.CREATE_TIME;
        logAppendTime = RecordBatch.NO_TIMESTAMP;
        producerId = RecordBatch.NO_PRODUCER_ID;
        producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        baseSequence = RecordBatch.NO_SEQUENCE;
        transactional = false;
        control = false;
        deleteHorizon = false;
        baseTimestampFixed = false;
        baseTimestamp = RecordBatch.NO_TIMESTAMP;
        maxTimestampOverridden = false;
        maxTimestampOverride = RecordBatch.NO_TIMESTAMP;
        lastOffsetDeltaOverride = -1;
        recordCount = 0;
        lastOffsetDelta = -1;
        maxTimestamp = RecordBatch.NO_TIMESTAMP;
        return this;
    }

    public RecordBatchBuilder baseOffset(long baseOffset) {
        this.baseOffset = baseOffset;
        return this;
    }

    public RecordBatchBuilder partitionLeaderEpoch(int partitionLeaderEpoch) {
        this.partitionLeaderEpoch = partitionLeaderEpoch;
        return this;
    }

    /** The codec at its default level. */
    public RecordBatchBuilder compression(CompressionType type) {
        return compression(Compression.of(type));
    }

    public RecordBatchBuilder compression(Compression compression) {
        this.compression = compression;
        return this;
    }

    /** CREATE_TIME (the default): records carry the producer's timestamps. */
    public RecordBatchBuilder createTime() {
        this.timestampType = TimestampType.CREATE_TIME;
        this.logAppendTime = RecordBatch.NO_TIMESTAMP;
        return this;
    }

    /** LOG_APPEND_TIME: readers see {@code appendTime}, written as the batch's maxTimestamp, for every record. */
    public RecordBatchBuilder logAppendTime(long appendTime) {
        this.timestampType = TimestampType.LOG_APPEND_TIME;
        this.logAppendTime = appendTime;
        return this;
    }

    /** Producer id, epoch and the sequence of the first record; the defaults are -1 (none). */
    public RecordBatchBuilder producer(long producerId, short producerEpoch, int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    public RecordBatchBuilder transactional(boolean transactional) {
        this.transactional = transactional;
        return this;
    }

    public RecordBatchBuilder control(boolean control) {
        this.control = control;
        return this;
    }

    /**
     * Fixes the baseTimestamp that record timestamps are stored relative to. Must precede the first
     * append; without it the first record's timestamp is used (and {@link RecordBatch#NO_TIMESTAMP} for
     * an empty batch).
     */
    public RecordBatchBuilder baseTimestamp(long baseTimestamp) {
        requireNoRecords("baseTimestamp");
        this.baseTimestamp = baseTimestamp;
        this.baseTimestampFixed = true;
        return this;
    }

    /**
     * Sets the delete-horizon attribute: the baseTimestamp holds the time after which the compactor may
     * drop this batch's tombstones and markers. Must precede the first append.
     */
    public RecordBatchBuilder deleteHorizon(long deleteHorizonMs) {
        baseTimestamp(deleteHorizonMs);
        this.deleteHorizon = true;
        return this;
    }

    /** Overrides the computed maxTimestamp (e.g. to keep the original's when compaction empties a batch). */
    public RecordBatchBuilder maxTimestamp(long maxTimestamp) {
        this.maxTimestampOverridden = true;
        this.maxTimestampOverride = maxTimestamp;
        return this;
    }

    /**
     * Fixes lastOffsetDelta, the batch's offset span, which compaction keeps when it removes trailing
     * records (an empty batch may keep a producer's last sequence). Must be at least the last appended
     * offset delta when the batch is built.
     */
    public RecordBatchBuilder lastOffsetDelta(int lastOffsetDelta) {
        if (lastOffsetDelta < 0) {
            throw new IllegalArgumentException("lastOffsetDelta " + lastOffsetDelta);
        }
        this.lastOffsetDeltaOverride = lastOffsetDelta;
        return this;
    }

    /** Appends a record at the next offset. {@code key} and {@code value} may be null; their readable bytes are copied. */
    public RecordBatchBuilder append(long timestamp, ByteBuf key, ByteBuf value, Header... headers) {
        return appendWithOffsetDelta(lastOffsetDelta + 1, timestamp, key, value, headers);
    }

    /** Appends a record at the next offset. {@code key} and {@code value} may be null. */
    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value, Header... headers) {
        return appendWithOffsetDelta(lastOffsetDelta + 1, timestamp, key, value, headers);
    }

    /**
     * Appends a record at {@code baseOffset + offsetDelta}, leaving a gap if the delta skips offsets (as
     * compaction does). Deltas must strictly increase.
     */
    public RecordBatchBuilder appendWithOffsetDelta(int offsetDelta, long timestamp, ByteBuf key, ByteBuf value,
                                                    Header... headers) {
        Header[] nonNullHeaders = headers == null ? NO_HEADERS : headers;
        int headersSize = 0;
        for (Header header : nonNullHeaders) {
            headersSize += header.sizeInBytes();
        }
        writeRecord(offsetDelta, timestamp,
                key, key == null ? 0 : key.readerIndex(), key == null ? -1 : key.readableBytes(),
                value, value == null ? 0 : value.readerIndex(), value == null ? -1 : value.readableBytes(),
                nonNullHeaders.length, headersSize, nonNullHeaders, null, 0);
        return this;
    }

    /** As {@link #appendWithOffsetDelta(int, long, ByteBuf, ByteBuf, Header...)} with arrays. */
    public RecordBatchBuilder appendWithOffsetDelta(int offsetDelta, long timestamp, byte[] key, byte[] value,
                                                    Header... headers) {
        return appendWithOffsetDelta(offsetDelta, timestamp,
                key == null ? null : Unpooled.wrappedBuffer(key),
                value == null ? null : Unpooled.wrappedBuffer(value), headers);
    }

    /**
     * Appends a copy of {@code record} (read from another batch) at the same absolute offset, with its
     * timestamp, key, value and headers byte for byte: the compactor's way to keep a record.
     */
    public RecordBatchBuilder appendCopyOf(Record record) {
        long delta = record.offset() - baseOffset;
        if (delta < 0 || delta > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("record offset " + record.offset() + " is not within an int of baseOffset "
                    + baseOffset);
        }
        ByteBuf source = record.buffer();
        writeRecord((int) delta, record.timestamp(),
                source, record.keyIndex(), record.keySize(),
                source, record.valueIndex(), record.valueSize(),
                record.headerCount(), record.headersSize(), null, source, record.headersIndex());
        return this;
    }

    /**
     * Appends a transaction marker (control record: key = version 0 + type, value = version 0 +
     * coordinator epoch) and marks the batch control and transactional, as markers must be.
     */
    public RecordBatchBuilder appendEndTransactionMarker(long timestamp, ControlRecordType type, int coordinatorEpoch) {
        if (!type.isTransactionMarker()) {
            throw new IllegalArgumentException(type + " is not a transaction marker");
        }
        transactional = true;
        ByteBuf value = Unpooled.buffer(ControlRecords.END_TRANSACTION_VALUE_SIZE);
        ControlRecords.writeEndTransactionValue(value, coordinatorEpoch);
        return appendControlRecord(timestamp, type, value);
    }

    /**
     * Appends a control record of {@code type} (key = version 0 + type) with {@code value} as its
     * already-serialized value, and marks the batch control.
     */
    public RecordBatchBuilder appendControlRecord(long timestamp, ControlRecordType type, ByteBuf value) {
        if (type == ControlRecordType.UNKNOWN) {
            throw new IllegalArgumentException("cannot write an UNKNOWN control record");
        }
        control = true;
        ByteBuf key = Unpooled.buffer(ControlRecords.KEY_SIZE);
        ControlRecords.writeKey(key, type);
        return append(timestamp, key, value);
    }

    public int recordCount() {
        return recordCount;
    }

    /** Uncompressed size of the batch so far: an upper bound for uncompressed and most compressed batches. */
    public int uncompressedSizeInBytes() {
        return RecordBatch.HEADER_SIZE + (records == null ? 0 : records.readableBytes());
    }

    /** Builds the batch into a new buffer from the allocator, which the caller must release. */
    public ByteBuf build() {
        ByteBuf out = allocator.buffer(uncompressedSizeInBytes());
        try {
            buildInto(out);
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        }
    }

    /**
     * Appends the batch at {@code out}'s writer index, growing it as needed. The builder keeps its
     * records: building twice yields the same batch.
     *
     * @return the batch's size in bytes
     */
    public int buildInto(ByteBuf out) {
        if (lastOffsetDeltaOverride >= 0 && lastOffsetDeltaOverride < lastOffsetDelta) {
            throw new IllegalStateException("lastOffsetDelta " + lastOffsetDeltaOverride + " is below the last record's "
                    + lastOffsetDelta);
        }
        int last = lastOffsetDeltaOverride >= 0 ? lastOffsetDeltaOverride : Math.max(lastOffsetDelta, 0);
        long max = maxTimestampOverridden ? maxTimestampOverride
                : timestampType == TimestampType.LOG_APPEND_TIME ? logAppendTime : maxTimestamp;
        int start = out.writerIndex();
        out.ensureWritable(uncompressedSizeInBytes());
        out.writeLong(baseOffset);
        out.writeInt(0);
        out.writeInt(partitionLeaderEpoch);
        out.writeByte(RecordBatch.MAGIC);
        out.writeInt(0);
        out.writeShort(attributes());
        out.writeInt(last);
        out.writeLong(baseTimestamp);
        out.writeLong(max);
        out.writeLong(producerId);
        out.writeShort(producerEpoch);
        out.writeInt(baseSequence);
        out.writeInt(recordCount);
        if (recordCount > 0) {
            compression.compress(records, out);
        }
        int size = out.writerIndex() - start;
        out.setInt(start + RecordBatch.LENGTH_OFFSET, size - RecordBatch.LOG_OVERHEAD);
        out.setInt(start + RecordBatch.CRC_OFFSET, (int) RecordBatch.crc32c(out, start + RecordBatch.ATTRIBUTES_OFFSET,
                size - RecordBatch.ATTRIBUTES_OFFSET));
        return size;
    }

    @Override
    public void close() {
        if (records != null) {
            ByteBuf held = records;
            records = null;
            held.release();
        }
    }

    private int attributes() {
        int attributes = compression.type().id;
        if (timestampType == TimestampType.LOG_APPEND_TIME) {
            attributes |= 0x08;
        }
        if (transactional) {
            attributes |= 0x10;
        }
        if (control) {
            attributes |= 0x20;
        }
        if (deleteHorizon) {
            attributes |= 0x40;
        }
        return attributes;
    }

    private void requireNoRecords(String setting) {
        if (recordCount > 0) {
            throw new IllegalStateException(setting + " must be set before the first record");
        }
    }

    /**
     * Encodes one record. Headers come either as {@code headers}, or already encoded as
     * {@code headersSize} bytes of {@code rawHeaders} from {@code rawHeadersIndex}.
     */
    private void writeRecord(int offsetDelta, long timestamp,
                             ByteBuf key, int keyIndex, int keyLength,
                             ByteBuf value, int valueIndex, int valueLength,
                             int headerCount, int headersSize, Header[] headers, ByteBuf rawHeaders, int rawHeadersIndex) {
        if (offsetDelta <= lastOffsetDelta) {
            throw new IllegalArgumentException("offset delta " + offsetDelta + " does not follow " + lastOffsetDelta);
        }
        if (!baseTimestampFixed) {
            baseTimestamp = timestamp;
            baseTimestampFixed = true;
        }
        long timestampDelta = timestamp - baseTimestamp;
        int bodySize = 1 + Varint.sizeOfVarlong(timestampDelta) + Varint.sizeOfVarint(offsetDelta)
                + Varint.sizeOfVarint(keyLength) + Math.max(keyLength, 0)
                + Varint.sizeOfVarint(valueLength) + Math.max(valueLength, 0)
                + Varint.sizeOfVarint(headerCount) + headersSize;
        if (records == null) {
            records = allocator.buffer(Math.max(INITIAL_RECORDS_CAPACITY, bodySize + 5));
        }
        records.ensureWritable(Varint.sizeOfVarint(bodySize) + bodySize);
        Varint.writeVarint(records, bodySize);
        records.writeByte(0);
        Varint.writeVarlong(records, timestampDelta);
        Varint.writeVarint(records, offsetDelta);
        Varint.writeVarint(records, keyLength);
        if (keyLength > 0) {
            records.writeBytes(key, keyIndex, keyLength);
        }
        Varint.writeVarint(records, valueLength);
        if (valueLength > 0) {
            records.writeBytes(value, valueIndex, valueLength);
        }
        Varint.writeVarint(records, headerCount);
        if (headers != null) {
            for (Header header : headers) {
                byte[] headerKey = header.keyBytes();
                Varint.writeVarint(records, headerKey.length);
                records.writeBytes(headerKey);
                byte[] headerValue = header.value();
                Varint.writeVarint(records, headerValue == null ? -1 : headerValue.length);
                if (headerValue != null) {
                    records.writeBytes(headerValue);
                }
            }
        } else if (headersSize > 0) {
            records.writeBytes(rawHeaders, rawHeadersIndex, headersSize);
        }
        recordCount++;
        lastOffsetDelta = offsetDelta;
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
    }
}
