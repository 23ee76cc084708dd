package io.krill.wire.record.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.Snappy;

/** Each codec round-trips, reads what Kafka's codecs write, writes what Kafka's codecs read, and bounds its output. */
class CompressionTest {
    private static final int[] SIZES = {0, 1, 100, 32 * 1024, 64 * 1024, 64 * 1024 + 1, 300_000};

    static byte[] data(int size, long seed) {
        Random random = new Random(seed);
        byte[] data = new byte[size];
        for (int i = 0; i < size; ) {
            // Runs of text and of noise: compressible blocks and incompressible ones (LZ4 stores those raw).
            int run = Math.min(size - i, 1 + random.nextInt(20_000));
            boolean noise = random.nextBoolean();
            for (int j = 0; j < run; j++) {
                data[i + j] = noise ? (byte) random.nextInt() : (byte) ("krill-".charAt(j % 6) + (j / 997) % 3);
            }
            i += run;
        }
        return data;
    }

    static Stream<Arguments> codecsAndSizes() {
        List<Arguments> cases = new ArrayList<>();
        for (CompressionType type : CompressionType.values()) {
            for (int size : SIZES) {
                cases.add(Arguments.of(type, size, false));
                cases.add(Arguments.of(type, size, true));
            }
        }
        return cases.stream();
    }

    private static ByteBuf buffer(boolean direct, byte[] content) {
        ByteBuf buffer = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(content.length + 16)
                : PooledByteBufAllocator.DEFAULT.heapBuffer(content.length + 16);
        // A non-zero reader index checks that codecs honour it.
        buffer.writeZero(7).skipBytes(7);
        buffer.writeBytes(content);
        return buffer;
    }

    private static byte[] decompress(Compression codec, byte[] compressed, int maxBytes, boolean direct) {
        ByteBuf src = buffer(direct, compressed);
        ByteBuf dst = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(16) : PooledByteBufAllocator.DEFAULT.heapBuffer(16);
        try {
            dst.writeByte(42);
            int written = codec.decompress(src, dst, maxBytes);
            assertEquals(7, src.readerIndex());
            assertEquals(written + 1, dst.readableBytes());
            assertEquals(42, dst.readByte());
            return ByteBufUtil.getBytes(dst);
        } finally {
            src.release();
            dst.release();
        }
    }

    private static byte[] compress(Compression codec, byte[] content, boolean direct) {
        ByteBuf src = buffer(direct, content);
        ByteBuf dst = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(16) : PooledByteBufAllocator.DEFAULT.heapBuffer(16);
        try {
            codec.compress(src, dst);
            assertEquals(7, src.readerIndex());
            assertEquals(content.length, src.readableBytes());
            return ByteBufUtil.getBytes(dst);
        } finally {
            src.release();
            dst.release();
        }
    }

    private static byte[] kafkaCompress(CompressionType type, byte[] content) throws IOException {
        ByteBufferOutputStream out = new ByteBufferOutputStream(256);
        try (OutputStream stream = org.apache.kafka.common.compress.Compression.of(type.configName).build()
                .wrapForOutput(out, (byte) 2)) {
            stream.write(content);
        }
        ByteBuffer buffer = out.buffer().flip();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static byte[] kafkaDecompress(CompressionType type, byte[] compressed) throws IOException {
        try (InputStream in = org.apache.kafka.common.compress.Compression.of(type.configName).build()
                .wrapForInput(ByteBuffer.wrap(compressed), (byte) 2, BufferSupplier.create())) {
            return in.readAllBytes();
        }
    }

    @ParameterizedTest(name = "{0} {1} bytes direct={2}")
    @MethodSource("codecsAndSizes")
    void roundTripsAndInteroperatesWithKafka(CompressionType type, int size, boolean direct) throws IOException {
        Compression codec = Compression.of(type);
        assertEquals(type, codec.type());
        byte[] content = data(size, size);
        byte[] compressed = compress(codec, content, direct);
        assertArrayEquals(content, decompress(codec, compressed, size, direct));
        if (type != CompressionType.NONE) {
            assertArrayEquals(content, kafkaDecompress(type, compressed), "Kafka reads Krill's " + type);
            assertArrayEquals(content, decompress(codec, kafkaCompress(type, content), size, direct),
                    "Krill reads Kafka's " + type);
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void refusesOutputPastTheLimit(CompressionType type) {
        Compression codec = Compression.of(type);
        byte[] content = data(200_000, 1);
        byte[] compressed = compress(codec, content, false);
        assertArrayEquals(content, decompress(codec, compressed, content.length, false));
        CorruptRecordException e = assertThrows(CorruptRecordException.class,
                () -> decompress(codec, compressed, content.length - 1, false));
        assertTrue(e.getMessage().contains("limit"), e.getMessage());
    }

    @Test
    void lz4ReadsEveryFrameOptionLz4JavaWrites() throws IOException {
        byte[] content = data(700_000, 2);
        for (LZ4FrameOutputStream.BLOCKSIZE blockSize : LZ4FrameOutputStream.BLOCKSIZE.values()) {
            for (LZ4FrameOutputStream.FLG.Bits[] bits : List.of(
                    new LZ4FrameOutputStream.FLG.Bits[] {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE},
                    new LZ4FrameOutputStream.FLG.Bits[] {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
                        LZ4FrameOutputStream.FLG.Bits.BLOCK_CHECKSUM, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM},
                    new LZ4FrameOutputStream.FLG.Bits[] {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
                        LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM})) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (LZ4FrameOutputStream lz4 = new LZ4FrameOutputStream(out, blockSize, content.length, bits)) {
                    lz4.write(content);
                }
                byte[] frame = out.toByteArray();
                assertArrayEquals(content, decompress(Lz4Compression.DEFAULT, frame, content.length, false));
                assertArrayEquals(content, decompress(Lz4Compression.DEFAULT, frame, content.length, true));
                // Two frames back to back.
                byte[] twice = concat(frame, frame);
                assertArrayEquals(concat(content, content),
                        decompress(Lz4Compression.DEFAULT, twice, 2 * content.length, false));
                // A flipped content byte fails a checksum (when there is one) or the decoder; never anything else.
                frame[frame.length / 2] ^= 0x10;
                try {
                    decompress(Lz4Compression.DEFAULT, frame, content.length, false);
                } catch (CorruptRecordException expected) {
                    // fine
                }
            }
        }
    }

    @Test
    void lz4RefusesBadDescriptorChecksumAndLinkedBlocks() {
        byte[] frame = compress(Lz4Compression.DEFAULT, data(1000, 3), false);
        byte[] badChecksum = frame.clone();
        badChecksum[6] ^= 1;
        assertThrows(CorruptRecordException.class, () -> decompress(Lz4Compression.DEFAULT, badChecksum, 1 << 20, false));
        // The pre-0.10 quirk: HC over magic + descriptor. Magic 2 batches never carry it.
        byte[] quirk = frame.clone();
        quirk[6] = (byte) (net.jpountz.xxhash.XXHashFactory.fastestInstance().hash32().hash(frame, 0, 6, 0) >> 8);
        if (quirk[6] != frame[6]) {
            assertThrows(CorruptRecordException.class, () -> decompress(Lz4Compression.DEFAULT, quirk, 1 << 20, false));
        }
        byte[] linked = frame.clone();
        linked[4] &= ~0x20;
        linked[6] = (byte) (net.jpountz.xxhash.XXHashFactory.fastestInstance().hash32().hash(linked, 4, 2, 0) >> 8);
        assertThrows(CorruptRecordException.class, () -> decompress(Lz4Compression.DEFAULT, linked, 1 << 20, false));
    }

    @Test
    void lz4RefusesAClaimedContentSizePastTheLimitUpFront() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (LZ4FrameOutputStream lz4 = new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, 1000,
                LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE)) {
            lz4.write(new byte[1000]);
        }
        CorruptRecordException e = assertThrows(CorruptRecordException.class,
                () -> decompress(Lz4Compression.DEFAULT, out.toByteArray(), 999, false));
        assertTrue(e.getMessage().contains("limit"), e.getMessage());
    }

    @Test
    void snappyReadsRawBlocksAndConcatenatedStreams() throws IOException {
        byte[] content = data(100_000, 4);
        assertArrayEquals(content, decompress(SnappyCompression.INSTANCE, Snappy.compress(content), content.length, false));
        byte[] framed = compress(SnappyCompression.INSTANCE, content, false);
        assertArrayEquals(concat(content, content),
                decompress(SnappyCompression.INSTANCE, concat(framed, framed), 2 * content.length, true));
        // An empty framed stream (header only) is empty.
        assertEquals(0, decompress(SnappyCompression.INSTANCE, compress(SnappyCompression.INSTANCE, new byte[0], false),
                0, false).length);
        byte[] truncatedChunkLength = java.util.Arrays.copyOf(framed, 18);
        assertThrows(CorruptRecordException.class,
                () -> decompress(SnappyCompression.INSTANCE, truncatedChunkLength, 1 << 20, false));
    }

    @Test
    void gzipReadsMembersWithOptionalFieldsAndSeveralMembers() throws IOException {
        byte[] content = data(50_000, 5);
        ByteArrayOutputStream jdk = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(jdk)) {
            gzip.write(content);
        }
        byte[] member = jdk.toByteArray();
        assertArrayEquals(content, decompress(GzipCompression.DEFAULT, member, content.length, false));
        assertArrayEquals(concat(content, content),
                decompress(GzipCompression.DEFAULT, concat(member, member), 2 * content.length, true));
        // FEXTRA + FNAME + FCOMMENT + FHCRC before the same deflate data.
        ByteBuf fancy = Unpooled.buffer();
        try {
            fancy.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 0x04 | 0x08 | 0x10 | 0x02, 0, 0, 0, 0, 0, 3});
            fancy.writeShortLE(3).writeBytes(new byte[] {1, 2, 3});
            fancy.writeBytes("name.txt\0".getBytes()).writeBytes("a comment\0".getBytes());
            fancy.writeShort(0);
            fancy.writeBytes(member, 10, member.length - 10);
            assertArrayEquals(content, decompress(GzipCompression.DEFAULT, ByteBufUtil.getBytes(fancy), content.length,
                    false));
        } finally {
            fancy.release();
        }
        byte[] badCrc = member.clone();
        badCrc[badCrc.length - 6] ^= 1;
        assertThrows(CorruptRecordException.class, () -> decompress(GzipCompression.DEFAULT, badCrc, 1 << 20, false));
        byte[] garbageAfter = concat(member, new byte[] {1, 2, 3});
        assertThrows(CorruptRecordException.class, () -> decompress(GzipCompression.DEFAULT, garbageAfter, 1 << 20, false));
    }

    @Test
    void everyTruncationOfEveryCodecIsCorruptOrShort() {
        byte[] content = data(70_000, 6);
        for (CompressionType type : CompressionType.values()) {
            if (type == CompressionType.NONE) {
                continue;
            }
            Compression codec = Compression.of(type);
            byte[] compressed = compress(codec, content, false);
            for (int length = 0; length < compressed.length; length += 1 + length / 50) {
                byte[] truncated = java.util.Arrays.copyOf(compressed, length);
                try {
                    byte[] out = decompress(codec, truncated, content.length, false);
                    // A stream cut at a chunk boundary may decode to a prefix; it must never be longer.
                    assertTrue(out.length < content.length, type + " truncated to " + length);
                } catch (CorruptRecordException expected) {
                    // fine
                }
            }
        }
    }

    @Test
    void levelsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new GzipCompression(10));
        assertThrows(IllegalArgumentException.class, () -> new Lz4Compression(0));
        assertThrows(IllegalArgumentException.class, () -> new ZstdCompression(ZstdCompression.MAX_LEVEL + 1));
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
