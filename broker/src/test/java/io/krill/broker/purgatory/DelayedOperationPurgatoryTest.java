package io.krill.broker.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DelayedOperationPurgatoryTest {
    private final DelayedOperationPurgatory<String> purgatory = new DelayedOperationPurgatory<>("test");

    @AfterEach
    void close() {
        purgatory.close();
    }

    /** Completes once {@code needed} events have been counted. */
    private static final class CountingOperation extends DelayedOperation {
        final AtomicInteger events;
        final int needed;
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean expired;

        CountingOperation(long delayMs, AtomicInteger events, int needed) {
            super(delayMs);
            this.events = events;
            this.needed = needed;
        }

        @Override
        public boolean tryComplete() {
            return events.get() >= needed && forceComplete();
        }

        @Override
        protected void onExpiration() {
            expired = true;
        }

        @Override
        protected void onComplete() {
            completions.incrementAndGet();
        }
    }

    @Test
    void completesImmediatelyWhenTheConditionHolds() {
        CountingOperation op = new CountingOperation(10_000, new AtomicInteger(1), 1);
        assertTrue(purgatory.tryCompleteElseWatch(op, List.of("a")));
        assertEquals(1, op.completions.get());
        assertEquals(0, purgatory.watched());
    }

    @Test
    void completesOnTheEventOfAnyOfItsKeys() {
        AtomicInteger events = new AtomicInteger();
        CountingOperation op = new CountingOperation(10_000, events, 1);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a", "b")));
        assertEquals(0, purgatory.checkAndComplete("a"));
        events.incrementAndGet();
        assertEquals(1, purgatory.checkAndComplete("b"));
        assertEquals(0, purgatory.checkAndComplete("a"));
        assertEquals(1, op.completions.get());
        assertFalse(op.expired);
        assertEquals(0, purgatory.watched());
    }

    @Test
    void expiresAtItsDeadlineExactlyOnce() {
        CountingOperation op = new CountingOperation(50, new AtomicInteger(), 1);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a")));
        await().atMost(Duration.ofSeconds(5)).until(() -> op.completions.get() == 1);
        assertTrue(op.expired);
        op.events.incrementAndGet();
        purgatory.checkAndComplete("a");
        assertEquals(1, op.completions.get());
    }

    @Test
    void racingEventsCompleteEachOperationOnce() throws Exception {
        AtomicInteger events = new AtomicInteger();
        int operations = 2000;
        CountingOperation[] ops = new CountingOperation[operations];
        Thread[] threads = new Thread[4];
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < 5000; i++) {
                    events.incrementAndGet();
                    purgatory.checkAndComplete("k");
                }
            });
            threads[t].start();
        }
        start.countDown();
        for (int i = 0; i < operations; i++) {
            ops[i] = new CountingOperation(60_000, events, events.get() + 3);
            purgatory.tryCompleteElseWatch(ops[i], List.of("k"));
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        events.addAndGet(3); // operations registered after the racing threads ended need these
        purgatory.checkAndComplete("k");
        for (CountingOperation op : ops) {
            assertEquals(1, op.completions.get(), "every operation completes exactly once");
            assertFalse(op.expired);
        }
    }
}
