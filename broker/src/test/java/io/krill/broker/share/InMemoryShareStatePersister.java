package io.krill.broker.share;

import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareState;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.broker.share.state.ShareStateSummary;
import io.krill.broker.share.state.StateBatch;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A share coordinator in memory for tests: the merge and fencing rules of the real one, every write durable
 * at once (or failed with {@link #failWritesWith}). Thread-safe.
 */
final class InMemoryShareStatePersister implements ShareStatePersister {
    private final Map<SharePartitionKey, ShareState> states = new ConcurrentHashMap<>();
    private volatile Errors failWrites;
    volatile int writes;

    void failWritesWith(Errors error) {
        failWrites = error;
    }

    ShareState state(SharePartitionKey key) {
        return states.get(key);
    }

    @Override
    public synchronized CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        ShareState current = states.get(key);
        if (current != null && stateEpoch <= current.stateEpoch()) {
            return CompletableFuture.failedFuture(new ApiException(Errors.FENCED_STATE_EPOCH, "stale state epoch"));
        }
        states.put(key, new ShareState(stateEpoch, startOffset, current == null ? -1 : current.leaderEpoch(), List.of()));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<ShareState> read(SharePartitionKey key, int leaderEpoch) {
        ShareState current = states.getOrDefault(key, new ShareState(0, ShareState.UNINITIALIZED, -1, List.of()));
        if (leaderEpoch < current.leaderEpoch()) {
            return CompletableFuture.failedFuture(new ApiException(Errors.FENCED_LEADER_EPOCH, "stale leader"));
        }
        ShareState read = new ShareState(current.stateEpoch(), current.startOffset(), leaderEpoch, current.batches());
        states.put(key, read);
        return CompletableFuture.completedFuture(read);
    }

    @Override
    public synchronized CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch,
                                                      long startOffset, List<StateBatch> batches) {
        if (failWrites != null) {
            return CompletableFuture.failedFuture(new ApiException(failWrites, "injected"));
        }
        ShareState current = states.getOrDefault(key, new ShareState(0, ShareState.UNINITIALIZED, -1, List.of()));
        if (stateEpoch < current.stateEpoch()) {
            return CompletableFuture.failedFuture(new ApiException(Errors.FENCED_STATE_EPOCH, "stale state epoch"));
        }
        if (leaderEpoch < current.leaderEpoch()) {
            return CompletableFuture.failedFuture(new ApiException(Errors.FENCED_LEADER_EPOCH, "stale leader"));
        }
        long start = startOffset == -1 ? current.startOffset() : startOffset;
        List<StateBatch> merged = new ArrayList<>();
        for (StateBatch old : current.batches()) {
            for (StateBatch part : minus(old, batches)) {
                if (part.lastOffset() >= start) {
                    merged.add(part);
                }
            }
        }
        for (StateBatch batch : batches) {
            if (batch.lastOffset() >= start) {
                merged.add(batch);
            }
        }
        merged.sort((a, b) -> Long.compare(a.firstOffset(), b.firstOffset()));
        states.put(key, new ShareState(current.stateEpoch(), start, leaderEpoch, merged));
        writes++;
        return CompletableFuture.completedFuture(null);
    }

    private static List<StateBatch> minus(StateBatch old, List<StateBatch> newer) {
        List<StateBatch> parts = new ArrayList<>(List.of(old));
        for (StateBatch n : newer) {
            List<StateBatch> next = new ArrayList<>();
            for (StateBatch p : parts) {
                if (n.lastOffset() < p.firstOffset() || n.firstOffset() > p.lastOffset()) {
                    next.add(p);
                    continue;
                }
                if (p.firstOffset() < n.firstOffset()) {
                    next.add(new StateBatch(p.firstOffset(), n.firstOffset() - 1, p.deliveryState(), p.deliveryCount()));
                }
                if (p.lastOffset() > n.lastOffset()) {
                    next.add(new StateBatch(n.lastOffset() + 1, p.lastOffset(), p.deliveryState(), p.deliveryCount()));
                }
            }
            parts = next;
        }
        return parts;
    }

    @Override
    public CompletableFuture<ShareStateSummary> readSummary(SharePartitionKey key, int leaderEpoch) {
        ShareState current = states.getOrDefault(key, new ShareState(0, ShareState.UNINITIALIZED, -1, List.of()));
        return CompletableFuture.completedFuture(new ShareStateSummary(current.stateEpoch(), current.startOffset(),
                current.leaderEpoch(), 0));
    }

    @Override
    public CompletableFuture<Void> delete(SharePartitionKey key) {
        states.remove(key);
        return CompletableFuture.completedFuture(null);
    }
}
