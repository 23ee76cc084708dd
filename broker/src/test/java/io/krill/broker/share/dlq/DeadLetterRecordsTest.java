package io.krill.broker.share.dlq;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.share.dlq.DeadLetterRecords.Batch;
import io.krill.broker.share.dlq.DeadLetterRecords.Original;
import io.krill.broker.share.dlq.DeadLetterRecords.Originals;
import io.krill.log.TopicPartition;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.Header;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter records as Kafka 4.4 writes them: one per offset, headers in order with their values, key and
 * value only when copied (originals' headers never), batches bounded by the topic's max.message.bytes; and the
 * originals read back from batches of the source log (compressed, with gaps, control batches, a byte budget).
 */
class DeadLetterRecordsTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final DeadLetters LETTERS = new DeadLetters("g1", new TopicPartition("orders", 3), UUID.randomUUID(),
            10, 12, (short) 5, DeadLetterCause.REJECTED);

    /** A record read back from a built batch. */
    record Read(long offsetDelta, long timestamp, byte[] key, byte[] value, Map<String, String> headers) {
    }

    private static List<Read> records(Batch batch) {
        ByteBuf buf = Unpooled.wrappedBuffer(batch.bytes());
        RecordBatch view = new RecordBatch().wrap(buf, 0);
        assertTrue(view.isCrcValid());
        assertEquals(CompressionType.NONE, view.compression());
        assertFalse(view.hasProducerId());
        assertEquals(batch.bytes().length, view.sizeInBytes());
        List<Read> out = new ArrayList<>();
        view.forEachRecord(r -> {
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 0; i < r.headerCount(); i++) {
                headers.put(r.headerKey(i).toString(StandardCharsets.UTF_8),
                        r.headerValue(i).toString(StandardCharsets.UTF_8));
            }
            out.add(new Read(r.offsetDelta(), r.timestamp(), r.hasKey() ? ByteBufUtil.getBytes(r.key()) : null,
                    r.hasValue() ? ByteBufUtil.getBytes(r.value()) : null, headers));
            return true;
        });
        assertEquals(batch.recordCount(), out.size());
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void oneRecordPerOffsetWithKafkasHeadersInOrderAndNoKeyOrValue() {
        Batch batch = DeadLetterRecords.nextBatch(LETTERS, 10, Originals.none(12), NOW, 1024 * 1024);
        assertEquals(10, batch.firstOffset());
        assertEquals(12, batch.lastOffset());
        List<Read> read = records(batch);
        for (int i = 0; i < 3; i++) {
            Read r = read.get(i);
            assertEquals(i, r.offsetDelta());
            assertEquals(NOW, r.timestamp());
            assertNull(r.key());
            assertNull(r.value());
            assertEquals(List.of("__dlq.errors.topic", "__dlq.errors.partition", "__dlq.errors.offset",
                    "__dlq.errors.group", "__dlq.errors.delivery.count", "__dlq.errors.message"),
                    new ArrayList<>(r.headers().keySet()));
            assertEquals(Map.of("__dlq.errors.topic", "orders", "__dlq.errors.partition", "3",
                    "__dlq.errors.offset", Long.toString(10 + i), "__dlq.errors.group", "g1",
                    "__dlq.errors.delivery.count", "5", "__dlq.errors.message", "Offset rejected by client."),
                    r.headers());
        }
        DeadLetters exceeded = new DeadLetters("g1", new TopicPartition("orders", 3), UUID.randomUUID(), 7, 7,
                (short) 6, DeadLetterCause.DELIVERY_COUNT_EXCEEDED);
        assertEquals("Offset delivery count exceeded the threshold.", records(DeadLetterRecords.nextBatch(exceeded, 7,
                Originals.none(7), NOW, 1000)).get(0).headers().get("__dlq.errors.message"));
    }

    @Test
    void copiedRecordsCarryTheOriginalKeyAndValueAndMissingOnesTheHeadersAlone() {
        NavigableMap<Long, Original> originals = new TreeMap<>();
        originals.put(10L, new Original(bytes("k10"), bytes("v10")));
        originals.put(12L, new Original(null, bytes("v12")));
        List<Read> read = records(DeadLetterRecords.nextBatch(LETTERS, 10, new Originals(originals, 12), NOW, 1 << 20));
        assertArrayEquals(bytes("k10"), read.get(0).key());
        assertArrayEquals(bytes("v10"), read.get(0).value());
        assertNull(read.get(1).key(), "offset 11 was not readable");
        assertNull(read.get(1).value());
        assertEquals("11", read.get(1).headers().get("__dlq.errors.offset"));
        assertNull(read.get(2).key());
        assertArrayEquals(bytes("v12"), read.get(2).value());
        assertEquals(6, read.get(2).headers().size(), "only the dead-letter headers");
    }

    @Test
    void aBatchStopsWhereTheOriginalsRead() {
        Batch batch = DeadLetterRecords.nextBatch(LETTERS, 10, Originals.none(10), NOW, 1 << 20);
        assertEquals(10, batch.lastOffset(), "offsets past coveredTo wait for the next read");
        assertEquals(11, DeadLetterRecords.nextBatch(LETTERS, 11, Originals.none(LETTERS.lastOffset()), NOW, 1 << 20)
                .firstOffset());
    }

    @Test
    void batchesStayWithinMaxMessageBytesWithAtLeastOneRecordEach() {
        DeadLetters many = new DeadLetters("group", new TopicPartition("t", 0), UUID.randomUUID(), 0, 999, (short) 1,
                DeadLetterCause.DELIVERY_COUNT_EXCEEDED);
        NavigableMap<Long, Original> originals = new TreeMap<>();
        for (long o = 0; o <= 999; o++) {
            originals.put(o, new Original(bytes("key-" + o), new byte[(int) (o % 300)]));
        }
        Originals all = new Originals(originals, 999);
        for (int max : new int[] {4096, 1500, 700}) {
            long next = 0;
            int batches = 0;
            while (next <= 999) {
                Batch batch = DeadLetterRecords.nextBatch(many, next, all, NOW, max);
                assertEquals(next, batch.firstOffset());
                assertTrue(batch.bytes().length <= max, batch.bytes().length + " > " + max);
                List<Read> read = records(batch);
                for (int i = 0; i < read.size(); i++) {
                    assertEquals(Long.toString(next + i), read.get(i).headers().get("__dlq.errors.offset"));
                    assertEquals((next + i) % 300, read.get(i).value().length);
                }
                if (batch.lastOffset() < 999) {
                    // the next record would not have fitted
                    Batch withOneMore = DeadLetterRecords.nextBatch(many, next, new Originals(originals,
                            batch.lastOffset() + 1), NOW, Integer.MAX_VALUE);
                    assertTrue(withOneMore.bytes().length > max);
                }
                next = batch.lastOffset() + 1;
                batches++;
            }
            assertTrue(batches > 1, "max " + max + " splits 1,000 records");
        }
        Batch alone = DeadLetterRecords.nextBatch(many, 0, all, NOW, 10);
        assertEquals(1, alone.recordCount(), "a record larger than the bound goes alone");
    }

    @Test
    void theRecordSizeIsTheBuildersEncoding() {
        Header[] headers = DeadLetterRecords.headers(LETTERS, 12345678901L);
        for (int delta : new int[] {0, 1, 63, 64, 8191, 8192, 100_000}) {
            for (int valueSize : new int[] {0, 1, 63, 64, 200, 20_000}) {
                try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
                    builder.baseTimestamp(NOW).appendWithOffsetDelta(delta, NOW, bytes("k"), new byte[valueSize], headers);
                    assertEquals(builder.uncompressedSizeInBytes() - RecordBatch.HEADER_SIZE,
                            DeadLetterRecords.recordSize(delta, bytes("k"), new byte[valueSize], headers));
                }
            }
        }
    }

    // ---------------------------------------------------------------- originals from the source log's batches

    private static void batch(ByteBuf out, long baseOffset, CompressionType compression, long... offsets) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(baseOffset).compression(compression);
            for (long offset : offsets) {
                builder.appendWithOffsetDelta((int) (offset - baseOffset), NOW, bytes("k" + offset), bytes("v" + offset),
                        new Header("original", bytes("h")));
            }
            builder.buildInto(out);
        }
    }

    @Test
    void originalsComeOutOfCompressedBatchesAndGapsHaveNone() {
        ByteBuf log = Unpooled.buffer();
        batch(log, 0, CompressionType.ZSTD, 0, 1, 2, 3);
        batch(log, 4, CompressionType.GZIP, 4, 6, 7); // 5 compacted away
        batch(log, 8, CompressionType.LZ4, 8, 9);
        batch(log, 10, CompressionType.NONE, 10, 11, 12);
        NavigableMap<Long, Original> found = new TreeMap<>();
        OriginalRecords.Collected collected = OriginalRecords.collect(log, 2, 9, 1 << 20, found);
        assertEquals(9, collected.coveredTo());
        assertFalse(collected.full());
        assertEquals(List.of(2L, 3L, 4L, 6L, 7L, 8L, 9L), new ArrayList<>(found.keySet()));
        assertArrayEquals(bytes("k6"), found.get(6L).key());
        assertArrayEquals(bytes("v8"), found.get(8L).value());

        // the dead-letter batch of 2..9 from them: 5 has the headers alone, no original header anywhere
        DeadLetters letters = new DeadLetters("g", new TopicPartition("src", 0), UUID.randomUUID(), 2, 9, (short) 2,
                DeadLetterCause.REJECTED);
        List<Read> read = records(DeadLetterRecords.nextBatch(letters, 2, new Originals(found, collected.coveredTo()),
                NOW, 1 << 20));
        assertEquals(8, read.size());
        assertArrayEquals(bytes("v4"), read.get(2).value());
        assertNull(read.get(3).key());
        assertNull(read.get(3).value());
        assertArrayEquals(bytes("k9"), read.get(7).key());
        read.forEach(r -> assertFalse(r.headers().containsKey("original")));
    }

    @Test
    void aControlBatchHasNoOriginalsAndTheBudgetStopsTheRead() {
        ByteBuf log = Unpooled.buffer();
        batch(log, 0, CompressionType.SNAPPY, 0, 1);
        try (RecordBatchBuilder marker = new RecordBatchBuilder()) {
            marker.baseOffset(2).producer(7, (short) 0, -1).appendEndTransactionMarker(NOW, ControlRecordType.COMMIT, 0);
            marker.buildInto(log);
        }
        batch(log, 3, CompressionType.NONE, 3, 4, 5);
        NavigableMap<Long, Original> found = new TreeMap<>();
        OriginalRecords.Collected all = OriginalRecords.collect(log, 0, 5, 1 << 20, found);
        assertEquals(5, all.coveredTo());
        assertEquals(List.of(0L, 1L, 3L, 4L, 5L), new ArrayList<>(found.keySet()));

        // each original is 4 bytes (k0 + v0): a budget of 9 takes two, the third would pass it
        found.clear();
        OriginalRecords.Collected some = OriginalRecords.collect(log, 1, 5, 9, found);
        assertTrue(some.full());
        assertEquals(3, some.coveredTo(), "1 and 3 taken (2 is a marker), 4 left for the next read");
        assertEquals(List.of(1L, 3L), new ArrayList<>(found.keySet()));
        found.clear();
        OriginalRecords.Collected one = OriginalRecords.collect(log, 4, 5, 1, found);
        assertEquals(4, one.coveredTo(), "the first record is taken whatever the budget");
        assertEquals(List.of(4L), new ArrayList<>(found.keySet()));
    }
}
