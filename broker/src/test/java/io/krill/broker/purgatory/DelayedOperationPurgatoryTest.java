package io.krill.broker.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every wait is bounded and fails with its own message; each test as a whole fails after 60 s, even if
 * it is stuck in a loop that ignores interrupts (it runs on a separate thread).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DelayedOperationPurgatoryTest {
    /** How long a racing thread may take to start or to finish. */
    private static final long THREAD_PATIENCE_SECONDS = 20;

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

    /** Completes with what its check found; remembers what each completion was handed. */
    private static final class FindingOperation extends DelayedOperation {
        final ConcurrentLinkedQueue<Object> handed = new ConcurrentLinkedQueue<>();

        FindingOperation(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            return false;
        }

        boolean found(Object what) {
            return completeWith(what);
        }

        @Override
        protected void onComplete(Object found) {
            handed.add(found == null ? "nothing" : found);
        }

        @Override
        protected void onComplete() {
            throw new AssertionError("onComplete(Object) is called instead");
        }
    }

    /** A check that found the answer hands it to the completion (a waiting fetch does not read twice); a loser keeps its own. */
    @Test
    void completionIsHandedWhatTheWinningCheckFound() {
        FindingOperation op = new FindingOperation(10_000);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a")));
        assertTrue(op.found("first"));
        assertFalse(op.found("second"), "completed already: the second finder keeps (and releases) its own");
        assertEquals(List.of("first"), List.copyOf(op.handed));

        FindingOperation expiring = new FindingOperation(20);
        assertFalse(purgatory.tryCompleteElseWatch(expiring, List.of("b")));
        await().atMost(Duration.ofSeconds(5)).until(() -> !expiring.handed.isEmpty());
        assertEquals(List.of("nothing"), List.copyOf(expiring.handed), "an expiry hands nothing: the answer is worked out then");
    }

    @Test
    void expiresAtItsDeadlineExactlyOnce() {
        CountingOperation op = new CountingOperation(50, new AtomicInteger(), 1);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a")));
        await().atMost(Duration.ofSeconds(5)).until(() -> op.completions.get() == 1);
        assertTrue(op.expired);
        op.events.incrementAndGet();
        assertEquals(0, purgatory.checkAndComplete("a"), "an expired operation does not complete again");
        assertEquals(1, op.completions.get());
    }

    @Test
    void racingEventsCompleteEachOperationOnce() throws Exception {
        AtomicInteger events = new AtomicInteger();
        int operations = 2000;
        CountingOperation[] ops = new CountingOperation[operations];
        Thread[] threads = new Thread[4];
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                try {
                    if (!start.await(THREAD_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                        throw new AssertionError("not started within " + THREAD_PATIENCE_SECONDS + " s");
                    }
                    for (int i = 0; i < 5000; i++) {
                        events.incrementAndGet();
                        purgatory.checkAndComplete("k");
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "racing-events-" + t);
            threads[t].setDaemon(true);
            threads[t].start();
        }
        start.countDown();
        for (int i = 0; i < operations; i++) {
            ops[i] = new CountingOperation(60_000, events, events.get() + 3);
            purgatory.tryCompleteElseWatch(ops[i], List.of("k"));
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(THREAD_PATIENCE_SECONDS));
            assertFalse(thread.isAlive(), thread.getName() + " still running after " + THREAD_PATIENCE_SECONDS + " s");
        }
        assertTrue(errors.isEmpty(), () -> "racing threads failed: " + errors);
        // The last checkAndComplete ran after the last event: an operation whose condition then held
        // completed, whether it was watched before that check or watched after it (and re-checked).
        int racedEvents = events.get();
        for (int i = 0; i < operations; i++) {
            if (ops[i].needed <= racedEvents) {
                assertEquals(1, ops[i].completions.get(), "operation " + i + " needs " + ops[i].needed
                        + " events of " + racedEvents + ": a lost wake-up");
            }
        }
        events.addAndGet(3); // operations registered after the racing threads ended need these
        purgatory.checkAndComplete("k");
        for (CountingOperation op : ops) {
            assertEquals(1, op.completions.get(), "every operation completes exactly once");
            assertFalse(op.expired);
        }
        assertEquals(0, purgatory.watched(), "completed operations are no longer listed");
    }
}
