package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.PartitionState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Partition records (binary, and the JSON of earlier versions) with and without a reassignment, with
 * eligible leader replicas (the second layout) and in the first layout, records written before
 * reassignments existed, and
 * topic records with and without their partitions' initial states.
 */
class MetadataRecordsTest {
    private static final UUID TOPIC_ID = UUID.fromString("6e30610a-0000-4000-8000-000000000001");

    @Test
    void partitionRecordsRoundTripWithAndWithoutAReassignment() {
        PartitionState moving = new PartitionState(3, 1, 4, List.of(2, 3, 1), List.of(1, 2), 9, List.of(3), List.of(1));
        MetadataRecords.PartitionRecord decoded = MetadataRecords.decodePartitionRecord(3,
                MetadataRecords.encodePartition("t", TOPIC_ID, moving));
        assertEquals(moving, decoded.state());
        assertEquals(TOPIC_ID, decoded.topicId());

        PartitionState plain = new PartitionState(3, -1, 4, List.of(1, 2, 3), List.of(1, 2, 3), 9);
        byte[] encoded = MetadataRecords.encodePartition("t", TOPIC_ID, plain);
        assertEquals(4 + 64, encoded.length, "binary: magic, then 64 bytes for three replicas in sync");
        assertEquals(plain, MetadataRecords.decodePartition(3, encoded));
    }

    @Test
    void eligibleLeaderReplicasTakeTheSecondLayoutAndRoundTrip() {
        PartitionState withElr = new PartitionState(3, 1, 4, List.of(1, 2, 3), List.of(1), 9, List.of(), List.of(),
                List.of(2, 3), List.of());
        byte[] encoded = MetadataRecords.encodePartition("t", TOPIC_ID, withElr);
        assertEquals(MetadataRecords.PARTITION_RECORD_MAGIC_2, ByteBuffer.wrap(encoded).getInt(), "KPR2");
        assertEquals(4 + 16 + 16 + 2 + 12 + 2 + 4 + 2 + 2 + 2 + 8 + 2, encoded.length);
        assertEquals(withElr, MetadataRecords.decodePartition(3, encoded));

        PartitionState lastKnown = new PartitionState(3, -1, 5, List.of(1, 2, 3), List.of(), 10, List.of(3), List.of(),
                List.of(), List.of(2));
        assertEquals(lastKnown, MetadataRecords.decodePartition(3, MetadataRecords.encodePartition("t", TOPIC_ID,
                lastKnown)));
        for (int length = 4; length < encoded.length; length++) {
            byte[] truncated = Arrays.copyOf(encoded, length);
            assertThrows(IllegalStateException.class, () -> MetadataRecords.decodePartition(3, truncated),
                    "truncated to " + length);
        }
    }

    @Test
    void aStateWithoutEligibleLeaderReplicasIsWrittenInTheFirstLayout() {
        PartitionState plain = new PartitionState(3, 1, 4, List.of(1, 2, 3), List.of(1, 2, 3), 9);
        byte[] encoded = MetadataRecords.encodePartition("t", TOPIC_ID, plain);
        assertEquals(MetadataRecords.PARTITION_RECORD_MAGIC, ByteBuffer.wrap(encoded).getInt(), "KPR1");
        assertArrayEquals(firstLayout(plain), encoded, "the very bytes of the layout before ELRs");
    }

    @Test
    void aRecordInTheFirstLayoutReadsWithoutEligibleLeaderReplicas() {
        PartitionState old = new PartitionState(3, 2, 4, List.of(2, 3, 1), List.of(2), 9, List.of(3), List.of(1));
        PartitionState read = MetadataRecords.decodePartition(3, firstLayout(old));
        assertEquals(old, read);
        assertEquals(List.of(), read.eligibleLeaderReplicas());
        assertEquals(List.of(), read.lastKnownElr());
    }

    /** A record as brokers before ELRs wrote it, byte by byte from the layout they documented. */
    private static byte[] firstLayout(PartitionState state) {
        ByteBuffer out = ByteBuffer.allocate(4 + 16 + 16 + 8 + 4 * (state.replicas().size() + state.isr().size()
                + state.addingReplicas().size() + state.removingReplicas().size()));
        out.put("KPR1".getBytes(StandardCharsets.US_ASCII));
        out.putLong(TOPIC_ID.getMostSignificantBits()).putLong(TOPIC_ID.getLeastSignificantBits());
        out.putInt(state.partition()).putInt(state.leader()).putInt(state.leaderEpoch()).putInt(state.partitionEpoch());
        for (List<Integer> ids : List.of(state.replicas(), state.isr(), state.addingReplicas(),
                state.removingReplicas())) {
            out.putShort((short) ids.size());
            ids.forEach(out::putInt);
        }
        return out.array();
    }

    @Test
    void aPartitionRecordThatDoesNotParseOrNamesAnotherPartitionIsRefused() {
        byte[] good = MetadataRecords.encodePartition("t", TOPIC_ID,
                new PartitionState(3, 1, 4, List.of(1, 2), List.of(1, 2), 9));
        for (int length = 4; length < good.length; length++) {
            byte[] truncated = Arrays.copyOf(good, length);
            assertThrows(IllegalStateException.class, () -> MetadataRecords.decodePartition(3, truncated),
                    "truncated to " + length);
        }
        assertThrows(IllegalStateException.class,
                () -> MetadataRecords.decodePartition(3, Arrays.copyOf(good, good.length + 1)), "trailing bytes");
        byte[] huge = good.clone();
        huge[4 + 16 + 16] = (byte) 0xff; // the replicas' count: 65,280 ids in 16 bytes
        assertThrows(IllegalStateException.class, () -> MetadataRecords.decodePartition(3, huge));
        assertThrows(IllegalStateException.class, () -> MetadataRecords.decodePartition(4, good), "another partition");
    }

    @Test
    void aJsonRecordOfAnEarlierVersionIsStillRead() {
        String json = "{\"id\":\"t_3\",\"simpleFields\":{\"leader\":\"1\",\"leaderEpoch\":\"4\",\"partitionEpoch\":\"9\","
                + "\"topicId\":\"" + TOPIC_ID + "\"},\"listFields\":{\"replicas\":[\"2\",\"3\",\"1\"],\"isr\":[\"1\",\"2\"],"
                + "\"addingReplicas\":[\"3\"],\"removingReplicas\":[\"1\"]},\"mapFields\":{}}";
        MetadataRecords.PartitionRecord record = MetadataRecords.decodePartitionRecord(3, json.getBytes(StandardCharsets.UTF_8));
        assertEquals(new PartitionState(3, 1, 4, List.of(2, 3, 1), List.of(1, 2), 9, List.of(3), List.of(1)), record.state());
        assertEquals(TOPIC_ID, record.topicId());
    }

    @Test
    void aRecordOfAnEarlierVersionHasNoReassignment() {
        String old = "{\"id\":\"t_0\",\"simpleFields\":{\"leader\":\"2\",\"leaderEpoch\":\"1\",\"partitionEpoch\":\"1\","
                + "\"topicId\":\"" + TOPIC_ID + "\"},\"listFields\":{\"replicas\":[\"2\",\"3\"],\"isr\":[\"2\",\"3\"]},"
                + "\"mapFields\":{}}";
        PartitionState state = MetadataRecords.decodePartition(0, old.getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of(), state.addingReplicas());
        assertEquals(List.of(), state.removingReplicas());
        assertFalse(state.isReassigning());
    }

    @Test
    void aTopicRecordCarriesItsPartitionsInitialStatesWhenGiven() {
        List<PartitionState> initial = List.of(
                new PartitionState(0, 1, 0, List.of(1, 2, 3), List.of(1, 2, 3), 0),
                new PartitionState(1, 3, 0, List.of(2, 3, 1), List.of(3, 1), 0),
                new PartitionState(2, -1, 0, List.of(2), List.of(2), 0));
        MetadataRecords.TopicRecord topic = new MetadataRecords.TopicRecord("t", TOPIC_ID, 3, false,
                java.util.Map.of("retention.ms", "5"), initial);
        MetadataRecords.TopicRecord decoded = MetadataRecords.decodeTopic("t", MetadataRecords.encodeTopic(topic));
        assertEquals(topic, decoded);
        assertEquals(initial, decoded.initialStates());

        MetadataRecords.TopicRecord rewritten = new MetadataRecords.TopicRecord("t", TOPIC_ID, 4, false, java.util.Map.of());
        byte[] encoded = MetadataRecords.encodeTopic(rewritten);
        assertFalse(new String(encoded, StandardCharsets.UTF_8).contains(MetadataRecords.INITIAL_STATES),
                "a rewritten topic node carries no initial states");
        assertEquals(List.of(), MetadataRecords.decodeTopic("t", encoded).initialStates());
    }
}
