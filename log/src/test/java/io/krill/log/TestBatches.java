package io.krill.log;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test batches through wire's {@link RecordBatchBuilder}: a fluent front with the defaults the log tests
 * use (heap buffers without leak tracking: tests hand batches to the log and drop them).
 */
final class TestBatches {
    private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false, true);

    private record Rec(byte[] key, byte[] value, long timestamp, int offsetDelta) {
    }

    private final List<Rec> records = new ArrayList<>();
    private long baseOffset;
    private int epoch = -1;
    private long producerId = -1;
    private short producerEpoch = -1;
    private int baseSequence = -1;
    private boolean transactional;
    private Integer lastOffsetDelta;
    private CompressionType compression = CompressionType.NONE;

    static TestBatches batch() {
        return new TestBatches();
    }

    TestBatches baseOffset(long v) { baseOffset = v; return this; }
    TestBatches epoch(int v) { epoch = v; return this; }
    TestBatches producer(long id, short ep, int seq) { producerId = id; producerEpoch = ep; baseSequence = seq; return this; }
    TestBatches transactional() { transactional = true; return this; }
    TestBatches lastOffsetDelta(int v) { lastOffsetDelta = v; return this; }
    TestBatches compression(CompressionType v) { compression = v; return this; }

    TestBatches add(String key, String value, long timestamp) {
        return add(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8), timestamp,
                records.isEmpty() ? 0 : records.get(records.size() - 1).offsetDelta() + 1);
    }

    TestBatches add(byte[] key, byte[] value, long timestamp, int offsetDelta) {
        records.add(new Rec(key, value, timestamp, offsetDelta));
        return this;
    }

    /** {@code n} records of {@code valueSize} bytes with null keys. */
    TestBatches records(int n, int valueSize, long timestamp) {
        for (int i = 0; i < n; i++) {
            add(null, new byte[valueSize], timestamp, i);
        }
        return this;
    }

    /** Two plain records. */
    static ByteBuf records() {
        return batch().records(2, 8, 1000).build();
    }

    /** A commit (or abort) marker from {@code pid}. */
    static ByteBuf marker(long pid, short producerEpoch, boolean commit, int coordinatorEpoch, long timestamp) {
        try (RecordBatchBuilder b = new RecordBatchBuilder(HEAP)) {
            b.producer(pid, producerEpoch, -1)
                    .appendEndTransactionMarker(timestamp, commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                            coordinatorEpoch);
            return b.build();
        }
    }

    ByteBuf build() {
        try (RecordBatchBuilder b = new RecordBatchBuilder(HEAP)) {
            b.baseOffset(baseOffset).partitionLeaderEpoch(epoch).producer(producerId, producerEpoch, baseSequence)
                    .transactional(transactional).compression(compression);
            for (Rec r : records) {
                b.appendWithOffsetDelta(r.offsetDelta(), r.timestamp(), r.key(), r.value());
            }
            if (lastOffsetDelta != null) {
                b.lastOffsetDelta(lastOffsetDelta);
            }
            return b.build();
        }
    }

    static ByteBuf concat(List<ByteBuf> batches) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b : batches) {
            all.writeBytes(b, b.readerIndex(), b.readableBytes());
        }
        return all;
    }
}
