package io.krill.log.record;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;

/**
 * Walks the records of an uncompressed v2 batch without copying: each record is reported as absolute
 * indexes into the batch's buffer. This is the stand-in for wire's {@code RecordBatch.forEachRecord};
 * compressed batches need wire's codecs and are refused ({@link #isDecodable}).
 *
 * <p>Record layout: length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
 * keyLength varint (-1 = null), key, valueLength varint (-1 = null), value, header count varint, headers.
 */
public final class BatchRecords {

    /** A record's position and fields; reused between callbacks, copy what you keep. */
    public static final class View {
        /** Absolute index of the record's length varint, and total bytes including it. */
        public int start;
        public int size;
        public long offset;
        public long timestamp;
        /** Absolute index of the key, or -1 for a null key. */
        public int keyIndex;
        public int keyLength;
        /** Absolute index of the value, or -1 for a null value (a tombstone). */
        public int valueIndex;
        public int valueLength;

        public boolean hasKey() {
            return keyIndex >= 0;
        }

        public boolean isTombstone() {
            return valueIndex < 0;
        }
    }

    /** Receives each record; return {@code false} to stop. */
    @FunctionalInterface
    public interface Visitor {
        boolean visit(View record);
    }

    private BatchRecords() {
    }

    /** Whether this module can walk the batch's records today (uncompressed, or no records at all). */
    public static boolean isDecodable(RecordBatch batch) {
        return batch.compression() == CompressionType.NONE || batch.recordCount() == 0;
    }

    /**
     * Visits the records of the whole batch {@code batch} (its bytes must all be readable in its buffer).
     *
     * @throws UnsupportedOperationException for a compressed batch with records
     * @throws CorruptRecordException if a record overruns the batch
     */
    public static void forEach(RecordBatch batch, Visitor visitor) {
        if (!isDecodable(batch)) {
            throw new UnsupportedOperationException("decoding " + batch.compression()
                    + " batches needs the wire module's codecs");
        }
        ByteBuf buf = batch.buffer();
        int end = batch.offset() + batch.sizeInBytes();
        long baseOffset = batch.baseOffset();
        long baseTimestamp = batch.baseTimestamp();
        boolean logAppendTime = batch.timestampType() == io.krill.wire.record.TimestampType.LOG_APPEND_TIME;
        Varints in = new Varints();
        View view = new View();
        int index = batch.offset() + RecordBatch.RECORDS_OFFSET;
        int count = batch.recordCount();
        for (int i = 0; i < count; i++) {
            in.reset(buf, index, end);
            int length = in.readVarint();
            int bodyStart = in.index();
            int recordEnd = bodyStart + length;
            if (length <= 0 || recordEnd > end) {
                throw new CorruptRecordException("record " + i + " of " + batch + " overruns the batch");
            }
            in.reset(buf, bodyStart, recordEnd);
            in.readByte();
            long tsDelta = in.readVarlong();
            int offsetDelta = in.readVarint();
            int keyLength = in.readVarint();
            view.keyIndex = keyLength < 0 ? -1 : in.index();
            view.keyLength = Math.max(keyLength, 0);
            if (keyLength > 0) {
                in.skip(keyLength);
            }
            int valueLength = in.readVarint();
            view.valueIndex = valueLength < 0 ? -1 : in.index();
            view.valueLength = Math.max(valueLength, 0);
            view.start = index;
            view.size = recordEnd - index;
            view.offset = baseOffset + offsetDelta;
            view.timestamp = logAppendTime ? batch.maxTimestamp() : baseTimestamp + tsDelta;
            if (!visitor.visit(view)) {
                return;
            }
            index = recordEnd;
        }
    }
}
