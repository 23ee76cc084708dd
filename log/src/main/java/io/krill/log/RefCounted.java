package io.krill.log;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open OS resource (a file channel, an index mapping) shared by reference count: whoever holds a
 * reference may use it; the last {@link #release()} closes it. Created with one reference for the creator.
 * Thread-safe.
 */
abstract class RefCounted {
    private final AtomicInteger refs = new AtomicInteger(1);

    /** Takes a reference unless the resource is already closed (count at zero). */
    final boolean tryRetain() {
        while (true) {
            int r = refs.get();
            if (r <= 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    final void retain() {
        if (!tryRetain()) {
            throw new IllegalStateException("retain of a closed " + this);
        }
    }

    final void release() {
        int r = refs.decrementAndGet();
        if (r == 0) {
            closeResource();
        } else if (r < 0) {
            throw new IllegalStateException("released more often than retained: " + this);
        }
    }

    final int refCount() {
        return refs.get();
    }

    /** Frees the OS resource; called once, by the last release. Must not throw. */
    protected abstract void closeResource();
}
