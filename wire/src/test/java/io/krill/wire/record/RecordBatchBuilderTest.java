package io.krill.wire.record;

import static io.krill.wire.record.KafkaFixtures.assertSameBatch;
import static io.krill.wire.record.KafkaFixtures.kafkaRecords;
import static io.krill.wire.record.KafkaFixtures.krillRecords;
import static io.krill.wire.record.KafkaFixtures.randomRecords;
import static io.krill.wire.record.KafkaFixtures.readable;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.KafkaFixtures.Rec;
import io.krill.wire.record.compression.Compression;
import io.krill.wire.record.compression.GzipCompression;
import io.krill.wire.record.compression.Lz4Compression;
import io.krill.wire.record.compression.ZstdCompression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Batches built by Krill are read by kafka-clients as written (and by Krill the same way). */
class RecordBatchBuilderTest {
    private static final long NOW = 1_700_000_000_000L;

    /** Kafka's single batch of {@code buffer}, checked valid with Kafka's own CRC and structure checks. */
    private static MutableRecordBatch kafkaBatch(ByteBuf buffer) {
        MemoryRecords records = readable(buffer);
        Iterator<MutableRecordBatch> batches = records.batches().iterator();
        MutableRecordBatch batch = batches.next();
        assertFalse(batches.hasNext());
        batch.ensureValid();
        assertEquals(buffer.readableBytes(), records.sizeInBytes());
        return batch;
    }

    private static List<Rec> expected(List<Rec> written, long baseOffset, long logAppendTime) {
        List<Rec> expected = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            Rec rec = written.get(i);
            expected.add(new Rec(baseOffset + i, logAppendTime >= 0 ? logAppendTime : rec.timestamp(), rec.key(),
                    rec.value(), rec.headers()));
        }
        return expected;
    }

    private static void appendAll(RecordBatchBuilder builder, List<Rec> records) {
        for (Rec rec : records) {
            builder.append(rec.timestamp(), rec.key(), rec.value(), rec.headers().toArray(new Header[0]));
        }
    }

    private static void assertBothRead(ByteBuf built, List<Rec> expected) {
        MutableRecordBatch kafka = kafkaBatch(built);
        assertEquals(expected, kafkaRecords(kafka));
        RecordBatch batch = new RecordBatch().wrap(built, built.readerIndex());
        batch.validate(built.readableBytes());
        assertSameBatch(kafka, batch);
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void plainBatchOfEveryCodec(CompressionType codec) {
        List<Rec> written = randomRecords(new Random(codec.ordinal()), 200, NOW);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(4000).compression(codec).partitionLeaderEpoch(6);
            appendAll(builder, written);
            ByteBuf built = builder.build();
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertEquals(codec.id, kafka.compressionType().id);
                assertEquals(6, kafka.partitionLeaderEpoch());
                assertEquals(4199, kafka.lastOffset());
                assertEquals(written.stream().mapToLong(Rec::timestamp).max().getAsLong(), kafka.maxTimestamp());
                assertEquals(-1, kafka.producerId());
                assertBothRead(built, expected(written, 4000, -1));
            } finally {
                built.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void transactionalIdempotentLogAppendTime(CompressionType codec) {
        List<Rec> written = randomRecords(new Random(10 + codec.ordinal()), 50, NOW);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(1L << 33).compression(codec).producer(12345, (short) 3, Integer.MAX_VALUE - 10)
                    .transactional(true).logAppendTime(NOW + 5);
            appendAll(builder, written);
            ByteBuf built = builder.build();
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertTrue(kafka.isTransactional());
                assertFalse(kafka.isControlBatch());
                assertEquals(12345, kafka.producerId());
                assertEquals(3, kafka.producerEpoch());
                assertEquals(Integer.MAX_VALUE - 10, kafka.baseSequence());
                assertEquals(38, kafka.lastSequence());
                assertEquals(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, kafka.timestampType());
                assertEquals(NOW + 5, kafka.maxTimestamp());
                assertBothRead(built, expected(written, 1L << 33, NOW + 5));
            } finally {
                built.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = ControlRecordType.class, names = {"COMMIT", "ABORT"})
    void endTransactionMarker(ControlRecordType type) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(900).producer(77, (short) 2, RecordBatch.NO_SEQUENCE).partitionLeaderEpoch(4)
                    .appendEndTransactionMarker(NOW, type, 31);
            ByteBuf built = builder.build();
            ByteBuf expectedBytes = Unpooled.wrappedBuffer(MemoryRecords.withEndTransactionMarker(900, NOW, 4, 77,
                    (short) 2, new EndTransactionMarker(
                            org.apache.kafka.common.record.internal.ControlRecordType.valueOf(type.name()), 31)).buffer());
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertTrue(kafka.isControlBatch());
                assertTrue(kafka.isTransactional());
                org.apache.kafka.common.record.internal.Record record = kafka.iterator().next();
                EndTransactionMarker marker = EndTransactionMarker.deserialize(record);
                assertEquals(type.name(), marker.controlType().name());
                assertEquals(31, marker.coordinatorEpoch());
                // Byte for byte what Kafka's own marker batch is.
                assertArrayEquals(ByteBufUtil.getBytes(expectedBytes), ByteBufUtil.getBytes(built));
                new RecordBatch().wrap(built, 0).forEachRecord(r -> {
                    assertEquals(type, ControlRecords.type(r));
                    assertEquals(31, ControlRecords.coordinatorEpoch(r));
                    return true;
                });
            } finally {
                built.release();
            }
        }
    }

    @Test
    void controlRecordOfAnyType() {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(3).appendControlRecord(NOW, ControlRecordType.LEADER_CHANGE,
                    Unpooled.wrappedBuffer(new byte[] {0, 0, 1, 2}));
            ByteBuf built = builder.build();
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertTrue(kafka.isControlBatch());
                assertFalse(kafka.isTransactional());
                org.apache.kafka.common.record.internal.Record record = kafka.iterator().next();
                assertEquals(org.apache.kafka.common.record.internal.ControlRecordType.LEADER_CHANGE,
                        org.apache.kafka.common.record.internal.ControlRecordType.parse(record.key()));
                new RecordBatch().wrap(built, 0).forEachRecord(r -> {
                    assertEquals(ControlRecordType.LEADER_CHANGE, ControlRecords.type(r));
                    assertThrows(CorruptRecordException.class, () -> ControlRecords.coordinatorEpoch(r));
                    return true;
                });
            } finally {
                built.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void explicitOffsetDeltasWithGapsKeepLastOffsetDelta(CompressionType codec) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(100).compression(codec).producer(5, (short) 0, 0).lastOffsetDelta(19);
            builder.appendWithOffsetDelta(0, NOW, "k0".getBytes(), "v0".getBytes());
            builder.appendWithOffsetDelta(7, NOW + 7, (byte[]) null, "v7".getBytes(), new Header("h", null));
            builder.appendWithOffsetDelta(12, NOW + 1, "k12".getBytes(), null);
            ByteBuf built = builder.build();
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertEquals(119, kafka.lastOffset());
                assertEquals(19, kafka.lastSequence());
                assertEquals(3, kafka.countOrNull());
                assertEquals(NOW + 7, kafka.maxTimestamp());
                List<Long> offsets = new ArrayList<>();
                kafka.forEach(record -> offsets.add(record.offset()));
                assertEquals(List.of(100L, 107L, 112L), offsets);
                RecordBatch batch = new RecordBatch().wrap(built, 0);
                batch.validate(built.readableBytes());
                assertFalse(batch.hasContiguousOffsets());
                assertSameBatch(kafka, batch);
            } finally {
                built.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void emptyBatchKeepsProducerStateAndSpan(CompressionType codec) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(50).compression(codec).producer(9, (short) 1, 40).transactional(true)
                    .lastOffsetDelta(9).baseTimestamp(NOW).maxTimestamp(NOW + 3);
            ByteBuf built = builder.build();
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertEquals(59, kafka.lastOffset());
                assertEquals(49, kafka.lastSequence());
                assertEquals(0, kafka.countOrNull());
                assertEquals(NOW + 3, kafka.maxTimestamp());
                assertFalse(kafka.iterator().hasNext());
                RecordBatch batch = new RecordBatch().wrap(built, 0);
                batch.validate(built.readableBytes());
                assertSameBatch(kafka, batch);
            } finally {
                built.release();
            }
        }
    }

    @Test
    void deleteHorizon() {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.deleteHorizon(NOW + 1000).append(NOW, "k".getBytes(), null).append(NOW + 2, "k2".getBytes(), null);
            ByteBuf built = builder.build();
            try {
                MutableRecordBatch kafka = kafkaBatch(built);
                assertEquals(NOW + 1000, kafka.deleteHorizonMs().getAsLong());
                assertBothRead(built, List.of(new Rec(0, NOW, "k".getBytes(), null, List.of()),
                        new Rec(1, NOW + 2, "k2".getBytes(), null, List.of())));
            } finally {
                built.release();
            }
            assertThrows(IllegalStateException.class, () -> builder.deleteHorizon(NOW));
        }
    }

    @Test
    void codecLevels() {
        List<Rec> written = randomRecords(new Random(3), 100, NOW);
        for (Compression codec : List.of(new GzipCompression(1), new GzipCompression(9), new Lz4Compression(1),
                new Lz4Compression(17), new ZstdCompression(-5), new ZstdCompression(19))) {
            try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
                builder.compression(codec);
                appendAll(builder, written);
                ByteBuf built = builder.build();
                try {
                    assertBothRead(built, expected(written, 0, -1));
                } finally {
                    built.release();
                }
            }
        }
    }

    /** The compactor's path: read a batch, keep some records, copy them with their offsets and bytes. */
    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void appendCopyOfKeepsRecordsByteForByte(CompressionType codec) {
        List<Rec> written = randomRecords(new Random(20 + codec.ordinal()), 60, NOW);
        try (RecordBatchBuilder source = new RecordBatchBuilder(); RecordBatchBuilder compacted = new RecordBatchBuilder()) {
            source.baseOffset(1000).compression(codec);
            appendAll(source, written);
            ByteBuf original = source.build();
            try {
                RecordBatch batch = new RecordBatch().wrap(original, 0);
                compacted.baseOffset(batch.baseOffset()).compression(CompressionType.ZSTD)
                        .lastOffsetDelta(batch.lastOffsetDelta());
                List<Rec> kept = new ArrayList<>();
                try (DecompressionBuffer scratch = new DecompressionBuffer()) {
                    batch.forEachRecord(record -> {
                        if (record.offsetDelta() % 3 == 0) {
                            compacted.appendCopyOf(record);
                            kept.add(KafkaFixtures.snapshot(record));
                        }
                        return true;
                    }, scratch);
                }
                ByteBuf rewritten = compacted.build();
                try {
                    MutableRecordBatch kafka = kafkaBatch(rewritten);
                    assertEquals(1059, kafka.lastOffset());
                    assertEquals(kept, kafkaRecords(kafka));
                    RecordBatch copy = new RecordBatch().wrap(rewritten, 0);
                    assertEquals(kept, krillRecords(copy));
                } finally {
                    rewritten.release();
                }
            } finally {
                original.release();
            }
        }
    }

    @Test
    void rejectsNonIncreasingDeltasAndShortSpan() {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.appendWithOffsetDelta(5, NOW, (byte[]) null, null);
            assertThrows(IllegalArgumentException.class, () -> builder.appendWithOffsetDelta(5, NOW, (byte[]) null, null));
            builder.lastOffsetDelta(3);
            assertThrows(IllegalStateException.class, builder::build);
        }
    }

    @Test
    void buildIntoAppendsAndResetReuses() {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            ByteBuf out = Unpooled.buffer();
            try {
                buildTwice(builder, out);
            } finally {
                out.release();
            }
        }
    }

    private static void buildTwice(RecordBatchBuilder builder, ByteBuf out) {
        builder.baseOffset(0).append(NOW, "a".getBytes(), "1".getBytes());
        int first = builder.buildInto(out);
        builder.reset().baseOffset(1).compression(CompressionType.LZ4).append(NOW, "b".getBytes(), "2".getBytes());
        int second = builder.buildInto(out);
        assertEquals(first + second, out.readableBytes());
        List<Long> offsets = new ArrayList<>();
        RecordBatches.forEach(out, 0, out.writerIndex(), batch -> {
            batch.validate(batch.sizeInBytes());
            batch.forEachRecord(record -> offsets.add(record.offset()) || true);
            return true;
        });
        assertEquals(List.of(0L, 1L), offsets);
        int kafkaBatches = 0;
        for (MutableRecordBatch batch : readable(out).batches()) {
            batch.ensureValid();
            kafkaBatches++;
        }
        assertEquals(2, kafkaBatches);
    }
}
