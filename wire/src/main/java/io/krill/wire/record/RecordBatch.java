package io.krill.wire.record;

import io.krill.wire.record.compression.Compression;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Flyweight over one record batch of magic 2 (the only format Krill stores), read and patched in
 * place in a {@link ByteBuf} without decoding its records.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                     baseOffset (int64) @0                     |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |       batchLength (int32) @8: bytes after this field          |
 * +---------------------------------------------------------------+
 * |            partitionLeaderEpoch (int32) @12                   |
 * +---------------+-----------------------------------------------+
 * | magic=2 @16   |   crc (uint32, CRC-32C of @21..end) @17       |
 * +---------------+---------------+-------------------------------+
 * |               | attributes (int16) @21        |               |
 * +---------------+-------------------------------+               |
 * |   lastOffsetDelta (int32) @23   baseTimestamp (int64) @27     |
 * |   maxTimestamp (int64) @35      producerId (int64) @43        |
 * |   producerEpoch (int16) @51     baseSequence (int32) @53      |
 * |   recordCount (int32) @57       records... @61                |
 * +---------------------------------------------------------------+
 * attributes: bits 0-2 codec, bit 3 timestamp type (1 = log append time), bit 4 transactional,
 *             bit 5 control, bit 6 delete horizon set (baseTimestamp is then the horizon).
 * </pre>
 *
 * <p>The CRC covers attributes to the end, so a broker assigns {@code baseOffset} and
 * {@code partitionLeaderEpoch} in place for free; changing {@code maxTimestamp} or attributes needs
 * a new CRC, which the setters that touch them compute.
 *
 * <p>Records are read with {@link #forEachRecord}: in place for an uncompressed batch, through a
 * {@link DecompressionBuffer} otherwise, with one {@link Record} flyweight per batch flyweight.
 *
 * <p>Not thread-safe: a flyweight is re-pointed with {@link #wrap} and owned by one thread. The
 * buffer's reader/writer indexes are never moved.
 */
public final class RecordBatch {
    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORD_COUNT_OFFSET = 57;
    public static final int RECORDS_OFFSET = 61;

    /** Bytes before {@code batchLength} counts: baseOffset and batchLength itself. */
    public static final int LOG_OVERHEAD = 12;
    /** Size of a batch header, i.e. of a batch with no records. */
    public static final int HEADER_SIZE = RECORDS_OFFSET;
    public static final byte MAGIC = 2;

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    public static final long NO_TIMESTAMP = -1L;

    private static final int COMPRESSION_MASK = 0x07;
    private static final int TIMESTAMP_TYPE_MASK = 0x08;
    private static final int TRANSACTIONAL_MASK = 0x10;
    private static final int CONTROL_MASK = 0x20;
    private static final int DELETE_HORIZON_MASK = 0x40;

    private ByteBuf buffer;
    private int offset;
    /** Re-pointed at each record by {@link #forEachRecord}; created on first use. */
    private Record record;
    /** Reused by {@link #computeCrc()}; created on first use. */
    private CRC32C crc;

    /** Points this flyweight at the batch starting at absolute index {@code offset} of {@code buffer}. */
    public RecordBatch wrap(ByteBuf buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public ByteBuf buffer() {
        return buffer;
    }

    /** Absolute index of this batch's first byte in {@link #buffer()}. */
    public int offset() {
        return offset;
    }

    /**
     * Size of the batch starting at {@code index}, as its length field claims, or -1 when fewer than
     * {@link #LOG_OVERHEAD} bytes are readable there. The claim is not validated: see {@link #validateHeader}.
     */
    public static int claimedSize(ByteBuf buffer, int index) {
        if (buffer.writerIndex() - index < LOG_OVERHEAD) {
            return -1;
        }
        return LOG_OVERHEAD + buffer.getInt(index + LENGTH_OFFSET);
    }

    public long baseOffset() {
        return buffer.getLong(offset + BASE_OFFSET_OFFSET);
    }

    public int batchLength() {
        return buffer.getInt(offset + LENGTH_OFFSET);
    }

    /** Whole size of the batch in bytes, including the log overhead. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + batchLength();
    }

    public int partitionLeaderEpoch() {
        return buffer.getInt(offset + PARTITION_LEADER_EPOCH_OFFSET);
    }

    public byte magic() {
        return buffer.getByte(offset + MAGIC_OFFSET);
    }

    public long crc() {
        return buffer.getUnsignedInt(offset + CRC_OFFSET);
    }

    public short attributes() {
        return buffer.getShort(offset + ATTRIBUTES_OFFSET);
    }

    /** The codec, or {@code null} for an undefined codec id (a validation failure). */
    public CompressionType compression() {
        return CompressionType.forId(attributes() & COMPRESSION_MASK);
    }

    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes() & CONTROL_MASK) != 0;
    }

    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_MASK) != 0;
    }

    public int lastOffsetDelta() {
        return buffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /** The offset after this batch: where the next batch starts. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    public long baseTimestamp() {
        return buffer.getLong(offset + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return buffer.getLong(offset + MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return buffer.getLong(offset + PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return buffer.getShort(offset + PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return buffer.getInt(offset + BASE_SEQUENCE_OFFSET);
    }

    /** Sequence of the last record, wrapping at {@link Integer#MAX_VALUE} as the protocol says. */
    public int lastSequence() {
        int base = baseSequence();
        if (base == NO_SEQUENCE) {
            return NO_SEQUENCE;
        }
        long last = (long) base + lastOffsetDelta();
        return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
    }

    public boolean hasProducerId() {
        return producerId() != NO_PRODUCER_ID;
    }

    public int recordCount() {
        return buffer.getInt(offset + RECORD_COUNT_OFFSET);
    }

    /** Assigns the batch's base offset in place; outside the CRC. */
    public void setBaseOffset(long baseOffset) {
        buffer.setLong(offset + BASE_OFFSET_OFFSET, baseOffset);
    }

    /** Stamps the leader epoch in place; outside the CRC. */
    public void setPartitionLeaderEpoch(int epoch) {
        buffer.setInt(offset + PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    /**
     * Sets the timestamp type and max timestamp (LogAppendTime on append, or a fix-up of CreateTime)
     * and recomputes the CRC, which covers both.
     */
    public void setMaxTimestamp(TimestampType type, long maxTimestamp) {
        int attributes = attributes();
        int updated = type == TimestampType.LOG_APPEND_TIME
                ? attributes | TIMESTAMP_TYPE_MASK
                : attributes & ~TIMESTAMP_TYPE_MASK;
        if (updated == attributes && maxTimestamp == maxTimestamp()) {
            return;
        }
        buffer.setShort(offset + ATTRIBUTES_OFFSET, updated);
        buffer.setLong(offset + MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buffer.setInt(offset + CRC_OFFSET, (int) computeCrc());
    }

    /** CRC-32C of attributes to the end of the batch, as it should be stored at {@link #CRC_OFFSET}. */
    public long computeCrc() {
        CRC32C checksum = crc;
        if (checksum == null) {
            checksum = new CRC32C();
            crc = checksum;
        } else {
            checksum.reset();
        }
        update(checksum, buffer, offset + ATTRIBUTES_OFFSET, sizeInBytes() - ATTRIBUTES_OFFSET);
        return checksum.getValue();
    }

    public boolean isCrcValid() {
        return computeCrc() == crc();
    }

    /**
     * Checks what can be checked without touching the records: enough bytes for the header and for the
     * claimed length, magic 2, a defined codec, a record count that fits lastOffsetDelta, and the CRC.
     * Gaps left by compaction are allowed; produce also checks {@link #hasContiguousOffsets()}.
     * {@code available} is how many bytes from {@link #offset()} belong to this batch's container
     * (a request's records field, or a segment's tail).
     *
     * @throws CorruptRecordException naming the first rule broken
     */
    public void validate(int available) {
        validateHeader(available);
        if (!isCrcValid()) {
            throw new CorruptRecordException("record batch at offset " + baseOffset() + " fails its CRC: stored "
                    + crc() + ", computed " + computeCrc());
        }
    }

    /** {@link #validate} without the CRC: length, magic, codec and count only. */
    public void validateHeader(int available) {
        if (available < HEADER_SIZE) {
            throw new CorruptRecordException("record batch truncated: " + available + " bytes, header needs " + HEADER_SIZE);
        }
        int length = batchLength();
        if (length < HEADER_SIZE - LOG_OVERHEAD || length > available - LOG_OVERHEAD) {
            throw new CorruptRecordException("record batch length " + length + " out of range (" + available
                    + " bytes available)");
        }
        if (magic() != MAGIC) {
            throw new CorruptRecordException("unsupported record batch magic " + magic());
        }
        if (compression() == null) {
            throw new CorruptRecordException("undefined compression codec id " + (attributes() & COMPRESSION_MASK));
        }
        int count = recordCount();
        if (count < 0 || lastOffsetDelta() < 0 || (long) count > (long) lastOffsetDelta() + 1) {
            throw new CorruptRecordException("record count " + count + " does not fit lastOffsetDelta "
                    + lastOffsetDelta());
        }
    }

    /**
     * Whether every offset of the batch's span holds a record ({@code lastOffsetDelta + 1 == recordCount}).
     * Producers always send such batches; compaction later leaves gaps, so stored batches may not be.
     */
    public boolean hasContiguousOffsets() {
        int count = recordCount();
        return count > 0 && (long) lastOffsetDelta() + 1 == count;
    }

    /**
     * Visits the batch's records in order until the visitor returns {@code false}, decompressing a
     * compressed batch into a scratch buffer allocated for this call (bounded by
     * {@link DecompressionBuffer#DEFAULT_MAX_BYTES}). Use {@link #forEachRecord(RecordVisitor, DecompressionBuffer)}
     * to reuse the scratch across batches. The CRC is not checked here: see {@link #validate}.
     *
     * @return {@code false} if the visitor stopped early
     * @throws CorruptRecordException if the header, the compressed data or a record is malformed, or the
     *                                records do not match {@link #recordCount()} and the batch's length
     */
    public boolean forEachRecord(RecordVisitor visitor) {
        validateHeader(buffer.writerIndex() - offset);
        if (compression() == CompressionType.NONE || recordCount() == 0) {
            return forEachValidRecord(visitor, null);
        }
        try (DecompressionBuffer scratch = new DecompressionBuffer()) {
            return forEachValidRecord(visitor, scratch);
        }
    }

    /**
     * As {@link #forEachRecord(RecordVisitor)}, inflating a compressed batch into {@code scratch}. An
     * uncompressed batch is read in place and allocates nothing per record: the visitor sees the same
     * {@link Record} instance each time. {@code scratch} may be null for an uncompressed or empty batch.
     */
    public boolean forEachRecord(RecordVisitor visitor, DecompressionBuffer scratch) {
        validateHeader(buffer.writerIndex() - offset);
        return forEachValidRecord(visitor, scratch);
    }

    /** Iterates records of a batch whose header passed {@link #validateHeader}. */
    private boolean forEachValidRecord(RecordVisitor visitor, DecompressionBuffer scratch) {
        CompressionType type = compression();
        if (type == CompressionType.NONE) {
            return forEachRecordIn(buffer, offset + RECORDS_OFFSET, offset + sizeInBytes(), visitor);
        }
        if (recordCount() == 0) {
            // An empty compressed batch (left by compaction) carries no stream to inflate; Kafka skips it too.
            return true;
        }
        if (scratch == null) {
            throw new IllegalArgumentException("a " + type + " batch needs a DecompressionBuffer");
        }
        try {
            ByteBuf records = scratch.decompress(Compression.of(type), buffer, offset + RECORDS_OFFSET,
                    sizeInBytes() - RECORDS_OFFSET);
            return forEachRecordIn(records, records.readerIndex(), records.writerIndex(), visitor);
        } finally {
            scratch.recycle();
        }
    }

    private boolean forEachRecordIn(ByteBuf records, int from, int to, RecordVisitor visitor) {
        Record current = record;
        if (current == null) {
            current = new Record();
            record = current;
        }
        long baseOffset = baseOffset();
        long baseTimestamp = baseTimestamp();
        boolean logAppendTime = timestampType() == TimestampType.LOG_APPEND_TIME;
        long maxTimestamp = maxTimestamp();
        int count = recordCount();
        int position = from;
        for (int i = 0; i < count; i++) {
            if (position >= to) {
                throw new CorruptRecordException("record batch at offset " + baseOffset + " declares " + count
                        + " records but holds " + i);
            }
            position = current.wrap(records, position, to, baseOffset, baseTimestamp, logAppendTime, maxTimestamp);
            if (!visitor.visit(current)) {
                return false;
            }
        }
        if (position != to) {
            throw new CorruptRecordException("record batch at offset " + baseOffset + " has " + (to - position)
                    + " bytes after its " + count + " records");
        }
        return true;
    }

    /** CRC-32C of {@code length} bytes of {@code buffer} from absolute index {@code index}. */
    public static long crc32c(ByteBuf buffer, int index, int length) {
        CRC32C crc = new CRC32C();
        update(crc, buffer, index, length);
        return crc.getValue();
    }

    /**
     * Feeds bytes to {@code crc} without allocating for array-backed and single-buffer ByteBufs (the
     * produce path validates every batch: no garbage per batch).
     */
    private static void update(CRC32C crc, ByteBuf buffer, int index, int length) {
        if (buffer.hasArray()) {
            if (index < 0 || length < 0 || index > buffer.capacity() - length) {
                throw new IndexOutOfBoundsException("[" + index + ", +" + length + ") of capacity " + buffer.capacity());
            }
            crc.update(buffer.array(), buffer.arrayOffset() + index, length);
        } else if (buffer.nioBufferCount() == 1) {
            crc.update(buffer.internalNioBuffer(index, length));
        } else {
            for (ByteBuffer part : buffer.nioBuffers(index, length)) {
                crc.update(part);
            }
        }
    }

    @Override
    public String toString() {
        return "RecordBatch(baseOffset=" + baseOffset() + ", lastOffset=" + lastOffset() + ", size="
                + sizeInBytes() + ", epoch=" + partitionLeaderEpoch() + ", codec=" + compression()
                + ", producerId=" + producerId() + ", producerEpoch=" + producerEpoch() + ", baseSequence="
                + baseSequence() + ", transactional=" + isTransactional() + ", control=" + isControl() + ")";
    }
}
