package io.krill.wire.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.junit.jupiter.api.Test;

class ByteBufCodecTest {

    @Test
    void unsignedVarintsMatchKafka() {
        int[] values = {0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, Integer.MAX_VALUE, -1,
            Integer.MIN_VALUE};
        for (int v : values) {
            ByteBuffer kafka = ByteBuffer.allocate(5);
            ByteUtils.writeUnsignedVarint(v, kafka);
            ByteBuf krill = Unpooled.buffer();
            ByteBufCodec.writeUnsignedVarint(krill, v);
            assertArrayEquals(java.util.Arrays.copyOf(kafka.array(), kafka.position()), ByteBufUtil.getBytes(krill));
            assertEquals(ByteUtils.sizeOfUnsignedVarint(v), ByteBufCodec.sizeOfUnsignedVarint(v));
            assertEquals(v, ByteBufCodec.readUnsignedVarint(krill));
        }
    }

    @Test
    void badVarintsAreMalformed() {
        assertThrows(MalformedMessageException.class, () -> ByteBufCodec.readUnsignedVarint(bytes(0x80, 0x80)));
        assertThrows(MalformedMessageException.class,
            () -> ByteBufCodec.readUnsignedVarint(bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x00)));
        assertThrows(MalformedMessageException.class,
            () -> ByteBufCodec.readUnsignedVarint(bytes(0xff, 0xff, 0xff, 0xff, 0x1f)));
        assertThrows(MalformedMessageException.class, () -> ByteBufCodec.readUnsignedVarint(bytes()));
    }

    @Test
    void stringsAreUtf8WithExactSizes() {
        for (String s : new String[] {"", "a", "é", "中文", "\uD83D\uDE00x", "a".repeat(200)}) {
            for (boolean compact : new boolean[] {false, true}) {
                ByteBuf buf = Unpooled.buffer();
                ByteBufCodec.writeString(buf, s, compact, false, "f");
                assertEquals(ByteBufCodec.stringSize(s, compact), buf.readableBytes());
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                assertEquals(utf8.length, buf.readableBytes() - (compact
                    ? ByteBufCodec.sizeOfUnsignedVarint(utf8.length + 1) : 2));
                assertEquals(s, ByteBufCodec.readString(buf, compact, false));
            }
        }
    }

    @Test
    void loneSurrogatesEncodeAsTheJdkAndKafkaDo() {
        for (String s : new String[] {"a\uD800b", "\uD800\uD800\uDC00", "x\uD800\u00e9", "\uDC00", "z\uD83D"}) {
            byte[] jdk = s.getBytes(StandardCharsets.UTF_8);
            ByteBuf buf = Unpooled.buffer();
            ByteBufCodec.writeString(buf, s, true, false, "f");
            assertEquals(ByteBufCodec.stringSize(s, true), buf.readableBytes());
            assertEquals(jdk.length + 1, buf.readUnsignedByte());
            assertArrayEquals(jdk, ByteBufUtil.getBytes(buf));
        }
    }

    @Test
    void nullStringsAndLimits() {
        ByteBuf buf = Unpooled.buffer();
        ByteBufCodec.writeString(buf, null, false, true, "f");
        ByteBufCodec.writeString(buf, null, true, true, "f");
        assertArrayEquals(new byte[] {-1, -1, 0}, ByteBufUtil.getBytes(buf));
        assertNull(ByteBufCodec.readString(buf, false, true));
        assertNull(ByteBufCodec.readString(buf, true, true));
        assertThrows(MalformedMessageException.class, () -> ByteBufCodec.readString(bytes(0xff, 0xff), false, false));
        assertThrows(MalformedMessageException.class, () -> ByteBufCodec.readString(bytes(0xff, 0xfe), false, true));
        assertThrows(MalformedMessageException.class, () -> ByteBufCodec.readString(bytes(0, 5, 'a'), false, false));
        assertThrows(UnwritableMessageException.class, () -> ByteBufCodec.writeString(Unpooled.buffer(), null, true,
            false, "f"));
        assertThrows(UnwritableMessageException.class,
            () -> ByteBufCodec.writeString(Unpooled.buffer(), "x".repeat(40000), true, false, "f"));
    }

    @Test
    void unsignedRangesAreCheckedOnWrite() {
        assertThrows(UnwritableMessageException.class, () -> ByteBufCodec.writeUint16(Unpooled.buffer(), 65536, "f"));
        assertThrows(UnwritableMessageException.class, () -> ByteBufCodec.writeUint32(Unpooled.buffer(), -1L, "f"));
        ByteBuf buf = Unpooled.buffer();
        ByteBufCodec.writeUint16(buf, 65535, "f");
        ByteBufCodec.writeUint32(buf, 0xffffffffL, "f");
        assertEquals(65535, buf.readUnsignedShort());
        assertEquals(0xffffffffL, buf.readUnsignedInt());
    }

    @Test
    void arrayCountsMustFitTheRemainingBytes() {
        assertEquals(2, ByteBufCodec.readArrayLength(bytes(0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8), false, false, 4));
        assertThrows(MalformedMessageException.class,
            () -> ByteBufCodec.readArrayLength(bytes(0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8), false, false, 4));
        assertThrows(MalformedMessageException.class,
            () -> ByteBufCodec.readArrayLength(bytes(0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4), false, false, 1));
        assertEquals(-1, ByteBufCodec.readArrayLength(bytes(0), true, true, 1));
        assertThrows(MalformedMessageException.class, () -> ByteBufCodec.readArrayLength(bytes(0), true, false, 1));
    }

    @Test
    void unknownTaggedFieldsMergeByTag() {
        List<RawTaggedField> unknown = new ArrayList<>(List.of(new RawTaggedField(1, new byte[] {9}),
            new RawTaggedField(4, new byte[0])));
        ByteBuf buf = Unpooled.buffer();
        int i = TaggedFields.writeUnknown(buf, unknown, 0, 0);
        assertEquals(0, i);
        buf.writeByte(0xaa); // a known tag 0
        i = TaggedFields.writeUnknown(buf, unknown, i, 3);
        buf.writeByte(0xbb); // a known tag 3
        TaggedFields.writeUnknown(buf, unknown, i, Integer.MAX_VALUE);
        assertArrayEquals(new byte[] {(byte) 0xaa, 1, 1, 9, (byte) 0xbb, 4, 0}, ByteBufUtil.getBytes(buf));
        assertEquals(5, TaggedFields.size(unknown));
        assertEquals(true, TaggedFields.equal(null, new ArrayList<>()));
    }

    private static ByteBuf bytes(int... values) {
        ByteBuf buf = Unpooled.buffer(values.length);
        for (int v : values) {
            buf.writeByte(v);
        }
        return buf;
    }
}
