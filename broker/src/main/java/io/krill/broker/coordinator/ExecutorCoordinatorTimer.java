package io.krill.broker.coordinator;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link CoordinatorTimer}: one daemon thread ({@code group-coordinator} for groups,
 * {@code txn-coordinator} for transactions) over a scheduled executor. A task that throws is logged and does not stop the thread. After {@link #close()} new tasks
 * are dropped. Thread-safe.
 */
public final class ExecutorCoordinatorTimer implements CoordinatorTimer, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorCoordinatorTimer.class);

    private final ScheduledThreadPoolExecutor executor;

    public ExecutorCoordinatorTimer() {
        this("group-coordinator");
    }

    public ExecutorCoordinatorTimer(String threadName) {
        executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public long milliseconds() {
        return System.currentTimeMillis();
    }

    @Override
    public void schedule(long delayMs, Runnable task) {
        try {
            executor.schedule(() -> run(task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Group coordinator stopped; dropping a task");
        }
    }

    @Override
    public void execute(Runnable task) {
        try {
            executor.execute(() -> run(task));
        } catch (RejectedExecutionException e) {
            LOG.debug("Group coordinator stopped; dropping a task");
        }
    }

    private static void run(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            LOG.error("Group coordinator task failed", e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
