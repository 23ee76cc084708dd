package io.krill.wire.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.protocol.ByteBufCodec;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.protocol.MalformedMessageException;
import io.krill.wire.protocol.RawTaggedField;
import io.krill.wire.protocol.Records;
import io.krill.wire.protocol.UnwritableMessageException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.junit.jupiter.api.Test;

/** Schema corners the random tests only hit by chance: defaults, absent fields, nullable structs, tags. */
class TrickyCasesTest {

    @Test
    void defaultsComeFromTheSchema() {
        FetchRequest fetch = new FetchRequest();
        assertEquals(-1, fetch.replicaId());
        assertEquals(0x7fffffff, fetch.maxBytes());
        assertNull(fetch.clusterId());
        assertTrue(new MetadataRequest().allowAutoTopicCreation());
        assertTrue(new BrokerHeartbeatResponse().isFenced());
        assertEquals(-2, new OffsetForLeaderEpochRequest().replicaId());
        assertEquals(3, new DeleteAclsRequest.DeleteAclsFilter().patternTypeFilter());
        assertEquals(ByteBufCodec.ZERO_UUID, new ProduceRequest.TopicProduceData().topicId());
        assertNull(new FetchResponse.PartitionData().records());
        assertTrue(new FetchResponse.PartitionData().hasDefaultValues());
        assertEquals(new FetchResponse.PartitionData(), new FetchResponse.PartitionData());
    }

    @Test
    void readingAnOlderVersionResetsFieldsItLacksToDefaults() {
        MetadataRequest m = new MetadataRequest().setAllowAutoTopicCreation(false);
        byte[] v3 = KrillCodec.write(new MetadataRequest(), (short) 3);
        m.read(Unpooled.wrappedBuffer(v3), (short) 3);
        assertTrue(m.allowAutoTopicCreation());
    }

    @Test
    void nonDefaultNonIgnorableFieldsAbsentFromTheVersionCannotBeWrittenLikeInKafka() {
        // AllowAutoTopicCreation: versions 4+, default true, not ignorable.
        MetadataRequestData kafka = new MetadataRequestData().setAllowAutoTopicCreation(false);
        assertThrows(UnsupportedVersionException.class, () -> KafkaCodec.write(kafka, (short) 3));
        MetadataRequest krill = new MetadataRequest().setAllowAutoTopicCreation(false);
        assertThrows(UnwritableMessageException.class, () -> krill.write(Unpooled.buffer(), (short) 3));
        // The default value, or any value of an ignorable field, is fine.
        KrillCodec.write(new MetadataRequest(), (short) 3);
        FetchRequest fetch = new FetchRequest().setMaxBytes(5); // MaxBytes: 3+, ignorable; Fetch starts at 4
        assertArrayEquals(KafkaCodec.write(new org.apache.kafka.common.message.FetchRequestData().setMaxBytes(5),
            (short) 4), KrillCodec.write(fetch, (short) 4));
        ProduceResponse produce = new ProduceResponse().setThrottleTimeMs(5);
        KrillCodec.write(produce, (short) 3);
    }

    @Test
    void nullsOnlyWhereNullable() {
        assertThrows(UnwritableMessageException.class,
            () -> new ProduceRequest().setTopicData(null).write(Unpooled.buffer(), (short) 9));
        assertThrows(UnwritableMessageException.class,
            () -> new ProduceRequest.TopicProduceData().setName(null).write(Unpooled.buffer(), (short) 9));
        // A null array where the version does not allow it is malformed input.
        byte[] nullTopics = {0, 0, 1, 0, 0, 0, 1, 0, 0};
        assertThrows(MalformedMessageException.class,
            () -> new ProduceRequest().read(Unpooled.wrappedBuffer(nullTopics), (short) 9));
    }

    @Test
    void nullableStructUsesAnInt8MarkerLikeKafka() {
        for (boolean present : new boolean[] {false, true}) {
            ConsumerGroupHeartbeatResponseData kafka = new ConsumerGroupHeartbeatResponseData().setMemberId("m")
                .setAssignment(present ? new ConsumerGroupHeartbeatResponseData.Assignment() : null);
            ConsumerGroupHeartbeatResponse krill = new ConsumerGroupHeartbeatResponse().setMemberId("m")
                .setAssignment(present ? new ConsumerGroupHeartbeatResponse.Assignment() : null);
            byte[] bytes = KafkaCodec.write(kafka, (short) 0);
            assertArrayEquals(bytes, KrillCodec.write(krill, (short) 0));
            assertEquals(krill, KrillCodec.read(ConsumerGroupHeartbeatResponse.class, bytes, (short) 0));
        }
    }

    @Test
    void taggedFieldsAreWrittenInTagOrderAfterTheUntaggedOnesAndUnknownTagsLast() {
        FetchResponse.PartitionData krill = new FetchResponse.PartitionData().setPartitionIndex(1)
            .setSnapshotId(new FetchResponse.SnapshotId().setEpoch(3).setEndOffset(4))
            .setCurrentLeader(new FetchResponse.LeaderIdAndEpoch().setLeaderId(5).setLeaderEpoch(6));
        krill.unknownTaggedFields().add(new RawTaggedField(7, new byte[] {1, 2}));
        FetchResponseData.PartitionData kafka = new FetchResponseData.PartitionData().setPartitionIndex(1)
            .setSnapshotId(new FetchResponseData.SnapshotId().setEpoch(3).setEndOffset(4))
            .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(5).setLeaderEpoch(6));
        kafka.unknownTaggedFields().add(new org.apache.kafka.common.protocol.types.RawTaggedField(7, new byte[] {1, 2}));
        byte[] bytes = KafkaCodec.write(kafka, (short) 12);
        assertArrayEquals(bytes, KrillCodec.write(krill, (short) 12));
        // The tagged section is the tail: 3 fields; tag 1 (leader), tag 2 (snapshot), tag 7 (unknown).
        int tail = bytes.length - 1 - (1 + 1 + 9) - (1 + 1 + 13) - (1 + 1 + 2);
        assertEquals(3, bytes[tail]);
        assertEquals(1, bytes[tail + 1]);
        assertEquals(2, bytes[tail + 1 + 11]);
        assertEquals(7, bytes[tail + 1 + 11 + 15]);
    }

    @Test
    void tagsOutOfOrderOrWithAWrongSizeAreMalformed() {
        // ApiVersionsRequest v3: two compact strings, then tagged fields.
        byte[] outOfOrder = {1, 1, 2, 5, 1, 0, 3, 1, 0};
        assertThrows(MalformedMessageException.class,
            () -> new ApiVersionsRequest().read(Unpooled.wrappedBuffer(outOfOrder), (short) 3));
        byte[] inOrder = {1, 1, 2, 3, 1, 0, 5, 1, 0};
        ApiVersionsRequest ok = new ApiVersionsRequest();
        ok.read(Unpooled.wrappedBuffer(inOrder), (short) 3);
        assertEquals(List.of(3, 5), ok.unknownTaggedFields().stream().map(RawTaggedField::tag).toList());
        // FetchSnapshotRequest v0: ClusterId is tag 0 (a compact nullable string); its size says 5 but
        // the string takes 2 bytes.
        byte[] wrongSize = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 5, 2, 'x', 0, 0, 0};
        assertThrows(MalformedMessageException.class,
            () -> new FetchSnapshotRequest().read(Unpooled.wrappedBuffer(wrongSize), (short) 0));
    }

    @Test
    void recordsAreASliceOfTheRequestBufferNeverACopy() {
        ProduceRequest request = new ProduceRequest().setTopicData(List.of(new ProduceRequest.TopicProduceData()
            .setName("t").setPartitionData(List.of(new ProduceRequest.PartitionProduceData()
                .setRecords(ByteBufRecords.of(Unpooled.wrappedBuffer(new byte[] {9, 8, 7, 6})))))));
        byte[] wire = KrillCodec.write(request, (short) 9);
        ByteBuf in = Unpooled.wrappedBuffer(wire);
        ProduceRequest parsed = new ProduceRequest();
        parsed.read(in, (short) 9);
        Records read = parsed.topicData().get(0).partitionData().get(0).records();
        assertEquals(4, read.sizeInBytes());
        ByteBuf records = read.buffer();
        assertEquals(4, records.readableBytes());
        assertSame(wire, records.array(), "records share the input's backing array");
        assertEquals(in.refCnt(), records.refCnt(), "records share the input's reference count");
        // Writing does not consume the slice: the same message can be written twice.
        assertArrayEquals(wire, KrillCodec.write(parsed, (short) 9));
        assertArrayEquals(wire, KrillCodec.write(parsed, (short) 9));
        assertFalse(in.isReadable());
    }
}
