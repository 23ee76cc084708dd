package io.krill.controller.cluster;

import java.util.function.Consumer;

/**
 * Whether this broker may act on its partition roles. It may only while all of these hold:
 * <ul>
 *   <li>it has joined the cluster (and not begun to leave);</li>
 *   <li>Krill's own ZooKeeper session is connected: its watcher runs on ZooKeeper's event thread, so a
 *       lost connection fences at once;</li>
 *   <li>ZooKeeper shows this broker's live-instance node owned by the Helix session that finished its
 *       set-up (read through Krill's session, whose events are prompt): when ZooKeeper expires the
 *       session the node goes, and only then can the controller promote another broker;</li>
 *   <li>Helix reports its session connected and set up. Helix delivers these reports on its own event
 *       thread, which can lag behind (it runs listener callbacks that wait for the connection), so
 *       they only ever delay unfencing, never fencing.</li>
 * </ul>
 * A disconnected client cannot tell whether its session will survive, so fencing starts at the
 * disconnect, before any expiry. Fencing is an early stop: the guarantee is that a zombie leader's
 * next ISR change fails its compare-and-set.
 *
 * <p>Thread-safe: the inputs are volatile and set from ZooKeeper, Helix and notification threads; a
 * change of the combined state is reported under this object's monitor, in the order it happens.
 */
final class SessionFence {
    private final Consumer<Boolean> onChange;
    private volatile boolean joined;
    private volatile boolean helixConnected;
    private volatile boolean helixSessionReady;
    private volatile boolean dataConnected;
    private volatile long helixSession;
    private volatile long liveInstanceOwner;
    private boolean reported = true;

    SessionFence(Consumer<Boolean> onChange) {
        this.onChange = onChange;
    }

    boolean isFenced() {
        long session = helixSession;
        return !(joined && dataConnected && helixConnected && helixSessionReady && session != 0
                && liveInstanceOwner == session);
    }

    void joined(boolean value) {
        joined = value;
        changed();
    }

    void dataConnected(boolean value) {
        dataConnected = value;
        changed();
    }

    void helixConnected(boolean value) {
        helixConnected = value;
        changed();
    }

    /** A new Helix session is being set up: fenced until {@link #helixSessionReady(long)}. */
    void helixSessionStarting() {
        helixSessionReady = false;
        changed();
    }

    /** Helix has set up session {@code sessionId}: registered, resigned, live. */
    void helixSessionReady(long sessionId) {
        helixSession = sessionId;
        helixSessionReady = true;
        changed();
    }

    /** The session that owns this broker's live-instance node, as ZooKeeper shows it; 0 for none. */
    void liveInstanceOwner(long sessionId) {
        liveInstanceOwner = sessionId;
        changed();
    }

    private synchronized void changed() {
        boolean fenced = isFenced();
        if (fenced != reported) {
            reported = fenced;
            onChange.accept(fenced);
        }
    }
}
