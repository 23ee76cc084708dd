package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The share group record (key type 4 of {@link GroupRecords}): round trip and rejection of what it cannot read. */
class ShareGroupRecordsTest {
    @Test
    void aShareGroupRecordRoundTrips() {
        UUID topic = UUID.randomUUID();
        GroupRecords.ShareGroupValue value = new GroupRecords.ShareGroupValue(7, 6, List.of(
                new GroupRecords.ShareMemberValue("m1", "rack-a", "client", "/10.0.0.1", 6, 5, List.of("a", "b"),
                        Map.of(topic, Set.of(0, 2))),
                new GroupRecords.ShareMemberValue("m2", null, "client", "/10.0.0.2", 6, 0, List.of("a"), Map.of())),
                Map.of(topic, Set.of(0, 1, 2)));
        byte[] bytes = GroupRecords.shareGroupValue(value);
        assertEquals(value, GroupRecords.readShareGroupValue(Unpooled.wrappedBuffer(bytes)));
        assertEquals(new GroupRecords.ShareGroupKey("g"),
                GroupRecords.readKey(Unpooled.wrappedBuffer(GroupRecords.shareGroupKey("g"))));
    }

    @Test
    void anUnknownVersionOrATruncatedValueIsRejected() {
        byte[] bytes = GroupRecords.shareGroupValue(new GroupRecords.ShareGroupValue(1, 1, List.of(), Map.of()));
        byte[] later = bytes.clone();
        later[1] = 9;
        assertThrows(IllegalArgumentException.class, () -> GroupRecords.readShareGroupValue(Unpooled.wrappedBuffer(later)));
        assertThrows(IllegalArgumentException.class, () -> GroupRecords.readShareGroupValue(
                Unpooled.wrappedBuffer(bytes, 0, bytes.length - 2)));
    }
}
