package io.krill.wire.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class ByteBufRecordsTest {

    @Test
    void wrapsTheReadableBytesWithoutCopyingOrMovingIndices() {
        byte[] backing = {0, 1, 2, 3, 4, 5};
        ByteBuf buf = Unpooled.wrappedBuffer(backing).readerIndex(1).writerIndex(5);
        ByteBufRecords records = ByteBufRecords.of(buf);
        assertEquals(1, buf.readerIndex());
        assertEquals(4, records.sizeInBytes());
        // Later moves of the original's indices, or of a buffer() view, do not change the records.
        buf.skipBytes(2);
        records.buffer().skipBytes(3);
        assertEquals(4, records.sizeInBytes());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, ByteBufUtil.getBytes(records.buffer()));
        // Same memory: not a copy.
        backing[1] = 9;
        assertEquals(9, records.buffer().getByte(records.buffer().readerIndex()));
        assertEquals(buf.refCnt(), records.buffer().refCnt());
    }

    @Test
    void writeToWritesTheBytesAndCanRepeat() {
        ByteBufRecords records = ByteBufRecords.of(Unpooled.wrappedBuffer(new byte[] {7, 8}));
        ByteBuf out = Unpooled.buffer();
        records.writeTo(out);
        records.writeTo(out);
        assertArrayEquals(new byte[] {7, 8, 7, 8}, ByteBufUtil.getBytes(out));
    }

    @Test
    void equalityIsByContentAndToStringIsShort() {
        ByteBufRecords a = ByteBufRecords.of(Unpooled.wrappedBuffer(new byte[] {0, 1, 2}).skipBytes(1));
        ByteBufRecords b = ByteBufRecords.of(Unpooled.copiedBuffer(new byte[] {1, 2}));
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, ByteBufRecords.of(Unpooled.wrappedBuffer(new byte[] {1, 3})));
        assertEquals("ByteBufRecords[2 bytes]", a.toString());
        assertEquals("records[2]", MessageText.records(a));
        assertEquals("null", MessageText.records(null));
    }

    @Test
    void codecWritesTheLengthFromSizeInBytes() {
        ByteBufRecords records = ByteBufRecords.of(Unpooled.wrappedBuffer(new byte[200]));
        for (boolean compact : new boolean[] {false, true}) {
            ByteBuf out = Unpooled.buffer();
            ByteBufCodec.writeRecords(out, records, compact, false, "f");
            assertEquals(ByteBufCodec.recordsSize(records, compact), out.readableBytes());
            assertEquals(compact ? 2 + 200 : 4 + 200, out.readableBytes());
            assertEquals(records, ByteBufCodec.readRecords(out, compact, false));
            ByteBufCodec.writeRecords(out, null, compact, true, "f");
            assertEquals(ByteBufCodec.recordsSize(null, compact), out.readableBytes());
            assertNull(ByteBufCodec.readRecords(out, compact, true));
            assertThrows(UnwritableMessageException.class,
                () -> ByteBufCodec.writeRecords(Unpooled.buffer(), null, compact, false, "f"));
        }
    }
}
