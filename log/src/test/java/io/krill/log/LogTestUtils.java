package io.krill.log;

import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Helpers to read a log back in tests. */
final class LogTestUtils {
    private LogTestUtils() {
    }

    /** A batch read back: its offsets and bytes. */
    record ReadBatch(long baseOffset, long lastOffset, byte[] bytes) {
    }

    static List<ReadBatch> batches(ByteBuf buf) {
        List<ReadBatch> out = new ArrayList<>();
        RecordBatch b = new RecordBatch();
        int i = buf.readerIndex();
        while (i < buf.writerIndex()) {
            b.wrap(buf, i);
            byte[] bytes = new byte[b.sizeInBytes()];
            buf.getBytes(i, bytes);
            out.add(new ReadBatch(b.baseOffset(), b.lastOffset(), bytes));
            i += b.sizeInBytes();
        }
        return out;
    }

    /** Every batch from {@code from} to the end, read with modest maxBytes to exercise paging. */
    static List<ReadBatch> readAll(PartitionLog log, long from) throws IOException {
        List<ReadBatch> out = new ArrayList<>();
        long offset = from;
        while (offset < log.logEndOffset()) {
            try (LogReadResult r = log.read(offset, 4096, Long.MAX_VALUE, true)) {
                if (r.isEmpty()) {
                    break;
                }
                List<ReadBatch> got = batches(r.records().readAll());
                out.addAll(got);
                offset = r.nextOffset();
            }
        }
        return out;
    }
}
