package io.krill.log;

import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test-only builder of uncompressed v2 record batches (correct CRC-32C), until wire's RecordBatchBuilder
 * lands. Records have no headers. Offsets deltas may have gaps (compacted batches).
 */
final class TestBatches {
    record Rec(byte[] key, byte[] value, long timestamp, int offsetDelta) {
    }

    private final List<Rec> records = new ArrayList<>();
    private long baseOffset;
    private int epoch = -1;
    private long producerId = -1;
    private short producerEpoch = -1;
    private int baseSequence = -1;
    private boolean transactional;
    private boolean control;
    private Integer lastOffsetDelta;

    static TestBatches batch() {
        return new TestBatches();
    }

    TestBatches baseOffset(long v) { baseOffset = v; return this; }
    TestBatches epoch(int v) { epoch = v; return this; }
    TestBatches producer(long id, short ep, int seq) { producerId = id; producerEpoch = ep; baseSequence = seq; return this; }
    TestBatches transactional() { transactional = true; return this; }
    TestBatches lastOffsetDelta(int v) { lastOffsetDelta = v; return this; }

    TestBatches add(String key, String value, long timestamp) {
        return add(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8), timestamp, records.size() == 0 ? 0
                        : records.get(records.size() - 1).offsetDelta() + 1);
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
        ByteBuffer key = ByteBuffer.allocate(4).putShort((short) 0).putShort((short) (commit ? 1 : 0));
        ByteBuffer value = ByteBuffer.allocate(6).putShort((short) 0).putInt(coordinatorEpoch);
        TestBatches b = new TestBatches();
        b.producerId = pid;
        b.producerEpoch = producerEpoch;
        b.baseSequence = -1;
        b.transactional = true;
        b.control = true;
        b.add(key.array(), value.array(), timestamp, 0);
        return b.build();
    }

    ByteBuf build() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        long baseTs = records.isEmpty() ? -1 : records.get(0).timestamp();
        long maxTs = -1;
        for (Rec r : records) {
            maxTs = Math.max(maxTs, r.timestamp());
            ByteArrayOutputStream rec = new ByteArrayOutputStream();
            rec.write(0);
            writeVarlong(rec, r.timestamp() - baseTs);
            writeVarlong(rec, r.offsetDelta());
            writeBytes(rec, r.key());
            writeBytes(rec, r.value());
            writeVarlong(rec, 0);
            writeVarlong(body, rec.size());
            body.writeBytes(rec.toByteArray());
        }
        int lod = lastOffsetDelta != null ? lastOffsetDelta
                : records.isEmpty() ? 0 : records.get(records.size() - 1).offsetDelta();
        int size = RecordBatch.HEADER_SIZE + body.size();
        ByteBuf buf = Unpooled.buffer(size);
        buf.writeLong(baseOffset);
        buf.writeInt(size - RecordBatch.LOG_OVERHEAD);
        buf.writeInt(epoch);
        buf.writeByte(RecordBatch.MAGIC);
        buf.writeInt(0);
        int attributes = (transactional ? 0x10 : 0) | (control ? 0x20 : 0);
        buf.writeShort(attributes);
        buf.writeInt(lod);
        buf.writeLong(baseTs);
        buf.writeLong(maxTs);
        buf.writeLong(producerId);
        buf.writeShort(producerEpoch);
        buf.writeInt(baseSequence);
        buf.writeInt(records.size());
        buf.writeBytes(body.toByteArray());
        long crc = RecordBatch.crc32c(buf, RecordBatch.ATTRIBUTES_OFFSET, size - RecordBatch.ATTRIBUTES_OFFSET);
        buf.setInt(RecordBatch.CRC_OFFSET, (int) crc);
        return buf;
    }

    static ByteBuf concat(List<ByteBuf> batches) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b : batches) {
            all.writeBytes(b, b.readerIndex(), b.readableBytes());
        }
        return all;
    }

    private static void writeBytes(ByteArrayOutputStream out, byte[] bytes) {
        if (bytes == null) {
            writeVarlong(out, -1);
        } else {
            writeVarlong(out, bytes.length);
            out.writeBytes(bytes);
        }
    }

    private static void writeVarlong(ByteArrayOutputStream out, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
