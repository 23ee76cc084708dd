package io.krill.broker.group;

import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareState;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.broker.share.state.ShareStateSummary;
import io.krill.broker.share.state.StateBatch;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * No share coordinator: every call fails with COORDINATOR_NOT_AVAILABLE, so share groups get members but no
 * partitions. For coordinators built without one (tests and tools of the other group types). Stateless.
 */
final class NoShareStatePersister implements ShareStatePersister {
    static final NoShareStatePersister INSTANCE = new NoShareStatePersister();

    private NoShareStatePersister() {
    }

    private static <T> CompletableFuture<T> unavailable() {
        return CompletableFuture.failedFuture(new ApiException(Errors.COORDINATOR_NOT_AVAILABLE,
                "This group coordinator has no share coordinator"));
    }

    @Override
    public CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        return unavailable();
    }

    @Override
    public CompletableFuture<ShareState> read(SharePartitionKey key, int leaderEpoch) {
        return unavailable();
    }

    @Override
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                                         List<StateBatch> batches) {
        return unavailable();
    }

    @Override
    public CompletableFuture<ShareStateSummary> readSummary(SharePartitionKey key, int leaderEpoch) {
        return unavailable();
    }

    @Override
    public CompletableFuture<Void> delete(SharePartitionKey key) {
        return unavailable();
    }
}
