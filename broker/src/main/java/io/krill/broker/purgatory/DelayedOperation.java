package io.krill.broker.purgatory;

import io.netty.util.Timeout;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request that waits for an event (an acks=all produce for the ISR to catch up, a long-poll fetch for
 * data, a join for the rest of the group) or for its deadline, whichever comes first.
 *
 * <p>Subclasses implement {@link #tryComplete()}, which checks the condition and calls
 * {@link #forceComplete()} when it holds, and {@link #onComplete()}, which sends the answer; it runs
 * exactly once, on whichever thread won the race (the event's, or the timer's on expiry, after
 * {@link #onExpiration()}).
 *
 * <p>Thread-safe: tryComplete may be called concurrently from several event threads; completion is
 * decided by one compare-and-set.
 */
public abstract class DelayedOperation {
    private final long delayMs;
    private final AtomicBoolean completed = new AtomicBoolean();
    private volatile Timeout timeout;

    protected DelayedOperation(long delayMs) {
        this.delayMs = delayMs;
    }

    public final long delayMs() {
        return delayMs;
    }

    /** Checks whether the operation can complete now; if so calls {@link #forceComplete()} and returns its result. */
    public abstract boolean tryComplete();

    /**
     * {@link #tryComplete()}, told the key whose event woke the operation: one that watches many keys
     * (a follower's fetch watches thousands of partitions) may look at that key's state only, since every
     * other key's events wake it on their own. By default the whole condition is checked.
     */
    public boolean tryComplete(Object key) {
        return tryComplete();
    }

    /** Sends the result. Called once. */
    protected abstract void onComplete();

    /** Called once, before {@link #onComplete()}, when the deadline passed first. */
    protected void onExpiration() {
    }

    /** Completes the operation unless someone else already did; true for the caller that did. */
    public final boolean forceComplete() {
        return completeWith(null);
    }

    /**
     * As {@link #forceComplete()}, handing {@link #onComplete(Object)} what the caller found while
     * checking (the answer it would send), so that it need not be worked out again. A caller that gets
     * false keeps what it found (and must release it).
     */
    protected final boolean completeWith(Object found) {
        if (completed.compareAndSet(false, true)) {
            Timeout armed = timeout;
            if (armed != null) {
                armed.cancel();
            }
            onComplete(found);
            return true;
        }
        return false;
    }

    /**
     * Sends the result from what {@link #completeWith} was handed (null from {@link #forceComplete()} and
     * on expiry). By default {@link #onComplete()}. Called once, instead of it.
     */
    protected void onComplete(Object found) {
        onComplete();
    }

    /** Remembers the armed deadline so that an early completion frees its timer slot. */
    final void setTimeout(Timeout timeout) {
        this.timeout = timeout;
        if (isCompleted()) {
            timeout.cancel();
        }
    }

    public final boolean isCompleted() {
        return completed.get();
    }

    /** Timer path: completes as expired if nothing else completed it first. */
    final void expire() {
        if (completed.compareAndSet(false, true)) {
            onExpiration();
            onComplete(null);
        }
    }
}
