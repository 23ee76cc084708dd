package io.krill.log;

import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads a segment's batches in order, whole, through a reused heap buffer (recovery, replay, compaction,
 * record-level lookups). Stops at the end or at the first batch whose length field is implausible or
 * runs past the end ({@link #stoppedAtInvalidLength()}); validation beyond that (magic, CRC) is the
 * caller's. Not thread-safe; holds a reference on the segment's channel until {@link #close()}.
 */
final class BatchReader implements AutoCloseable {
    private final FileRecords.ChannelHandle handle;
    private final int end;
    private final RecordBatch batch = new RecordBatch();
    private ByteBuffer nio;
    private ByteBuf buf;
    /** File position of buffer index 0, and how many bytes of the buffer are filled. */
    private long bufferStart;
    private int filled;
    private int next;
    private int position = -1;
    private boolean invalidLength;

    BatchReader(FileRecords records, int start, int end, int bufferSize) throws IOException {
        this.handle = records.acquire();
        this.end = end;
        this.next = start;
        // No larger than the range: recovering thousands of empty or tiny segments allocates next to nothing.
        allocate(Math.max(Math.min(bufferSize, end - start), RecordBatch.HEADER_SIZE));
        bufferStart = start;
        filled = 0;
    }

    private void allocate(int size) {
        nio = ByteBuffer.allocate(size);
        buf = Unpooled.wrappedBuffer(nio.array());
    }

    /** Makes file bytes [pos, pos + len) available in the buffer; returns false if the file is shorter. */
    private boolean ensure(long pos, int len) throws IOException {
        if (pos >= bufferStart && pos + len <= bufferStart + filled) {
            return true;
        }
        if (len > nio.capacity()) {
            allocate(Math.max(len, nio.capacity() * 2));
        }
        nio.clear();
        int want = (int) Math.min(nio.capacity(), end - pos);
        nio.limit(Math.max(want, 0));
        int n = FileRecords.readFully(handle.channel, nio, pos);
        bufferStart = pos;
        filled = n;
        buf.setIndex(0, n);
        return n >= len;
    }

    /** The next whole batch (a flyweight over the internal buffer, valid until the next call), or null. */
    RecordBatch next() throws IOException {
        if (invalidLength || end - next < RecordBatch.LOG_OVERHEAD) {
            return null;
        }
        if (!ensure(next, RecordBatch.LOG_OVERHEAD)) {
            return null;
        }
        int length = buf.getInt((int) (next - bufferStart) + RecordBatch.LENGTH_OFFSET);
        long size = RecordBatch.LOG_OVERHEAD + (long) length;
        if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD || next + size > end) {
            invalidLength = true;
            return null;
        }
        if (!ensure(next, (int) size)) {
            invalidLength = true;
            return null;
        }
        position = next;
        next += (int) size;
        return batch.wrap(buf, (int) (position - bufferStart));
    }

    /** File position of the batch last returned by {@link #next()}. */
    int position() {
        return position;
    }

    /** File position after the last batch returned. */
    int nextPosition() {
        return next;
    }

    /** Whether reading stopped at a batch whose length is implausible or overruns the end. */
    boolean stoppedAtInvalidLength() {
        return invalidLength;
    }

    @Override
    public void close() {
        handle.release();
    }
}
