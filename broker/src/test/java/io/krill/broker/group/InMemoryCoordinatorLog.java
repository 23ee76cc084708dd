package io.krill.broker.group;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link CoordinatorLog} in memory: appends commit at once unless a failure is armed. */
final class InMemoryCoordinatorLog implements CoordinatorLog {
    final Map<Integer, List<Entry>> partitions = new ConcurrentHashMap<>();
    volatile Errors failNext;

    @Override
    public CompletableFuture<Void> append(int partition, List<Entry> entries) {
        Errors failure = failNext;
        if (failure != null) {
            failNext = null;
            return CompletableFuture.failedFuture(new ApiException(failure, "injected"));
        }
        partitions.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(entries);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void replay(int partition, Replayer replayer) {
        for (Entry entry : partitions.getOrDefault(partition, List.of())) {
            replayer.replay(entry.key(), entry.value());
        }
    }

    int size() {
        return partitions.values().stream().mapToInt(List::size).sum();
    }
}
