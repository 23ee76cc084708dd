package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.wire.message.FetchRequest;

/**
 * A long-poll fetch: re-reads its partitions when one of them gets an append and completes once
 * {@code min.bytes} are there, or at {@code max.wait.ms} with whatever there is. A read is cheap: index
 * lookups and file positions, no data copied.
 *
 * <p>Thread-safe: completion is decided once by the base class.
 */
final class DelayedFetch extends DelayedOperation {
    private final Request request;
    private final FetchHandler handler;

    DelayedFetch(long maxWaitMs, Request request, FetchHandler handler) {
        super(maxWaitMs);
        this.request = request;
        this.handler = handler;
    }

    @Override
    public boolean tryComplete() {
        FetchRequest body = request.body();
        FetchHandler.Read read = handler.read(request, false);
        boolean enough = read.bytes >= body.minBytes() || read.errors;
        read.discard();
        return enough && forceComplete();
    }

    @Override
    protected void onComplete() {
        handler.respond(request, handler.read(request, false));
    }
}
