package io.krill.broker.net;

import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-API request counters: requests answered, their total time in the broker, requests refused as
 * unsupported, and unexpected failures (which close the connection). Thread-safe: striped adders.
 */
public final class RequestMetrics {
    /** Counters of one API. */
    public static final class ApiCounters {
        public final LongAdder requests = new LongAdder();
        public final LongAdder totalNanos = new LongAdder();
        public final LongAdder unsupported = new LongAdder();
        public final LongAdder unexpected = new LongAdder();
    }

    private final Map<ApiKeys, ApiCounters> counters = new EnumMap<>(ApiKeys.class);

    public RequestMetrics() {
        for (ApiKeys api : ApiKeys.values()) {
            counters.put(api, new ApiCounters());
        }
    }

    void record(ApiKeys api, Errors error, long receivedNanos) {
        ApiCounters c = counters.get(api);
        c.requests.increment();
        c.totalNanos.add(System.nanoTime() - receivedNanos);
        if (error == Errors.UNSUPPORTED_VERSION) {
            c.unsupported.increment();
        }
    }

    void recordUnexpected(ApiKeys api) {
        counters.get(api).unexpected.increment();
    }

    public ApiCounters of(ApiKeys api) {
        return counters.get(api);
    }
}
