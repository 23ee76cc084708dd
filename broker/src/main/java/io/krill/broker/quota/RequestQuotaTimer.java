package io.krill.broker.quota;

import io.krill.broker.api.Request;

/**
 * One connection's request-time accounting for the request quota (KIP-124): the time a request's handler
 * runs on the request thread is recorded against the client's request_percentage, either when the
 * response is written from inside the handler (the usual case; the response then carries the throttle)
 * or when the handler returns having left the answer to a delayed operation (the throttle then waits on
 * the request until that answer is written).
 *
 * <p>Not thread-safe: confined to the connection's request thread, where handlers run and responses are
 * written.
 */
public final class RequestQuotaTimer {
    private final ClientQuotas quotas;
    private Request current;
    private long startNanos;

    public RequestQuotaTimer(ClientQuotas quotas) {
        this.quotas = quotas;
    }

    /** {@code request}'s handler starts now. */
    public void started(Request request) {
        if (quotas.enabled(QuotaType.REQUEST)) {
            current = request;
            startNanos = System.nanoTime();
        } else {
            current = null;
        }
    }

    /** {@code request}'s handler returned. */
    public void handled(Request request) {
        if (current == request) {
            recordNow();
        }
    }

    /**
     * {@code request} is being answered: records its handler time if the handler is still running, and
     * returns the throttle time to give the client (the longest of its quotas').
     */
    public int throttleTimeMs(Request request) {
        if (current == request) {
            recordNow();
        }
        return request.throttleTimeMs();
    }

    private void recordNow() {
        Request request = current;
        current = null;
        int throttleMs = quotas.recordRequestTime(request, System.nanoTime() - startNanos, System.currentTimeMillis());
        if (throttleMs > 0) {
            request.throttle(throttleMs);
        }
    }
}
