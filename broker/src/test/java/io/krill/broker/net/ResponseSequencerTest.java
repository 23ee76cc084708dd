package io.krill.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class ResponseSequencerTest {

    private static ByteBuf response(int id) {
        return Unpooled.buffer(4).writeInt(id);
    }

    private static int readId(EmbeddedChannel channel) {
        ByteBuf out = channel.readOutbound();
        try {
            return out.readInt();
        } finally {
            out.release();
        }
    }

    @Test
    void writesInRequestOrderWhateverTheCompletionOrder() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel, 100);
        long a = sequencer.register();
        long b = sequencer.register();
        long c = sequencer.register();
        sequencer.complete(c, response(3));
        sequencer.complete(b, response(2));
        assertNull(channel.readOutbound(), "nothing may overtake the first request");
        sequencer.complete(a, response(1));
        assertEquals(1, readId(channel));
        assertEquals(2, readId(channel));
        assertEquals(3, readId(channel));
        assertEquals(0, sequencer.pending());
        channel.finishAndReleaseAll();
    }

    @Test
    void requestsWithoutResponseKeepTheirPlace() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel, 100);
        long a = sequencer.register();
        long b = sequencer.register();
        sequencer.complete(b, response(2));
        sequencer.complete(a, null);
        assertEquals(2, readId(channel));
        assertNull(channel.readOutbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void stopsReadingWhenTooManyAreInFlight() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel, 4);
        long[] seqs = new long[4];
        for (int i = 0; i < 4; i++) {
            seqs[i] = sequencer.register();
        }
        assertFalse(channel.config().isAutoRead());
        sequencer.complete(seqs[0], null);
        assertFalse(channel.config().isAutoRead());
        sequencer.complete(seqs[1], null);
        assertTrue(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }

    @Test
    void releasesResponsesAfterClose() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel, 100);
        long a = sequencer.register();
        long b = sequencer.register();
        ByteBuf waiting = response(2);
        sequencer.complete(b, waiting);
        sequencer.close();
        assertEquals(0, waiting.refCnt());
        ByteBuf late = response(1);
        sequencer.complete(a, late);
        assertEquals(0, late.refCnt());
        assertNull(channel.readOutbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void throttlesAndBackPressureComposeOnOneGate() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ReadGate gate = new ReadGate(channel);
        ResponseSequencer sequencer = new ResponseSequencer(channel, gate, 2);
        gate.close(); // a quota throttle
        long a = sequencer.register();
        long b = sequencer.register();
        assertFalse(channel.config().isAutoRead());
        sequencer.complete(a, null);
        sequencer.complete(b, null);
        assertFalse(channel.config().isAutoRead(), "the in-flight limit lifted, the throttle still holds");
        gate.open();
        assertTrue(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }

    @Test
    void channelThrottleReopensAfterItsTime() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        ReadGate gate = new ReadGate(channel);
        ChannelThrottle throttle = new ChannelThrottle(gate, channel.eventLoop());
        throttle.mute(1);
        throttle.mute(50);
        assertFalse(channel.config().isAutoRead());
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> {
            channel.runPendingTasks();
            channel.runScheduledPendingTasks();
            return channel.config().isAutoRead();
        });
        assertTrue(gate.isOpen());
        channel.finishAndReleaseAll();
    }
}
