package io.krill.wire.record;

import static io.krill.wire.record.KafkaFixtures.kafkaBatch;
import static io.krill.wire.record.KafkaFixtures.randomRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.krill.wire.record.KafkaFixtures.Spec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Header-level corruption: every flipped byte the CRC covers is caught, every truncation is caught or framed as partial. */
class RecordBatchCorruptionTest {
    private static final long NOW = 1_700_000_000_000L;

    private static byte[] batchBytes(CompressionType codec, int records) {
        ByteBuffer batch = kafkaBatch(new Spec(codec, TimestampType.CREATE_TIME, 10, -1, 7, (short) 1, 0, true, 2, -1),
                randomRecords(new Random(codec.ordinal()), records, NOW));
        byte[] bytes = new byte[batch.remaining()];
        batch.get(bytes);
        return bytes;
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void everyFlippedByteInTheCrcRangeFailsValidation(CompressionType codec) {
        byte[] bytes = batchBytes(codec, 20);
        ByteBuf buffer = Unpooled.wrappedBuffer(bytes);
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        batch.validate(bytes.length);
        int caught = 0;
        for (int i = 0; i < bytes.length; i++) {
            for (int bit : new int[] {0x01, 0x80}) {
                bytes[i] ^= (byte) bit;
                boolean outsideCrc = i < RecordBatch.LENGTH_OFFSET
                        || (i >= RecordBatch.PARTITION_LEADER_EPOCH_OFFSET && i < RecordBatch.MAGIC_OFFSET);
                if (outsideCrc) {
                    batch.validate(bytes.length);
                } else {
                    assertThrows(CorruptRecordException.class, () -> batch.validate(bytes.length), "byte " + i);
                    caught++;
                }
                bytes[i] ^= (byte) bit;
            }
        }
        batch.validate(bytes.length);
        assertEquals(2 * (bytes.length - 8 - 4), caught);
    }

    @Test
    void baseOffsetAndLeaderEpochAreAssignedInPlaceWithoutTouchingTheCrc() {
        byte[] bytes = batchBytes(CompressionType.NONE, 5);
        ByteBuf buffer = Unpooled.wrappedBuffer(bytes);
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        long crc = batch.crc();
        batch.setBaseOffset(123_456_789L);
        batch.setPartitionLeaderEpoch(99);
        assertEquals(crc, batch.crc());
        batch.validate(bytes.length);
        List<Long> offsets = new ArrayList<>();
        batch.forEachRecord(record -> offsets.add(record.offset()));
        assertEquals(List.of(123_456_789L, 123_456_790L, 123_456_791L, 123_456_792L, 123_456_793L), offsets);
        // Kafka agrees.
        org.apache.kafka.common.record.internal.RecordBatch kafka =
                org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()
                        .iterator().next();
        kafka.ensureValid();
        assertEquals(123_456_789L, kafka.baseOffset());
        assertEquals(99, kafka.partitionLeaderEpoch());
    }

    @Test
    void settingLogAppendTimeRecomputesTheCrc() {
        byte[] bytes = batchBytes(CompressionType.LZ4, 5);
        ByteBuf buffer = Unpooled.wrappedBuffer(bytes);
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, NOW + 1);
        batch.validate(bytes.length);
        batch.forEachRecord(record -> {
            assertEquals(NOW + 1, record.timestamp());
            return true;
        });
        org.apache.kafka.common.record.internal.RecordBatch kafka =
                org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()
                        .iterator().next();
        kafka.ensureValid();
        kafka.forEach(record -> assertEquals(NOW + 1, record.timestamp()));
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void everyTruncationFailsValidationOrStopsTheCursor(CompressionType codec) {
        byte[] bytes = batchBytes(codec, 10);
        for (int length = 0; length < bytes.length; length++) {
            ByteBuf truncated = Unpooled.wrappedBuffer(bytes, 0, length);
            RecordBatch batch = new RecordBatch().wrap(truncated, 0);
            int available = length;
            assertThrows(CorruptRecordException.class, () -> batch.validate(available), "length " + length);
            assertThrows(CorruptRecordException.class, () -> batch.forEachRecord(record -> true), "length " + length);
            RecordBatchCursor cursor = new RecordBatchCursor().reset(truncated);
            assertFalse(cursor.next(), "length " + length);
            assertEquals(0, cursor.position());
            assertEquals(length > 0, cursor.hasPartialBatch());
            assertEquals(length, cursor.remaining());
        }
    }

    @Test
    void truncatedBufferOfSeveralBatchesStopsAtThePartialOne() {
        List<byte[]> batches = List.of(batchBytes(CompressionType.NONE, 3), batchBytes(CompressionType.GZIP, 4),
                batchBytes(CompressionType.ZSTD, 5));
        ByteBuf all = Unpooled.buffer();
        List<Integer> ends = new ArrayList<>();
        for (byte[] batch : batches) {
            all.writeBytes(batch);
            ends.add(all.writerIndex());
        }
        for (int length = 0; length <= all.writerIndex(); length++) {
            int complete = 0;
            while (complete < ends.size() && ends.get(complete) <= length) {
                complete++;
            }
            int expectedEnd = complete == 0 ? 0 : ends.get(complete - 1);
            List<Long> visited = new ArrayList<>();
            int stop;
            try {
                stop = RecordBatches.forEach(all, 0, length, batch -> {
                    batch.validate(batch.sizeInBytes());
                    batch.forEachRecord(record -> true);
                    return visited.add(batch.baseOffset());
                });
            } catch (RuntimeException e) {
                fail("length " + length + ": " + e);
                return;
            }
            assertEquals(complete, visited.size(), "length " + length);
            assertEquals(expectedEnd, stop, "length " + length);
            assertEquals(expectedEnd, RecordBatches.completeBytes(all, 0, length));
        }
    }

    @Test
    void cursorRefusesLengthsAndMagicsThatCannotStartABatch() {
        byte[] bytes = batchBytes(CompressionType.NONE, 2);
        byte[] zeros = new byte[100];
        // A zero-filled (preallocated) tail: length 0 is corruption, not a partial batch.
        assertThrows(CorruptRecordException.class, () -> new RecordBatchCursor().reset(Unpooled.wrappedBuffer(zeros)).next());
        byte[] badMagic = bytes.clone();
        badMagic[RecordBatch.MAGIC_OFFSET] = 1;
        assertThrows(CorruptRecordException.class,
                () -> new RecordBatchCursor().reset(Unpooled.wrappedBuffer(badMagic)).next());
        byte[] hugeLength = bytes.clone();
        hugeLength[RecordBatch.LENGTH_OFFSET] = 0x7f;
        RecordBatchCursor cursor = new RecordBatchCursor().reset(Unpooled.wrappedBuffer(hugeLength));
        assertFalse(cursor.next());
        assertTrue(cursor.hasPartialBatch());
    }

    @Test
    void visitorStopsEarly() {
        ByteBuf all = Unpooled.buffer();
        byte[] one = batchBytes(CompressionType.NONE, 3);
        all.writeBytes(one).writeBytes(one).writeBytes(one);
        assertEquals(2 * one.length, RecordBatches.forEach(all, 0, all.writerIndex(), batch -> batch.offset() == 0));
    }
}
