package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.broker.share.ShareFetcher;
import io.krill.broker.share.ShareSessionCache.SessionPartition;
import io.krill.wire.error.Errors;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A ShareFetch that found nothing to acquire: it waits in the fetch purgatory on its session's partitions
 * until one of them could hand out records (an append moved the bound, a release or lock expiry made
 * records available, a share-partition finished loading) or {@code MaxWaitMs} passes, then reads once more
 * and answers whatever that read acquired. The check ({@link ShareFetcher#canAcquire}) only compares
 * offsets under each share-partition's lock; the read happens once, on completion.
 *
 * <p>Thread-safety: immutable apart from the base class's completion, decided once.
 */
final class DelayedShareFetch extends DelayedOperation {
    private final ShareFetchHandler handler;
    private final Request request;
    private final List<SessionPartition> partitions;
    private final Map<SessionPartition, CompletableFuture<Errors>> acks;

    DelayedShareFetch(long maxWaitMs, ShareFetchHandler handler, Request request, List<SessionPartition> partitions,
                      Map<SessionPartition, CompletableFuture<Errors>> acks) {
        super(maxWaitMs);
        this.handler = handler;
        this.request = request;
        this.partitions = partitions;
        this.acks = acks;
    }

    @Override
    public boolean tryComplete() {
        return handler.canAcquire(request, partitions) && forceComplete();
    }

    @Override
    protected void onComplete() {
        ShareFetcher.Round round = handler.read(request, handler.image(), partitions);
        handler.respondLater(request, round, acks);
    }
}
