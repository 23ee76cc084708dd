package io.krill.broker.group;

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
 * A {@link ShareStatePersister} in memory, with the share coordinator's epoch rules (FENCED_STATE_EPOCH for an
 * initialization at or below the key's state epoch). Calls complete at once, unless {@link #hold} is set: then
 * initializations wait in {@link #held} until the test completes them. Thread-safe.
 */
final class InMemoryShareStatePersister implements ShareStatePersister {
    final Map<SharePartitionKey, ShareState> states = new ConcurrentHashMap<>();
    final Map<SharePartitionKey, Long> delivered = new ConcurrentHashMap<>();
    final List<SharePartitionKey> deleted = new ArrayList<>();
    final List<CompletableFuture<Void>> held = new ArrayList<>();
    volatile boolean hold;
    volatile Errors failInitialize;

    @Override
    public synchronized CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        if (failInitialize != null) {
            return CompletableFuture.failedFuture(new ApiException(failInitialize, "injected"));
        }
        ShareState current = states.get(key);
        if (current != null && stateEpoch <= current.stateEpoch()) {
            return CompletableFuture.failedFuture(new ApiException(Errors.FENCED_STATE_EPOCH, "state epoch "
                    + stateEpoch + " <= " + current.stateEpoch()));
        }
        states.put(key, new ShareState(stateEpoch, startOffset, -1, List.of()));
        if (hold) {
            CompletableFuture<Void> later = new CompletableFuture<>();
            held.add(later);
            return later;
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Completes the held initializations. */
    synchronized void release() {
        hold = false;
        List<CompletableFuture<Void>> now = new ArrayList<>(held);
        held.clear();
        now.forEach(f -> f.complete(null));
    }

    @Override
    public CompletableFuture<ShareState> read(SharePartitionKey key, int leaderEpoch) {
        return CompletableFuture.completedFuture(states.getOrDefault(key,
                new ShareState(0, ShareState.UNINITIALIZED, -1, List.of())));
    }

    @Override
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                                         List<StateBatch> batches) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("not used by the group coordinator"));
    }

    @Override
    public CompletableFuture<ShareStateSummary> readSummary(SharePartitionKey key, int leaderEpoch) {
        ShareState s = states.getOrDefault(key, new ShareState(0, ShareState.UNINITIALIZED, -1, List.of()));
        return CompletableFuture.completedFuture(new ShareStateSummary(s.stateEpoch(), s.startOffset(), s.leaderEpoch(),
                delivered.getOrDefault(key, 0L)));
    }

    @Override
    public synchronized CompletableFuture<Void> delete(SharePartitionKey key) {
        states.remove(key);
        deleted.add(key);
        return CompletableFuture.completedFuture(null);
    }
}
