package io.krill.wire.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.protocol.Records;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Records that are sent out of band, as the broker sends segment files with a {@code FileRegion}:
 * the message counts them in {@code size()} but only notes where they go when written, and splicing
 * them back in at those indices must give exactly the bytes kafka-clients writes.
 */
class DeferredRecordsTest {

    /** Where deferred records were to be written, and their bytes. */
    private record Splice(int index, byte[] bytes) {
    }

    /** A test double of the broker's file-backed records: notes the writer index, writes nothing. */
    private static final class DeferredRecords implements Records {
        private final byte[] bytes;
        private final List<Splice> collector;

        DeferredRecords(byte[] bytes, List<Splice> collector) {
            this.bytes = bytes;
            this.collector = collector;
        }

        @Override
        public int sizeInBytes() {
            return bytes.length;
        }

        @Override
        public void writeTo(ByteBuf out) {
            collector.add(new Splice(out.writerIndex(), bytes));
        }
    }

    private static final UUID TOPIC_ID = new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L);

    @Test
    void splicingDeferredRecordsBackGivesKafkasBytesAtEveryVersion() {
        // Real batches, one small (a 1-byte compact length), two over 127 bytes (a 2-byte one).
        byte[] first = batch(0, 3, 40);
        byte[] second = batch(3, 1, 7);
        byte[] inMemory = batch(100, 4, 50);
        assertTrue(first.length > 127 && inMemory.length > 127 && second.length <= 126,
            first.length + " " + second.length + " " + inMemory.length);

        for (short version = FetchResponse.LOWEST_SUPPORTED_VERSION; version <= FetchResponse.HIGHEST_SUPPORTED_VERSION;
             version++) {
            FetchResponseData kafka = new FetchResponseData().setThrottleTimeMs(5).setSessionId(version >= 7 ? 9 : 0);
            FetchResponseData.FetchableTopicResponse kafkaTopic = new FetchResponseData.FetchableTopicResponse()
                .setTopic("events").setTopicId(new Uuid(TOPIC_ID.getMostSignificantBits(),
                    TOPIC_ID.getLeastSignificantBits()));
            kafka.responses().add(kafkaTopic);
            kafkaTopic.partitions().add(kafkaPartition(0, first, version));
            kafkaTopic.partitions().add(kafkaPartition(1, inMemory, version));
            kafkaTopic.partitions().add(kafkaPartition(2, second, version));
            byte[] expectedBody = KafkaCodec.write(kafka, version);
            byte[] expectedHeader = KafkaCodec.write(new ResponseHeaderData().setCorrelationId(77), (short) 1);

            List<Splice> splices = new ArrayList<>();
            FetchResponse krill = new FetchResponse().setThrottleTimeMs(5).setSessionId(version >= 7 ? 9 : 0);
            FetchResponse.FetchableTopicResponse topic = new FetchResponse.FetchableTopicResponse().setTopic("events")
                .setTopicId(TOPIC_ID);
            krill.responses().add(topic);
            topic.partitions().add(partition(0, new DeferredRecords(first, splices), version));
            topic.partitions().add(partition(1, ByteBufRecords.of(Unpooled.wrappedBuffer(inMemory)), version));
            topic.partitions().add(partition(2, new DeferredRecords(second, splices), version));

            // The broker's recipe: size prefix, header, body; the deferred records note absolute indices.
            ResponseHeader header = new ResponseHeader().setCorrelationId(77);
            int size = header.size((short) 1) + krill.size(version);
            ByteBuf out = Unpooled.buffer();
            out.writeInt(size);
            header.write(out, (short) 1);
            krill.write(out, version);

            String at = "version " + version;
            assertEquals(2, splices.size(), at);
            assertEquals(4 + size - first.length - second.length, out.readableBytes(), at);
            byte[] spliced = splice(ByteBufUtil.getBytes(out), splices);
            assertEquals(4 + size, spliced.length, at);
            assertEquals(expectedHeader.length + expectedBody.length, size, at);
            assertEquals(size, ByteBuffer.wrap(spliced).getInt(), at);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.write(spliced, 0, 4);
            expected.writeBytes(expectedHeader);
            expected.writeBytes(expectedBody);
            assertArrayEquals(expected.toByteArray(), spliced, at);
            assertEquals(krill.size(version), expectedBody.length, at);

            // Read back, every partition's records are in memory and hold the same bytes.
            FetchResponse reread = (FetchResponse) KrillCodec.read(FetchResponse.class, expectedBody, version);
            List<FetchResponse.PartitionData> partitions = reread.responses().get(0).partitions();
            assertArrayEquals(first, ByteBufUtil.getBytes(partitions.get(0).records().buffer()), at);
            assertArrayEquals(inMemory, ByteBufUtil.getBytes(partitions.get(1).records().buffer()), at);
            assertArrayEquals(second, ByteBufUtil.getBytes(partitions.get(2).records().buffer()), at);
            assertEquals(topic.partitions().get(1), partitions.get(1), at);
        }
    }

    @Test
    void fileBackedRecordsHaveNoBuffer() {
        assertNull(new DeferredRecords(new byte[3], new ArrayList<>()).buffer());
    }

    private static FetchResponse.PartitionData partition(int index, Records records, short version) {
        FetchResponse.PartitionData p = new FetchResponse.PartitionData().setPartitionIndex(index).setHighWatermark(
            1000 + index).setLastStableOffset(900).setLogStartOffset(version >= 5 ? 10 : -1).setRecords(records);
        if (version >= 12) {
            // A tagged field after the records: bytes follow the splice point inside the partition.
            p.setCurrentLeader(new FetchResponse.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(4 + index));
        }
        return p;
    }

    private static FetchResponseData.PartitionData kafkaPartition(int index, byte[] records, short version) {
        FetchResponseData.PartitionData p = new FetchResponseData.PartitionData().setPartitionIndex(index)
            .setHighWatermark(1000 + index).setLastStableOffset(900).setLogStartOffset(version >= 5 ? 10 : -1)
            .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(records)));
        if (version >= 12) {
            p.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(4 + index));
        }
        return p;
    }

    /** Inserts each splice's bytes at its index, indices being positions in {@code written}. */
    private static byte[] splice(byte[] written, List<Splice> splices) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int from = 0;
        for (Splice s : splices) {
            assertTrue(s.index() >= from, "indices in write order");
            out.write(written, from, s.index() - from);
            out.writeBytes(s.bytes());
            from = s.index();
        }
        out.write(written, from, written.length - from);
        return out.toByteArray();
    }

    /** A kafka-clients batch of {@code count} records with {@code valueSize}-byte values. */
    private static byte[] batch(long baseOffset, int count, int valueSize) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1_700_000_000_000L + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                "v".repeat(valueSize).getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer buffer = MemoryRecords.withRecords(baseOffset, Compression.NONE, records).buffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
