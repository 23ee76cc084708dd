package io.krill.wire.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The record flyweight: one instance per batch flyweight, no allocation per record, header access. */
class RecordIterationTest {
    private static final long NOW = 1_700_000_000_000L;

    private static ByteBuf batch(CompressionType codec, int records) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(10).compression(codec);
            for (int i = 0; i < records; i++) {
                builder.append(NOW + i, ("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[100],
                        new Header("a", "1".getBytes(StandardCharsets.UTF_8)), new Header("b", null),
                        new Header("c\u00e9", new byte[0]));
            }
            return builder.build();
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void visitorSeesOneReusedRecordInstance(CompressionType codec) {
        ByteBuf buffer = batch(codec, 50);
        try (DecompressionBuffer scratch = new DecompressionBuffer()) {
            RecordBatch batch = new RecordBatch().wrap(buffer, 0);
            Map<Record, Boolean> seen = new IdentityHashMap<>();
            List<Long> offsets = new ArrayList<>();
            for (int pass = 0; pass < 2; pass++) {
                assertTrue(batch.forEachRecord(record -> {
                    seen.put(record, true);
                    offsets.add(record.offset());
                    return true;
                }, scratch));
            }
            assertEquals(1, seen.size());
            assertEquals(100, offsets.size());
            assertEquals(10L, offsets.get(0));
            assertEquals(59L, offsets.get(49));
        } finally {
            buffer.release();
        }
    }

    @Test
    void validationAndUncompressedIterationAllocateNothing() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        int records = 500;
        ByteBuf built = batch(CompressionType.NONE, records);
        // A plain heap copy: the pooled buffer is leak-tracked (paranoid in tests), which records every access.
        ByteBuf buffer = Unpooled.wrappedBuffer(ByteBufUtil.getBytes(built));
        built.release();
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        long[] sink = new long[1];
        RecordVisitor visitor = record -> {
            sink[0] += record.offset() + record.timestamp() + record.keySize() + record.valueSize()
                    + record.headerCount();
            return true;
        };
        int size = buffer.readableBytes();
        for (int i = 0; i < 2_000; i++) {
            batch.validate(size);
            batch.forEachRecord(visitor);
        }
        long thread = Thread.currentThread().getId();
        int rounds = 1_000;
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < rounds; i++) {
            batch.validate(size);
            batch.forEachRecord(visitor);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        // One object per record would be >= 16 B x 500,000 records, one per batch 16 KB; allow measurement noise only.
        assertTrue(allocated < 8 * 1024, allocated + " bytes allocated over " + rounds * records + " records");
        assertTrue(sink[0] != 0);
    }

    @Test
    void headersByIndexAndByVisitor() {
        ByteBuf buffer = batch(CompressionType.NONE, 1);
        try {
            new RecordBatch().wrap(buffer, 0).forEachRecord(record -> {
                assertEquals(3, record.headerCount());
                assertEquals("a", record.headerKey(0).toString(StandardCharsets.UTF_8));
                assertEquals("1", record.headerValue(0).toString(StandardCharsets.UTF_8));
                assertEquals("b", record.headerKey(1).toString(StandardCharsets.UTF_8));
                assertNull(record.headerValue(1));
                assertEquals("c\u00e9", record.headerKey(2).toString(StandardCharsets.UTF_8));
                assertEquals(0, record.headerValue(2).readableBytes());
                assertThrows(IndexOutOfBoundsException.class, () -> record.headerKey(3));
                List<String> keys = new ArrayList<>();
                assertFalse(record.forEachHeader((buf, keyIndex, keyLength, valueIndex, valueLength) -> {
                    keys.add(buf.toString(keyIndex, keyLength, StandardCharsets.UTF_8));
                    return keys.size() < 2;
                }));
                assertEquals(List.of("a", "b"), keys);
                assertEquals("key-0", record.key().toString(StandardCharsets.UTF_8));
                assertSame(buffer, record.buffer());
                assertEquals('k', buffer.getByte(record.keyIndex()));
                assertEquals(100, record.valueSize());
                assertEquals(0, record.timestampDelta());
                assertEquals(NOW, record.timestamp());
                return true;
            });
        } finally {
            buffer.release();
        }
    }

    @Test
    void compositeBufferReadsTheSame() {
        ByteBuf built = batch(CompressionType.NONE, 20);
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        try {
            int half = built.readableBytes() / 2;
            composite.addComponent(true, built.retainedSlice(0, half));
            composite.addComponent(true, built.retainedSlice(half, built.readableBytes() - half));
            RecordBatch whole = new RecordBatch().wrap(built, 0);
            RecordBatch split = new RecordBatch().wrap(composite, 0);
            assertEquals(2, composite.nioBufferCount());
            split.validate(composite.readableBytes());
            assertEquals(whole.computeCrc(), split.computeCrc());
            assertEquals(KafkaFixtures.krillRecords(whole), KafkaFixtures.krillRecords(split));
        } finally {
            composite.release();
            built.release();
        }
    }

    @Test
    void visitorCanStopEarly() {
        ByteBuf buffer = batch(CompressionType.SNAPPY, 10);
        try {
            List<Long> offsets = new ArrayList<>();
            assertFalse(new RecordBatch().wrap(buffer, 0).forEachRecord(record -> offsets.add(record.offset())
                    && offsets.size() < 3));
            assertEquals(List.of(10L, 11L, 12L), offsets);
        } finally {
            buffer.release();
        }
    }
}
