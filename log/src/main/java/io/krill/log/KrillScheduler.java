package io.krill.log;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} on a small pool of daemon threads. A task that throws is logged and, if periodic,
 * keeps its schedule. {@link #close()} drops delayed tasks not yet started and waits for running ones.
 */
public final class KrillScheduler implements Scheduler, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KrillScheduler.class);

    private final ScheduledThreadPoolExecutor executor;

    public KrillScheduler(int threads, String threadNamePrefix) {
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, threadNamePrefix + "-" + counter.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        executor = new ScheduledThreadPoolExecutor(threads, factory);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void schedule(String name, Runnable task, long delayMs) {
        if (executor.isShutdown()) {
            log.debug("scheduler closed, running {} inline", name);
            guarded(name, task).run();
            return;
        }
        executor.schedule(guarded(name, task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
    }

    @Override
    public void schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs) {
        executor.scheduleAtFixedRate(guarded(name, task), Math.max(0, initialDelayMs), periodMs, TimeUnit.MILLISECONDS);
    }

    private static Runnable guarded(String name, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable t) {
                log.error("scheduled task {} failed", name, t);
            }
        };
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("scheduler tasks still running after 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
