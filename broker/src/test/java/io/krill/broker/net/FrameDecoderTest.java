package io.krill.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

    private static ByteBuf frame(int size, int fill) {
        ByteBuf buf = Unpooled.buffer(4 + size);
        buf.writeInt(size);
        for (int i = 0; i < size; i++) {
            buf.writeByte(fill);
        }
        return buf;
    }

    @Test
    void splitsFramesAcrossArbitraryChunks() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(1024));
        ByteBuf stream = Unpooled.buffer();
        stream.writeBytes(frame(5, 1)).writeBytes(frame(0, 0)).writeBytes(frame(300, 7));
        while (stream.isReadable()) {
            channel.writeInbound(stream.readRetainedSlice(Math.min(3, stream.readableBytes())));
        }
        stream.release();
        ByteBuf first = channel.readInbound();
        ByteBuf empty = channel.readInbound();
        ByteBuf third = channel.readInbound();
        try {
            assertEquals(5, first.readableBytes());
            assertEquals(1, first.getByte(0));
            assertEquals(0, empty.readableBytes());
            assertEquals(300, third.readableBytes());
            assertEquals(7, third.getByte(299));
            assertNull(channel.readInbound());
        } finally {
            first.release();
            empty.release();
            third.release();
            assertFalse(channel.finish());
        }
    }

    @Test
    void oversizeLengthClosesWithoutAllocating() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(1024));
        ByteBuf huge = Unpooled.buffer().writeInt(Integer.MAX_VALUE).writeByte(1);
        channel.writeInbound(huge);
        assertNull(channel.readInbound());
        assertFalse(channel.isOpen());
    }

    @Test
    void negativeLengthCloses() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(1024));
        channel.writeInbound(Unpooled.buffer().writeInt(-1));
        assertNull(channel.readInbound());
        assertFalse(channel.isOpen());
    }

    @Test
    void frameAtTheLimitPasses() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(16));
        channel.writeInbound(frame(16, 3));
        ByteBuf frame = channel.readInbound();
        try {
            assertEquals(16, frame.readableBytes());
            assertTrue(channel.isOpen());
        } finally {
            frame.release();
            channel.finishAndReleaseAll();
        }
    }
}
