package io.krill.broker.share;

import io.krill.log.FileSlice;
import io.krill.wire.record.RecordBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The batch headers of a log read, which a share fetch needs to know which offsets it hands out: each
 * batch's offsets, producer, and whether it is transactional or a control batch. Only the 61-byte header
 * of each batch is read from the file (one positional read per batch); the records are never decoded, and
 * the batches themselves go to the client from the file (sendfile).
 *
 * <p>Thread-safety: stateless.
 */
final class BatchHeaders {
    /** One batch of a read. */
    record Header(long baseOffset, long lastOffset, long producerId, boolean transactional, boolean control) {
    }

    private BatchHeaders() {
    }

    /** The headers of every batch in {@code slice}, in order. */
    static List<Header> of(FileSlice slice) {
        List<Header> headers = new ArrayList<>();
        ByteBuffer header = ByteBuffer.allocate(RecordBatch.HEADER_SIZE);
        long position = 0;
        try {
            while (position + RecordBatch.HEADER_SIZE <= slice.sizeInBytes()) {
                header.clear();
                slice.read(header, position);
                long base = header.getLong(RecordBatch.BASE_OFFSET_OFFSET);
                int length = header.getInt(RecordBatch.LENGTH_OFFSET);
                short attributes = header.getShort(RecordBatch.ATTRIBUTES_OFFSET);
                int lastDelta = header.getInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET);
                long producerId = header.getLong(RecordBatch.PRODUCER_ID_OFFSET);
                if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
                    break; // the log checked every batch on append; a torn tail ends the read
                }
                headers.add(new Header(base, base + lastDelta, producerId, (attributes & 0x10) != 0,
                        (attributes & 0x20) != 0));
                position += RecordBatch.LOG_OVERHEAD + (long) length;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return headers;
    }
}
