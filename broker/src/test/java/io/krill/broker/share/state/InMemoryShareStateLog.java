package io.krill.broker.share.state;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link CoordinatorLog} in memory for the share coordinator's tests: appends commit at once unless a
 * failure is armed or appends are held (they commit on {@link #release}); {@link #compact} does what the
 * log cleaner does to a compacted topic. Thread-safe (synchronized).
 */
final class InMemoryShareStateLog implements CoordinatorLog {
    private final Map<Integer, List<Entry>> partitions = new LinkedHashMap<>();
    private final List<Runnable> held = new ArrayList<>();
    private boolean holding;
    private Errors failNext;
    private volatile boolean fenced;

    synchronized void failNext(Errors error) {
        failNext = error;
    }

    void fenced(boolean value) {
        fenced = value;
    }

    synchronized void hold() {
        holding = true;
    }

    void release() {
        List<Runnable> ready;
        synchronized (this) {
            holding = false;
            ready = new ArrayList<>(held);
            held.clear();
        }
        ready.forEach(Runnable::run);
    }

    synchronized List<Entry> entries(int partition) {
        return new ArrayList<>(partitions.getOrDefault(partition, List.of()));
    }

    /** Keeps each key's last record only, and drops tombstones (their retention passed). */
    synchronized void compact(int partition) {
        Map<String, Entry> last = new LinkedHashMap<>();
        for (Entry entry : partitions.getOrDefault(partition, List.of())) {
            String key = Arrays.toString(entry.key());
            last.remove(key);
            last.put(key, entry);
        }
        List<Entry> kept = new ArrayList<>();
        for (Entry entry : last.values()) {
            if (entry.value() != null) {
                kept.add(entry);
            }
        }
        partitions.put(partition, kept);
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<Entry> entries) {
        synchronized (this) {
            if (failNext != null) {
                Errors error = failNext;
                failNext = null;
                return CompletableFuture.failedFuture(new ApiException(error, "injected"));
            }
            if (holding) {
                CompletableFuture<Void> later = new CompletableFuture<>();
                held.add(() -> {
                    synchronized (this) {
                        partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
                    }
                    later.complete(null);
                });
                return later;
            }
            partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> appendTransactional(int partition, long producerId, short producerEpoch,
                                                       List<Entry> entries) {
        throw new UnsupportedOperationException("the share coordinator never writes transactionally");
    }

    @Override
    public boolean isFenced() {
        return fenced;
    }

    @Override
    public void replay(int partition, Replayer replayer) {
        for (Entry entry : entries(partition)) {
            replayer.replay(entry.key(), entry.value());
        }
    }
}
