package io.krill.wire.record;

import static io.krill.wire.record.KafkaFixtures.randomRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.krill.wire.record.KafkaFixtures.Rec;
import io.krill.wire.record.compression.Compression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Record-level fuzzing behind a valid CRC: whatever the records section holds, reading a batch either
 * succeeds or raises {@link CorruptRecordException}, never another exception, and bombs are refused.
 */
class RecordFuzzTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final int ITERATIONS = 1500;
    /**
     * Unpooled heap buffers are not leak-tracked: with the tests' paranoid leak detection a tracked buffer
     * records a stack trace on every access, which would dominate a byte-by-byte parser's run time here.
     */
    private static final ByteBufAllocator PLAIN_HEAP = new UnpooledByteBufAllocator(false);

    private static byte[] build(CompressionType codec, List<Rec> records, long producerId) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder(PLAIN_HEAP)) {
            builder.baseOffset(1000).compression(codec).producer(producerId, (short) 0, 0);
            for (Rec rec : records) {
                builder.append(rec.timestamp(), rec.key(), rec.value(), rec.headers().toArray(new Header[0]));
            }
            ByteBuf built = builder.build();
            try {
                return ByteBufUtil.getBytes(built);
            } finally {
                built.release();
            }
        }
    }

    /** The batch with {@code section} as its records, its length and CRC fixed so that only the records are wrong. */
    private static ByteBuf withSection(byte[] batch, byte[] section) {
        ByteBuf out = Unpooled.buffer(RecordBatch.HEADER_SIZE + section.length);
        out.writeBytes(batch, 0, RecordBatch.HEADER_SIZE).writeBytes(section);
        out.setInt(RecordBatch.LENGTH_OFFSET, out.readableBytes() - RecordBatch.LOG_OVERHEAD);
        out.setInt(RecordBatch.CRC_OFFSET, (int) RecordBatch.crc32c(out, RecordBatch.ATTRIBUTES_OFFSET,
                out.readableBytes() - RecordBatch.ATTRIBUTES_OFFSET));
        return out;
    }

    private static byte[] mutate(Random random, byte[] section) {
        byte[] mutated = section.clone();
        if (mutated.length == 0) {
            return new byte[] {(byte) random.nextInt()};
        }
        switch (random.nextInt(7)) {
            case 0: // flip a few bits
                for (int i = 1 + random.nextInt(4); i > 0; i--) {
                    mutated[random.nextInt(mutated.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return mutated;
            case 1: // varint continuation bytes, or maximal lengths
                for (int i = 1 + random.nextInt(3); i > 0; i--) {
                    mutated[random.nextInt(mutated.length)] = random.nextBoolean() ? (byte) 0xFF : (byte) 0x80;
                }
                return mutated;
            case 2: // truncate
                return Arrays.copyOf(mutated, random.nextInt(mutated.length));
            case 3: { // insert random bytes
                int at = random.nextInt(mutated.length + 1);
                byte[] inserted = new byte[1 + random.nextInt(8)];
                random.nextBytes(inserted);
                byte[] grown = new byte[mutated.length + inserted.length];
                System.arraycopy(mutated, 0, grown, 0, at);
                System.arraycopy(inserted, 0, grown, at, inserted.length);
                System.arraycopy(mutated, at, grown, at + inserted.length, mutated.length - at);
                return grown;
            }
            case 4: { // zero a range
                int from = random.nextInt(mutated.length);
                Arrays.fill(mutated, from, Math.min(mutated.length, from + 1 + random.nextInt(16)), (byte) 0);
                return mutated;
            }
            case 5: { // append garbage
                byte[] grown = Arrays.copyOf(mutated, mutated.length + 1 + random.nextInt(8));
                return grown;
            }
            default: // random byte values
                for (int i = 1 + random.nextInt(6); i > 0; i--) {
                    mutated[random.nextInt(mutated.length)] = (byte) random.nextInt();
                }
                return mutated;
        }
    }

    private static byte[] codec(Compression codec, byte[] content, boolean compress) {
        ByteBuf src = Unpooled.wrappedBuffer(content);
        ByteBuf dst = Unpooled.buffer();
        try {
            if (compress) {
                codec.compress(src, dst);
            } else {
                codec.decompress(src, dst, 1 << 24);
            }
            return ByteBufUtil.getBytes(dst);
        } finally {
            dst.release();
        }
    }

    /** Reads everything a reader might touch, so that an accessor failing on a record that passed the parser shows. */
    private static final RecordVisitor TOUCH_EVERYTHING = record -> {
        long sum = record.offset() + record.timestamp() + record.keySize() + record.valueSize() + record.attributes();
        ByteBuf key = record.key();
        ByteBuf value = record.value();
        sum += key == null ? 0 : ByteBufUtil.hashCode(key);
        sum += value == null ? 0 : ByteBufUtil.hashCode(value);
        for (int i = 0; i < record.headerCount(); i++) {
            sum += record.headerKey(i).readableBytes();
            ByteBuf headerValue = record.headerValue(i);
            sum += headerValue == null ? 0 : headerValue.readableBytes();
        }
        record.forEachHeader((buffer, keyIndex, keyLength, valueIndex, valueLength) -> buffer.getByte(keyIndex) != 1
                || keyLength >= 0);
        return sum != 42;
    };

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void mutatedRecordsRaiseOnlyCorruptRecordException(CompressionType type) {
        Compression codec = Compression.of(type);
        Random random = new Random(type.ordinal());
        int corrupt = 0;
        int read = 0;
        try (DecompressionBuffer scratch = new DecompressionBuffer(PLAIN_HEAP, 1 << 20)) {
            for (int iteration = 0; iteration < ITERATIONS; iteration++) {
                List<Rec> records = randomRecords(random, 1 + random.nextInt(12), NOW);
                byte[] batch = build(type, records, iteration);
                byte[] section = Arrays.copyOfRange(batch, RecordBatch.HEADER_SIZE, batch.length);
                byte[] mutated;
                if (type != CompressionType.NONE && random.nextBoolean()) {
                    // Corrupt the records inside a well-formed compressed stream.
                    mutated = codec(codec, mutate(random, codec(codec, section, false)), true);
                } else {
                    mutated = mutate(random, section);
                }
                ByteBuf buffer = withSection(batch, mutated);
                try {
                    if (random.nextInt(5) == 0) {
                        buffer.setInt(RecordBatch.RECORD_COUNT_OFFSET, random.nextBoolean() ? records.size() + 1
                                : random.nextInt());
                        buffer.setInt(RecordBatch.CRC_OFFSET, (int) RecordBatch.crc32c(buffer,
                                RecordBatch.ATTRIBUTES_OFFSET, buffer.readableBytes() - RecordBatch.ATTRIBUTES_OFFSET));
                    }
                    RecordBatch flyweight = new RecordBatch().wrap(buffer, 0);
                    flyweight.validate(buffer.readableBytes());
                    flyweight.forEachRecord(TOUCH_EVERYTHING, scratch);
                    read++;
                } catch (CorruptRecordException expected) {
                    corrupt++;
                } catch (Throwable unexpected) {
                    fail(type + " iteration " + iteration + " raised " + unexpected, unexpected);
                } finally {
                    buffer.release();
                }
            }
        }
        System.out.printf("record fuzz %s: %d mutated batches, %d corrupt, %d still readable%n", type, ITERATIONS,
                corrupt, read);
        assertEquals(ITERATIONS, corrupt + read);
        assertTrue(corrupt > ITERATIONS / 2, "most mutations must be caught: " + corrupt);
    }

    /** A batch whose payload inflates to 64 MiB against a 1 MiB limit: refused, scratch stays small. */
    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void decompressionBombIsRefused(CompressionType type) {
        byte[] bomb = codec(Compression.of(type), new byte[64 << 20], true);
        byte[] batch = build(type, randomRecords(new Random(1), 1, NOW), 1);
        ByteBuf buffer = withSection(batch, bomb);
        try (DecompressionBuffer scratch = new DecompressionBuffer(PLAIN_HEAP, 1 << 20)) {
            RecordBatch flyweight = new RecordBatch().wrap(buffer, 0);
            flyweight.validate(buffer.readableBytes());
            CorruptRecordException e = assertThrows(CorruptRecordException.class,
                    () -> flyweight.forEachRecord(record -> true, scratch));
            assertTrue(e.getMessage().contains("limit"), e.getMessage());
            assertTrue(scratch.capacity() <= 4 << 20, "scratch grew to " + scratch.capacity());
        } finally {
            buffer.release();
        }
    }

    /** The default bound holds for the convenience method too (zstd: the cheapest bomb to build). */
    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = {"ZSTD"})
    void defaultLimitRefusesABombPastIt(CompressionType type) {
        byte[] bomb = codec(Compression.of(type), new byte[DecompressionBuffer.DEFAULT_MAX_BYTES + 1], true);
        ByteBuf buffer = withSection(build(type, randomRecords(new Random(1), 1, NOW), 1), bomb);
        try {
            RecordBatch flyweight = new RecordBatch().wrap(buffer, 0);
            CorruptRecordException e = assertThrows(CorruptRecordException.class,
                    () -> flyweight.forEachRecord(record -> true));
            assertTrue(e.getMessage().contains("limit"), e.getMessage());
        } finally {
            buffer.release();
        }
    }
}
