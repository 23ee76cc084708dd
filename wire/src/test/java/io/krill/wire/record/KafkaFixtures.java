package io.krill.wire.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/** Builds batches with kafka-clients (the judge) and compares what Krill reads against what Kafka reads. */
final class KafkaFixtures {
    private KafkaFixtures() {
    }

    /** One record as written: what both readers must report back. */
    record Rec(long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Rec)) {
                return false;
            }
            Rec that = (Rec) other;
            return offset == that.offset && timestamp == that.timestamp && Arrays.equals(key, that.key)
                    && Arrays.equals(value, that.value) && headers.equals(that.headers);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(offset);
        }

        @Override
        public String toString() {
            return "Rec(offset=" + offset + ", ts=" + timestamp + ", key=" + (key == null ? "null" : key.length)
                    + ", value=" + (value == null ? "null" : value.length) + ", headers=" + headers + ")";
        }
    }

    /** Header fields of a batch to build with Kafka. */
    record Spec(CompressionType codec, TimestampType timestampType, long baseOffset, long logAppendTime, long producerId,
                short producerEpoch, int baseSequence, boolean transactional, int partitionLeaderEpoch,
                long deleteHorizon) {
        static Spec plain(CompressionType codec, long baseOffset) {
            return new Spec(codec, TimestampType.CREATE_TIME, baseOffset, -1, -1, (short) -1, -1, false, -1, -1);
        }
    }

    static org.apache.kafka.common.compress.Compression kafkaCodec(CompressionType codec) {
        return org.apache.kafka.common.compress.Compression.of(codec.configName).build();
    }

    static org.apache.kafka.common.record.TimestampType kafkaTimestampType(TimestampType type) {
        return type == TimestampType.LOG_APPEND_TIME ? org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME
                : org.apache.kafka.common.record.TimestampType.CREATE_TIME;
    }

    /** Random records: null keys and values, empty ones, headers with null values, sizes up to ~4 KiB. */
    static List<Rec> randomRecords(Random random, int count, long baseTimestamp) {
        List<Rec> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(40));
            byte[] value = random.nextInt(8) == 0 ? null : bytes(random, random.nextInt(10) == 0 ? 4096 : random.nextInt(300));
            List<Header> headers = new ArrayList<>();
            int headerCount = random.nextInt(3) == 0 ? random.nextInt(4) : 0;
            for (int h = 0; h < headerCount; h++) {
                headers.add(new Header("h" + h + "-\u00e9" + random.nextInt(100),
                        random.nextInt(4) == 0 ? null : bytes(random, random.nextInt(20))));
            }
            long timestamp = baseTimestamp + random.nextInt(10_000) - 2_000;
            records.add(new Rec(-1, timestamp, key, value, headers));
        }
        return records;
    }

    static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        // Half compressible text, half noise, so that codecs see both.
        if (random.nextBoolean()) {
            for (int i = 0; i < length; i++) {
                bytes[i] = (byte) ('a' + (i % 7));
            }
        } else {
            random.nextBytes(bytes);
        }
        return bytes;
    }

    /** The batch Kafka's MemoryRecordsBuilder writes for {@code spec} and {@code records}. */
    static ByteBuffer kafkaBatch(Spec spec, List<Rec> records) {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(new ByteBufferOutputStream(buffer), (byte) 2,
                kafkaCodec(spec.codec()), kafkaTimestampType(spec.timestampType()), spec.baseOffset(),
                spec.logAppendTime(), spec.producerId(), spec.producerEpoch(), spec.baseSequence(), spec.transactional(),
                false, spec.partitionLeaderEpoch(), Integer.MAX_VALUE, spec.deleteHorizon());
        for (Rec record : records) {
            builder.append(record.timestamp(), record.key(), record.value(), kafkaHeaders(record.headers()));
        }
        return builder.build().buffer();
    }

    static org.apache.kafka.common.header.Header[] kafkaHeaders(List<Header> headers) {
        return headers.stream().map(h -> new RecordHeader(h.key(), h.value()))
                .toArray(org.apache.kafka.common.header.Header[]::new);
    }

    static ByteBuffer concat(List<ByteBuffer> parts) {
        int size = parts.stream().mapToInt(ByteBuffer::remaining).sum();
        ByteBuffer all = ByteBuffer.allocate(size);
        parts.forEach(part -> all.put(part.duplicate()));
        return all.flip();
    }

    /** A copy of {@code bytes} in a pooled buffer, heap or direct; the caller releases it. */
    static ByteBuf copy(ByteBuffer bytes, boolean direct) {
        ByteBuf copy = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(bytes.remaining())
                : PooledByteBufAllocator.DEFAULT.heapBuffer(bytes.remaining());
        copy.writeBytes(bytes.duplicate());
        return copy;
    }

    /** What Krill reads from the batch. */
    static List<Rec> krillRecords(RecordBatch batch) {
        List<Rec> records = new ArrayList<>();
        try (DecompressionBuffer scratch = new DecompressionBuffer()) {
            batch.forEachRecord(record -> {
                records.add(snapshot(record));
                return true;
            }, scratch);
        }
        return records;
    }

    static Rec snapshot(Record record) {
        List<Header> headers = new ArrayList<>();
        record.forEachHeader((buffer, keyIndex, keyLength, valueIndex, valueLength) -> {
            headers.add(new Header(buffer.toString(keyIndex, keyLength, StandardCharsets.UTF_8),
                    valueLength < 0 ? null : ByteBufUtil.getBytes(buffer, valueIndex, valueLength)));
            return true;
        });
        return new Rec(record.offset(), record.timestamp(),
                record.hasKey() ? ByteBufUtil.getBytes(record.key()) : null,
                record.hasValue() ? ByteBufUtil.getBytes(record.value()) : null, headers);
    }

    /** What Kafka reads from the batch. */
    static List<Rec> kafkaRecords(org.apache.kafka.common.record.internal.RecordBatch batch) {
        List<Rec> records = new ArrayList<>();
        for (org.apache.kafka.common.record.internal.Record record : batch) {
            List<Header> headers = new ArrayList<>();
            for (org.apache.kafka.common.header.Header header : record.headers()) {
                headers.add(new Header(header.key(), header.value()));
            }
            records.add(new Rec(record.offset(), record.timestamp(), bytesOf(record.key()), bytesOf(record.value()),
                    headers));
        }
        return records;
    }

    static byte[] bytesOf(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Every header field Krill reads equals Kafka's, and so do the records. */
    static void assertSameBatch(org.apache.kafka.common.record.internal.RecordBatch expected, RecordBatch actual) {
        assertEquals(expected.baseOffset(), actual.baseOffset(), "baseOffset");
        assertEquals(expected.lastOffset(), actual.lastOffset(), "lastOffset");
        assertEquals(expected.nextOffset(), actual.nextOffset(), "nextOffset");
        assertEquals(expected.sizeInBytes(), actual.sizeInBytes(), "sizeInBytes");
        assertEquals(expected.partitionLeaderEpoch(), actual.partitionLeaderEpoch(), "partitionLeaderEpoch");
        assertEquals(expected.magic(), actual.magic(), "magic");
        assertEquals(expected.checksum(), actual.crc(), "crc");
        assertEquals(expected.isValid(), actual.isCrcValid(), "crc valid");
        assertEquals(expected.compressionType().id, actual.compression().id, "codec");
        assertEquals(expected.timestampType().name(), actual.timestampType().name(), "timestampType");
        assertEquals(expected.maxTimestamp(), actual.maxTimestamp(), "maxTimestamp");
        assertEquals(expected.isTransactional(), actual.isTransactional(), "transactional");
        assertEquals(expected.isControlBatch(), actual.isControl(), "control");
        assertEquals(expected.producerId(), actual.producerId(), "producerId");
        assertEquals(expected.producerEpoch(), actual.producerEpoch(), "producerEpoch");
        assertEquals(expected.hasProducerId(), actual.hasProducerId(), "hasProducerId");
        assertEquals(expected.baseSequence(), actual.baseSequence(), "baseSequence");
        assertEquals(expected.lastSequence(), actual.lastSequence(), "lastSequence");
        assertEquals(expected.countOrNull(), actual.recordCount(), "recordCount");
        assertEquals(expected.deleteHorizonMs().isPresent(), actual.hasDeleteHorizon(), "delete horizon");
        if (expected.deleteHorizonMs().isPresent()) {
            assertEquals(expected.deleteHorizonMs().getAsLong(), actual.baseTimestamp(), "delete horizon");
        }
        List<Rec> kafka = kafkaRecords(expected);
        List<Rec> krill = krillRecords(actual);
        assertEquals(kafka.size(), krill.size(), "records");
        for (int i = 0; i < kafka.size(); i++) {
            assertEquals(kafka.get(i), krill.get(i), "record " + i);
        }
    }

    static void assertSameBytes(byte[] expected, ByteBuf actual) {
        assertArrayEquals(expected, actual == null ? null : ByteBufUtil.getBytes(actual));
    }

    static MemoryRecords readable(ByteBuf buffer) {
        return MemoryRecords.readableRecords(ByteBuffer.wrap(ByteBufUtil.getBytes(buffer)));
    }

    static ByteBuf wrap(ByteBuffer buffer) {
        return Unpooled.wrappedBuffer(buffer.duplicate());
    }
}
