package io.krill.broker.console;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Collects the answers of several brokers within one deadline: an answer that does not come in time, or
 * fails, is left out and its broker noted as unavailable, so a page assembled from many brokers is
 * partial rather than late.
 *
 * <p>Thread-safety: confined to the thread assembling one answer.
 */
final class Answers {
    private final long deadlineNanos;
    private final Set<Integer> unavailable = new TreeSet<>();

    Answers(long timeoutMs) {
        this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    /** The answer of {@code brokerId}, or null (the broker noted unavailable). */
    <T> T get(int brokerId, CompletableFuture<T> future) {
        try {
            long left = Math.max(0, deadlineNanos - System.nanoTime());
            return future.get(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unavailable.add(brokerId);
            return null;
        } catch (ExecutionException | TimeoutException e) {
            future.cancel(false);
            unavailable.add(brokerId);
            return null;
        }
    }

    void markUnavailable(int brokerId) {
        unavailable.add(brokerId);
    }

    Set<Integer> unavailable() {
        return Collections.unmodifiableSet(unavailable);
    }
}
