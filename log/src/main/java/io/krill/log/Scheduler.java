package io.krill.log;

/**
 * Runs the log's background work: asynchronous flushes after a roll, delayed file deletion, and the
 * {@link LogManager}'s periodic retention, flush and checkpoint tasks. Implementations are thread-safe.
 */
public interface Scheduler {

    /** Runs {@code task} once after {@code delayMs}. */
    void schedule(String name, Runnable task, long delayMs);

    /** Runs {@code task} every {@code periodMs} after {@code initialDelayMs}, until shutdown. */
    void schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs);

    /**
     * A scheduler that runs one-shot tasks at once on the calling thread, ignoring the delay, and never
     * runs periodic ones: deletions and post-roll flushes become synchronous. For tests and for a
     * {@link PartitionLog} used on its own.
     */
    Scheduler IMMEDIATE = new Scheduler() {
        @Override
        public void schedule(String name, Runnable task, long delayMs) {
            task.run();
        }

        @Override
        public void schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs) {
        }
    };
}
