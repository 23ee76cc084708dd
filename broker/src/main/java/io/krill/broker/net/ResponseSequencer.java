package io.krill.broker.net;

import io.netty.channel.Channel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Writes one connection's responses in the order its requests arrived, whatever order the handlers
 * finish in (Kafka clients match responses to requests by position as well as by correlation id).
 *
 * <p>Each request takes a slot with {@link #register()}; its handler fills it with {@link #complete}.
 * Completed slots at the head are written and flushed together. A request that gets no response
 * (Produce with acks=0) completes its slot with {@code null}.
 *
 * <p>It also applies back-pressure: with {@code maxInFlight} requests registered and not yet
 * answered, the channel stops reading until half of them are answered.
 *
 * <p>Not thread-safe: confined to the connection's request executor; completions from other threads
 * must be handed to that executor first.
 */
final class ResponseSequencer {
    private static final class Slot {
        Object response;
        boolean done;
    }

    private final Channel channel;
    private final ReadGate gate;
    private final int maxInFlight;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private long headSeq;
    private boolean paused;
    private boolean closed;

    ResponseSequencer(Channel channel, int maxInFlight) {
        this(channel, new ReadGate(channel), maxInFlight);
    }

    /** @param gate shared with the connection's other reasons to stop reading (quota throttles) */
    ResponseSequencer(Channel channel, ReadGate gate, int maxInFlight) {
        this.channel = channel;
        this.gate = gate;
        this.maxInFlight = maxInFlight;
    }

    /** Takes the next slot; returns its sequence number for {@link #complete}. */
    long register() {
        slots.addLast(new Slot());
        if (!paused && slots.size() >= maxInFlight) {
            paused = true;
            gate.close();
        }
        return headSeq + slots.size() - 1;
    }

    /**
     * Fills slot {@code seq} with {@code response} (a message the pipeline can write, or null for none)
     * and writes every completed response at the head of the queue.
     */
    void complete(long seq, Object response) {
        long index = seq - headSeq;
        if (index < 0 || index >= slots.size()) {
            throw new IllegalStateException("no pending slot " + seq + " (head " + headSeq + ", " + slots.size() + " pending)");
        }
        Slot slot = slotAt((int) index);
        if (slot.done) {
            throw new IllegalStateException("slot " + seq + " completed twice");
        }
        slot.done = true;
        if (closed) {
            release(response);
            return;
        }
        slot.response = response;
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().done) {
            Slot head = slots.pollFirst();
            headSeq++;
            if (head.response instanceof java.util.List<?> parts) {
                for (Object part : parts) {
                    channel.write(part, channel.voidPromise());
                }
                wrote = true;
            } else if (head.response != null) {
                channel.write(head.response, channel.voidPromise());
                wrote = true;
            }
        }
        if (wrote) {
            channel.flush();
        }
        if (paused && slots.size() <= maxInFlight / 2) {
            paused = false;
            gate.open();
        }
    }

    /**
     * The connection is gone: releases responses waiting behind unfinished ones, and makes later
     * completions release theirs instead of writing them.
     */
    void close() {
        closed = true;
        for (Slot slot : slots) {
            release(slot.response);
            slot.response = null;
        }
    }

    private static void release(Object response) {
        if (response instanceof java.util.List<?> parts) {
            for (Object part : parts) {
                ReferenceCountUtil.release(part);
            }
        } else {
            ReferenceCountUtil.release(response);
        }
    }

    int pending() {
        return slots.size();
    }

    private Slot slotAt(int index) {
        if (index == 0) {
            return slots.peekFirst();
        }
        if (index == slots.size() - 1) {
            return slots.peekLast();
        }
        int i = 0;
        for (Slot slot : slots) {
            if (i++ == index) {
                return slot;
            }
        }
        throw new IllegalStateException("unreachable");
    }
}
