package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupRecordsTest {

    @Test
    void offsetKeyAndValueRoundTrip() {
        byte[] key = GroupRecords.offsetKey("group-é", "topic", 7);
        assertEquals(new GroupRecords.OffsetKey("group-é", "topic", 7), GroupRecords.readKey(Unpooled.wrappedBuffer(key)));
        OffsetAndMetadata value = new OffsetAndMetadata(123L, 4, "meta", 1000L, -1L);
        assertEquals(value, GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(GroupRecords.offsetValue(value))));
        OffsetAndMetadata nullMetadata = new OffsetAndMetadata(1L, -1, null, 2L, 3L);
        assertEquals(nullMetadata, GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(GroupRecords.offsetValue(nullMetadata))));
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
    void consumerGroupKeyAndValueRoundTrip() {
        byte[] key = GroupRecords.consumerGroupKey("cg");
        assertEquals(new GroupRecords.ConsumerGroupKey("cg"), GroupRecords.readKey(Unpooled.wrappedBuffer(key)));
        GroupRecords.ConsumerGroupValue value = new GroupRecords.ConsumerGroupValue(7, java.util.List.of(
                new GroupRecords.ConsumerMemberValue("m1", null, "rack-a", "c1", "/127.0.0.1", 300000, "range",
                        java.util.List.of("a", "b")),
                new GroupRecords.ConsumerMemberValue("m2", "i2", null, "c2", "/127.0.0.2", 0, null,
                        java.util.List.of())));
        byte[] bytes = GroupRecords.consumerGroupValue(value);
        assertEquals(0, bytes[1], "without regexes the version stays 0, readable by brokers before them");
        assertEquals(value, GroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(bytes)));
    }

    @Test
    void aMemberRegexIsKeptInVersionOne() {
        GroupRecords.ConsumerGroupValue value = new GroupRecords.ConsumerGroupValue(3, java.util.List.of(
                new GroupRecords.ConsumerMemberValue("m1", null, null, "c1", "/127.0.0.1", 0, null,
                        java.util.List.of(), "orders-.*"),
                new GroupRecords.ConsumerMemberValue("m2", null, null, "c2", "/127.0.0.2", 0, null,
                        java.util.List.of("a"), null)));
        byte[] bytes = GroupRecords.consumerGroupValue(value);
        assertEquals(1, bytes[1]);
        assertEquals(value, GroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(bytes)));
    }
}
