package io.krill.wire.record;

import io.netty.buffer.ByteBuf;

/**
 * Walks the consecutive batches of a buffer region (a produce request's records, a segment read from
 * disk) with one reused {@link RecordBatch} flyweight, framing each batch by its length field only.
 * Iteration stops cleanly at a partial trailing batch, and {@link #position()} tells where: the log's
 * recovery truncates there, a fetch response ends there.
 *
 * <pre>{@code
 * RecordBatchCursor cursor = new RecordBatchCursor().reset(buffer, from, to);
 * while (cursor.next()) {
 *     RecordBatch batch = cursor.batch();
 *     batch.validate(batch.sizeInBytes());
 * }
 * if (cursor.hasPartialBatch()) { ... cursor.position() is where the partial batch starts ... }
 * }</pre>
 *
 * <p>A length field too small for a batch header, or a visible magic byte other than 2, cannot be the
 * start of a batch: that is corruption, not truncation, and throws. Nothing else is checked here;
 * validate each batch as its use requires.
 *
 * <p>Not thread-safe: owned by one thread; reusable via {@link #reset}.
 */
public final class RecordBatchCursor {
    private final RecordBatch batch = new RecordBatch();
    private ByteBuf buffer;
    private int position;
    private int limit;

    /** Points the cursor at absolute indexes {@code [from, to)} of {@code buffer}. */
    public RecordBatchCursor reset(ByteBuf buffer, int from, int to) {
        if (from < 0 || from > to || to > buffer.capacity()) {
            throw new IndexOutOfBoundsException("region [" + from + ", " + to + ") of a " + buffer.capacity()
                    + "-byte buffer");
        }
        this.buffer = buffer;
        this.position = from;
        this.limit = to;
        return this;
    }

    /** {@link #reset(ByteBuf, int, int)} over {@code buffer}'s readable bytes. */
    public RecordBatchCursor reset(ByteBuf buffer) {
        return reset(buffer, buffer.readerIndex(), buffer.writerIndex());
    }

    /**
     * Moves to the next batch.
     *
     * @return {@code true} if a complete batch is now at {@link #batch()}; {@code false} at the end of the
     *         region or at a partial trailing batch ({@link #hasPartialBatch()})
     * @throws CorruptRecordException if the bytes at {@link #position()} cannot start a batch
     */
    public boolean next() {
        int available = limit - position;
        if (available < RecordBatch.LOG_OVERHEAD) {
            return false;
        }
        int length = buffer.getInt(position + RecordBatch.LENGTH_OFFSET);
        if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
            throw new CorruptRecordException("record batch at index " + position + " has length " + length
                    + ", less than a batch header");
        }
        if (available > RecordBatch.MAGIC_OFFSET) {
            byte magic = buffer.getByte(position + RecordBatch.MAGIC_OFFSET);
            if (magic != RecordBatch.MAGIC) {
                throw new CorruptRecordException("record batch at index " + position + " has magic " + magic);
            }
        }
        if (length > available - RecordBatch.LOG_OVERHEAD) {
            return false;
        }
        batch.wrap(buffer, position);
        position += RecordBatch.LOG_OVERHEAD + length;
        return true;
    }

    /** The batch the last successful {@link #next()} moved to. */
    public RecordBatch batch() {
        return batch;
    }

    /**
     * Absolute index just after the last batch returned; once {@link #next()} has returned {@code false},
     * where the unread (partial) bytes start.
     */
    public int position() {
        return position;
    }

    /** Bytes from {@link #position()} to the end of the region. */
    public int remaining() {
        return limit - position;
    }

    /** Whether bytes are left that do not form a complete batch (meaningful once {@link #next()} returned false). */
    public boolean hasPartialBatch() {
        return position < limit;
    }
}
