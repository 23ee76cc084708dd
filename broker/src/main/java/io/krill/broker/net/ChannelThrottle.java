package io.krill.broker.net;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Mutes a connection for a throttle time (KIP-219): the response carrying the throttle time goes out
 * first, then the socket is not read until the time has passed, so a client that ignores the throttle
 * time cannot go on sending. Overlapping throttles each hold the {@link ReadGate} until their own end.
 *
 * <p>Not thread-safe: confined to the connection's request executor, which also runs the re-opening.
 */
final class ChannelThrottle {
    private final ReadGate gate;
    private final EventExecutor executor;

    ChannelThrottle(ReadGate gate, EventExecutor executor) {
        this.gate = gate;
        this.executor = executor;
    }

    void mute(int throttleMs) {
        gate.close();
        executor.schedule(gate::open, throttleMs, TimeUnit.MILLISECONDS);
    }
}
