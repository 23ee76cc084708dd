package io.krill.broker.purgatory;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Holds {@link DelayedOperation}s until the event they wait for or their deadline, without a thread per
 * operation: deadlines live on one hashed timer wheel, and operations are listed under the keys of the
 * events that may complete them (a partition, a group). {@link #checkAndComplete(Object)} is called by
 * whoever causes such an event (an append, a high watermark move, a join).
 *
 * <p>Completed operations are dropped from their watch lists lazily, on the next check of that key,
 * and in a sweep when a list grows past a bound, so an idle key costs nothing.
 *
 * <p>Thread-safe.
 *
 * @param <K> the key type events are announced by
 */
public final class DelayedOperationPurgatory<K> implements AutoCloseable {
    private static final int PURGE_THRESHOLD = 1000;

    private final String name;
    private final Timer timer;
    private final ConcurrentHashMap<K, Watchers> watchersByKey = new ConcurrentHashMap<>();
    private final Consumer<K> events;

    public DelayedOperationPurgatory(String name) {
        this(name, key -> { });
    }

    /**
     * @param events also told of every event ({@link #checkAndComplete}), before the operations watching
     *               its key: for waiters kept elsewhere (a fetch session's parked fetch)
     */
    public DelayedOperationPurgatory(String name, Consumer<K> events) {
        this.name = name;
        this.events = events;
        ThreadFactory threads = runnable -> {
            Thread thread = new Thread(runnable, "purgatory-" + name);
            thread.setDaemon(true);
            return thread;
        };
        this.timer = new HashedWheelTimer(threads, 10, TimeUnit.MILLISECONDS, 512);
    }

    /**
     * Tries the operation once and, if it cannot complete yet, watches it under every key and arms its
     * deadline. Returns true if it completed immediately.
     */
    public boolean tryCompleteElseWatch(DelayedOperation operation, List<K> keys) {
        if (operation.tryComplete()) {
            return true;
        }
        for (K key : keys) {
            if (operation.isCompleted()) {
                return false;
            }
            while (!watchersByKey.computeIfAbsent(key, k -> new Watchers()).add(operation)) {
                Thread.onSpinWait(); // lost a race with the removal of an emptied list: take the new one
            }
        }
        // An event may have slipped in between the first check and the watch: check once more.
        if (operation.tryComplete()) {
            return true;
        }
        if (!operation.isCompleted()) {
            Timeout timeout = timer.newTimeout(t -> operation.expire(), operation.delayMs(), TimeUnit.MILLISECONDS);
            operation.setTimeout(timeout);
        }
        return false;
    }

    /** An event happened on {@code key}: tries every operation watching it. Returns how many completed. */
    public int checkAndComplete(K key) {
        events.accept(key);
        Watchers watchers = watchersByKey.get(key);
        if (watchers == null) {
            return 0;
        }
        int completed = watchers.tryCompleteAll(key);
        if (watchers.retireIfEmpty()) {
            watchersByKey.remove(key, watchers);
        }
        return completed;
    }

    /** Number of operations still listed (some may already be complete and not yet purged). */
    public int watched() {
        int total = 0;
        for (Watchers watchers : watchersByKey.values()) {
            total += watchers.size();
        }
        return total;
    }

    public String name() {
        return name;
    }

    @Override
    public void close() {
        timer.stop();
    }

    /**
     * One key's operations. Guarded by its own monitor; tryComplete runs outside it. A list that was
     * found empty is retired and refuses additions, so nothing is added to a list no longer in the map.
     */
    private static final class Watchers {
        private final List<DelayedOperation> operations = new ArrayList<>();
        private boolean retired;

        synchronized boolean add(DelayedOperation operation) {
            if (retired) {
                return false;
            }
            operations.add(operation);
            if (operations.size() > PURGE_THRESHOLD) {
                operations.removeIf(DelayedOperation::isCompleted);
            }
            return true;
        }

        synchronized boolean retireIfEmpty() {
            retired = operations.isEmpty();
            return retired;
        }

        int tryCompleteAll(Object key) {
            List<DelayedOperation> snapshot;
            synchronized (this) {
                snapshot = new ArrayList<>(operations);
            }
            int completed = 0;
            for (DelayedOperation operation : snapshot) {
                if (!operation.isCompleted() && operation.tryComplete(key)) {
                    completed++;
                }
            }
            synchronized (this) {
                Iterator<DelayedOperation> it = operations.iterator();
                while (it.hasNext()) {
                    if (it.next().isCompleted()) {
                        it.remove();
                    }
                }
            }
            return completed;
        }

        synchronized int size() {
            return operations.size();
        }
    }
}
