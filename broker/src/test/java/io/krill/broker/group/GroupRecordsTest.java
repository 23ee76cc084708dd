package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupRecordsTest {

    @Test
    void offsetKeyAndValueRoundTrip() {
        byte[] key = GroupRecords.offsetKey("group-é", "topic", 7);
        assertEquals(new GroupRecords.OffsetKey("group-é", "topic", 7), GroupRecords.readKey(Unpooled.wrappedBuffer(key)));
        OffsetAndMetadata value = new OffsetAndMetadata(123L, 4, "meta", 1000L, -1L);
        assertEquals(value, GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(GroupRecords.offsetValue(value))));
        // Kafka's metadata is not nullable: none is "" (OffsetFetch answers "" for none either way).
        OffsetAndMetadata nullMetadata = new OffsetAndMetadata(1L, -1, null, 2L, 3L);
        assertEquals(new OffsetAndMetadata(1L, -1, "", 2L, 3L),
                GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(GroupRecords.offsetValue(nullMetadata))));
    }

    @Test
    void offsetsAreKafkasOffsetCommitRecords() {
        // OffsetCommitKey: type 1, group, topic, partition.
        assertEquals("0001" + "0001" + "67" + "0001" + "74" + "00000007",
                HexFormat.of().formatHex(GroupRecords.offsetKey("g", "t", 7)));
        // OffsetCommitValue v4 (flexible): offset, leader epoch, compact metadata, commit timestamp, no tags.
        assertEquals("0004" + "000000000000007b" + "00000004" + "03" + "6d64" + "00000000000003e8" + "00",
                HexFormat.of().formatHex(GroupRecords.offsetValue(new OffsetAndMetadata(123, 4, "md", 1000, -1))));
        // With an expiry Kafka writes v1: offset, metadata, commit timestamp, expire timestamp (no leader epoch).
        byte[] expiring = GroupRecords.offsetValue(new OffsetAndMetadata(123, 4, "md", 1000, 2000));
        assertEquals("0001" + "000000000000007b" + "0002" + "6d64" + "00000000000003e8" + "00000000000007d0",
                HexFormat.of().formatHex(expiring));
        assertEquals(new OffsetAndMetadata(123, -1, "md", 1000, 2000),
                GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(expiring)));
    }

    @Test
    void groupMetadataIsKafkasVersionThree() {
        byte[] value = GroupRecords.groupValue(new GroupRecords.GroupValue("consumer", 5, "range", "m1", 99L, List.of(
                new GroupRecords.MemberValue("m1", "i1", "c1", "h", 30000, 10000, new byte[] {1}, new byte[] {2}))));
        assertEquals("0003" + "0008" + HexFormat.of().formatHex("consumer".getBytes()) + "00000005"
                + "0005" + HexFormat.of().formatHex("range".getBytes()) + "0002" + "6d31" + "0000000000000063"
                + "00000001" + "0002" + "6d31" + "0002" + "6931" + "0002" + "6331" + "0001" + "68"
                + "00007530" + "00002710" + "00000001" + "01" + "00000001" + "02", HexFormat.of().formatHex(value));
        assertEquals("0002" + "0001" + "67", HexFormat.of().formatHex(GroupRecords.groupKey("g")));
    }

    @Test
    void legacyRecordsAreRecognizedAndRead() {
        OffsetAndMetadata offset = new OffsetAndMetadata(5, 3, null, 10, -1);
        byte[] legacyOffset = LegacyGroupRecords.offsetValue(offset);
        GroupRecords.Key offsetKey = GroupRecords.readKey(Unpooled.wrappedBuffer(GroupRecords.offsetKey("g", "t", 0)));
        assertTrue(GroupRecords.isLegacy(offsetKey, Unpooled.wrappedBuffer(legacyOffset)));
        assertFalse(GroupRecords.isLegacy(offsetKey, Unpooled.wrappedBuffer(GroupRecords.offsetValue(offset))));
        assertFalse(GroupRecords.isLegacy(offsetKey, null), "a tombstone is the same in both layouts");
        assertEquals(offset, GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(legacyOffset)));

        GroupRecords.GroupValue group = new GroupRecords.GroupValue(null, 3, null, null, 1L, List.of(
                new GroupRecords.MemberValue("m1", null, "c1", "h", 1, 2, new byte[] {1}, new byte[0])));
        byte[] legacyGroup = LegacyGroupRecords.groupValue(group);
        GroupRecords.Key groupKey = GroupRecords.readKey(Unpooled.wrappedBuffer(GroupRecords.groupKey("g")));
        assertTrue(GroupRecords.isLegacy(groupKey, Unpooled.wrappedBuffer(legacyGroup)));
        GroupRecords.GroupValue read = GroupRecords.readGroupValue(Unpooled.wrappedBuffer(legacyGroup));
        assertEquals(3, read.generationId());
        assertEquals("m1", read.members().get(0).memberId());

        assertEquals(new GroupRecords.WholeGroupKey("cg", false),
                GroupRecords.readKey(Unpooled.wrappedBuffer(LegacyGroupRecords.wholeGroupKey(1003, "cg"))));
        assertEquals(new GroupRecords.WholeGroupKey("sg", true),
                GroupRecords.readKey(Unpooled.wrappedBuffer(LegacyGroupRecords.wholeGroupKey(1004, "sg"))));
        assertEquals(new GroupRecords.WholeGroupKey("sg", true),
                GroupRecords.readKey(Unpooled.wrappedBuffer(LegacyGroupRecords.wholeGroupKey(4, "sg"))));
        // Key type 3 is Kafka's ConsumerGroupMetadata now: Krill's former whole group there is told by its value.
        GroupRecords.Key three = GroupRecords.readKey(Unpooled.wrappedBuffer(LegacyGroupRecords.wholeGroupKey(3, "cg")));
        assertEquals(new GroupRecords.ModernKey("cg", (short) 3, ""), three);
        for (int members = 0; members < 3; members++) {
            List<WholeGroupRecords.ConsumerMemberValue> list = new java.util.ArrayList<>();
            for (int i = 0; i < members; i++) {
                list.add(new WholeGroupRecords.ConsumerMemberValue("m" + i, null, null, "c", "h", 1, null, List.of("t"), null));
            }
            byte[] former = LegacyGroupRecords.consumerGroupValue(new WholeGroupRecords.ConsumerGroupValue(1, list));
            assertTrue(GroupRecords.isLegacy(three, Unpooled.wrappedBuffer(former)), members + " members");
        }
        assertFalse(GroupRecords.isLegacy(three, Unpooled.wrappedBuffer(io.krill.broker.coordinator.CoordinatorRecords.value(
                new io.krill.wire.coordinator.ConsumerGroupMetadataValue().setEpoch(1).setMetadataHash(7), (short) 0))));
        assertFalse(GroupRecords.isLegacy(three, Unpooled.wrappedBuffer(io.krill.broker.coordinator.CoordinatorRecords.value(
                new io.krill.wire.coordinator.ConsumerGroupMetadataValue().setEpoch(1), (short) 0))));
        assertFalse(GroupRecords.isLegacy(three, null));
    }

    @Test
    void groupKeyAndValueRoundTrip() {
        byte[] key = GroupRecords.groupKey("g");
        assertEquals(new GroupRecords.GroupKey("g"), GroupRecords.readKey(Unpooled.wrappedBuffer(key)));
        GroupRecords.GroupValue value = new GroupRecords.GroupValue("consumer", 5, "range", "m1", 99L, List.of(
                new GroupRecords.MemberValue("m1", null, "c1", "/1.2.3.4", 30000, 10000, new byte[] {1, 2}, new byte[] {3}),
                new GroupRecords.MemberValue("m2", "i2", "c2", "/1.2.3.5", 30000, 10000, new byte[0], new byte[] {4, 5})));
        GroupRecords.GroupValue read = GroupRecords.readGroupValue(Unpooled.wrappedBuffer(GroupRecords.groupValue(value)));
        assertEquals(value.protocolType(), read.protocolType());
        assertEquals(value.generationId(), read.generationId());
        assertEquals(value.protocolName(), read.protocolName());
        assertEquals(value.leaderId(), read.leaderId());
        assertEquals(value.stateTimestamp(), read.stateTimestamp());
        assertEquals(2, read.members().size());
        assertEquals("i2", read.members().get(1).groupInstanceId());
        assertArrayEquals(new byte[] {1, 2}, read.members().get(0).subscription());
        assertArrayEquals(new byte[] {4, 5}, read.members().get(1).assignment());
        GroupRecords.GroupValue empty = new GroupRecords.GroupValue(null, 3, null, null, 1L, List.of());
        GroupRecords.GroupValue readEmpty = GroupRecords.readGroupValue(Unpooled.wrappedBuffer(GroupRecords.groupValue(empty)));
        assertNull(readEmpty.protocolType());
        assertEquals(0, readEmpty.members().size());
    }

    @Test
    void theSameLogicalKeyHasTheSameBytesForCompaction() {
        assertArrayEquals(GroupRecords.offsetKey("g", "t", 1), GroupRecords.offsetKey("g", "t", 1));
        assertArrayEquals(GroupRecords.groupKey("g"), GroupRecords.groupKey("g"));
    }

    @Test
    void unknownKeyTypesAreSkippedAndGarbageIsRefused() {
        assertNull(GroupRecords.readKey(Unpooled.wrappedBuffer(new byte[] {0, 9, 1, 2})));
        byte[] key = GroupRecords.offsetKey("g", "t", 1);
        assertThrows(IllegalArgumentException.class,
                () -> GroupRecords.readKey(Unpooled.wrappedBuffer(Arrays.copyOf(key, key.length - 1))));
        byte[] value = GroupRecords.offsetValue(new OffsetAndMetadata(1, 1, "", 1, -1));
        value[1] = 9; // unknown version
        assertThrows(IllegalArgumentException.class, () -> GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(value)));
    }

    @Test
    void krillsFormerWholeGroupRecordsAreRead() {
        WholeGroupRecords.ConsumerGroupValue plain = new WholeGroupRecords.ConsumerGroupValue(7, List.of(
                new WholeGroupRecords.ConsumerMemberValue("m1", null, "rack-a", "c1", "/127.0.0.1", 300000, "range",
                        List.of("a", "b"), null),
                new WholeGroupRecords.ConsumerMemberValue("m2", "i2", null, "c2", "/127.0.0.2", 0, null, List.of(), null)));
        byte[] bytes = LegacyGroupRecords.consumerGroupValue(plain);
        assertEquals(0, bytes[1]);
        assertEquals(plain, WholeGroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(bytes)));
        WholeGroupRecords.ConsumerGroupValue regex = new WholeGroupRecords.ConsumerGroupValue(3, List.of(
                new WholeGroupRecords.ConsumerMemberValue("m1", null, null, "c1", "/127.0.0.1", 0, null, List.of(),
                        "orders-.*")));
        byte[] regexBytes = LegacyGroupRecords.consumerGroupValue(regex);
        assertEquals(1, regexBytes[1]);
        assertEquals(regex, WholeGroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(regexBytes)));

        java.util.UUID topic = java.util.UUID.randomUUID();
        WholeGroupRecords.ShareGroupValue share = new WholeGroupRecords.ShareGroupValue(7, 6, List.of(
                new WholeGroupRecords.ShareMemberValue("m1", "rack-a", "client", "/10.0.0.1", 6, 5, List.of("a", "b"),
                        java.util.Map.of(topic, java.util.Set.of(0, 2)))),
                java.util.Map.of(topic, java.util.Set.of(0, 1, 2)));
        byte[] shareBytes = LegacyGroupRecords.shareGroupValue(share);
        assertEquals(share, WholeGroupRecords.readShareGroupValue(Unpooled.wrappedBuffer(shareBytes)));
        byte[] later = shareBytes.clone();
        later[1] = 9;
        assertThrows(IllegalArgumentException.class, () -> WholeGroupRecords.readShareGroupValue(Unpooled.wrappedBuffer(later)));
        assertThrows(IllegalArgumentException.class, () -> WholeGroupRecords.readShareGroupValue(
                Unpooled.wrappedBuffer(shareBytes, 0, shareBytes.length - 2)));
    }

    @Test
    void consumerAndShareGroupKeysAreKafkasKeys() {
        assertArrayEquals(io.krill.broker.coordinator.CoordinatorRecords.key(
                new io.krill.wire.coordinator.ConsumerGroupCurrentMemberAssignmentKey().setGroupId("g").setMemberId("m")),
                GroupRecords.modernKey((short) 8, "g", "m"));
        assertArrayEquals(io.krill.broker.coordinator.CoordinatorRecords.key(
                new io.krill.wire.coordinator.ConsumerGroupRegularExpressionKey().setGroupId("g").setRegularExpression("a.*")),
                GroupRecords.modernKey((short) 16, "g", "a.*"));
        assertArrayEquals(io.krill.broker.coordinator.CoordinatorRecords.key(
                new io.krill.wire.coordinator.ShareGroupStatePartitionMetadataKey().setGroupId("g")),
                GroupRecords.modernKey((short) 15, "g", ""));
        for (short type : new short[] {3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16}) {
            String id = ConsumerGroupRecords.LAYOUT.perMember(type) || ShareGroupRecords.LAYOUT.perMember(type)
                    || type == 16 ? "m" : "";
            assertEquals(new GroupRecords.ModernKey("g", type, id),
                    GroupRecords.readKey(Unpooled.wrappedBuffer(GroupRecords.modernKey(type, "g", id))));
        }
    }
}
