package io.krill.broker.coordinator;

import java.util.PriorityQueue;

/**
 * A {@link CoordinatorTimer} on a manual clock: tasks run only inside {@link #advance}, in deadline
 * order, on the test's thread. Not thread-safe (one test thread).
 */
public final class MockCoordinatorTimer implements CoordinatorTimer {
    private record Task(long due, long seq, Runnable runnable) {
    }

    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.due != b.due
            ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now = 1_000_000L;
    private long seq;

    @Override
    public long milliseconds() {
        return now;
    }

    @Override
    public void schedule(long delayMs, Runnable task) {
        tasks.add(new Task(now + Math.max(0, delayMs), seq++, task));
    }

    @Override
    public void execute(Runnable task) {
        schedule(0, task);
    }

    /** Moves the clock forward, running every task that falls due on the way. */
    public void advance(long ms) {
        long target = now + ms;
        while (!tasks.isEmpty() && tasks.peek().due <= target) {
            Task task = tasks.poll();
            now = Math.max(now, task.due);
            task.runnable.run();
        }
        now = target;
    }
}
