package io.krill.compat.faults;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A part of the campaign's workload running on a daemon thread of its own until it is stopped: the writers
 * and readers. A subclass starts it once its own fields are set ({@link #start}), loops while
 * {@link #running()}, and is stopped with {@link #stop} (wait for the loop to end, or fail the campaign) or
 * {@link #close} (ask it to end, after a failure elsewhere).
 *
 * <p>Thread-safety: {@code running} is volatile; the rest belongs to the thread.
 */
abstract class WorkloadThread implements AutoCloseable {
    private final Thread thread;
    private volatile boolean running = true;

    WorkloadThread(String threadName) {
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** The loop; returns once {@link #running()} is false. */
    protected abstract void run();

    /** Starts the thread; the subclass's constructor calls it last. */
    protected final void start() {
        thread.start();
    }

    protected final boolean running() {
        return running;
    }

    /** Stops the loop and waits up to {@code bound} for it to end; a loop still running fails the campaign. */
    protected final void stopWithin(Duration bound, String doing) throws InterruptedException {
        running = false;
        thread.join(bound.toMillis());
        if (thread.isAlive()) {
            throw new AssertionError(thread.getName() + " did not " + doing + " within " + bound.toSeconds() + " s");
        }
    }

    /** Asks the loop to end, without waiting. */
    protected final void requestStop() {
        running = false;
    }

    /** Asks the loop to end, waiting for it up to {@code bound} (more than zero). */
    protected final void closeWithin(Duration bound) {
        running = false;
        try {
            thread.join(bound.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps between attempts; an interrupt ends the sleep and stays set. */
    protected static void pause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
