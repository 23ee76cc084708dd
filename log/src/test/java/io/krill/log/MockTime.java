package io.krill.log;

import java.util.concurrent.atomic.AtomicLong;

/** A settable clock for tests. */
final class MockTime implements Time {
    private final AtomicLong ms;

    MockTime(long startMs) {
        ms = new AtomicLong(startMs);
    }

    MockTime() {
        this(1_700_000_000_000L);
    }

    @Override
    public long milliseconds() {
        return ms.get();
    }

    @Override
    public long nanoseconds() {
        return ms.get() * 1_000_000L;
    }

    void sleep(long delta) {
        ms.addAndGet(delta);
    }
}
