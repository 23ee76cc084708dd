package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CoordinatorLog} in memory: appends commit at once unless a failure is armed, or, while
 * {@link #hold} is set, when {@link #release} is called. Transactional records and markers are kept in log
 * order beside plain ones and replayed as such.
 */
final class InMemoryCoordinatorLog implements CoordinatorLog {
    final Map<Integer, List<Entry>> partitions = new ConcurrentHashMap<>();
    /** Per partition, what a replay delivers, in log order: Entry, TxnEntry or Marker. */
    private final Map<Integer, List<Object>> replayed = new ConcurrentHashMap<>();
    /** Per partition, the producers with a transactional write not yet followed by their marker. */
    private final Map<Integer, Set<Long>> ongoing = new ConcurrentHashMap<>();
    volatile Errors failNext;
    /** What {@link #isFenced} answers. */
    volatile boolean fenced;
    /** While set, plain appends are kept (not replayed, not complete) until {@link #release}. */
    volatile boolean hold;
    private final List<Runnable> held = new ArrayList<>();

    private record TxnEntry(long producerId, Entry entry) {
    }

    private record Marker(long producerId, boolean commit) {
    }

    @Override
    public boolean isFenced() {
        return fenced;
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<Entry> entries) {
        Errors failure = failNext;
        if (failure != null) {
            failNext = null;
            return CompletableFuture.failedFuture(new ApiException(failure, "injected"));
        }
        if (hold) {
            CompletableFuture<Void> committed = new CompletableFuture<>();
            synchronized (held) {
                held.add(() -> {
                    commit(partition, entries);
                    committed.complete(null);
                });
            }
            return committed;
        }
        commit(partition, entries);
        return CompletableFuture.completedFuture(null);
    }

    private void commit(int partition, List<Entry> entries) {
        partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
        replayed.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
    }

    /** Stops holding appends and commits the held ones, in order. */
    void release() {
        hold = false;
        List<Runnable> commits;
        synchronized (held) {
            commits = new ArrayList<>(held);
            held.clear();
        }
        commits.forEach(Runnable::run);
    }

    @Override
    public CompletableFuture<Void> appendTransactional(int partition, long producerId, short producerEpoch,
                                                       List<Entry> entries) {
        Errors failure = failNext;
        if (failure != null) {
            failNext = null;
            return CompletableFuture.failedFuture(new ApiException(failure, "injected"));
        }
        partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
        ongoing.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(producerId);
        List<Object> log = replayed.computeIfAbsent(partition, p -> new ArrayList<>());
        for (Entry entry : entries) {
            log.add(new TxnEntry(producerId, entry));
        }
        return CompletableFuture.completedFuture(null);
    }

    /** A transaction marker written to {@code partition} (what WriteTxnMarkers appends). */
    void appendMarker(int partition, long producerId, boolean commit) {
        replayed.computeIfAbsent(partition, p -> new ArrayList<>()).add(new Marker(producerId, commit));
        Set<Long> producers = ongoing.get(partition);
        if (producers != null) {
            producers.remove(producerId);
        }
    }

    @Override
    public boolean hasOngoingTransaction(int partition, long producerId, short producerEpoch) {
        return ongoing.getOrDefault(partition, Set.of()).contains(producerId);
    }

    @Override
    public void replay(int partition, Replayer replayer) {
        for (Object item : replayed.getOrDefault(partition, List.of())) {
            if (item instanceof Entry entry) {
                replayer.replay(entry.key(), entry.value());
            } else if (item instanceof TxnEntry txn) {
                replayer.replayTransactional(txn.producerId(), txn.entry().key(), txn.entry().value());
            } else if (item instanceof Marker marker) {
                replayer.replayMarker(marker.producerId(), marker.commit());
            }
        }
    }

    /** Replaces partition {@code partition}'s records with {@code entries} (plain ones), as compaction or a fixture. */
    void replace(int partition, List<Entry> entries) {
        partitions.put(partition, new ArrayList<>(entries));
        replayed.put(partition, new ArrayList<>(entries));
    }

    int size() {
        return partitions.values().stream().mapToInt(List::size).sum();
    }
}
