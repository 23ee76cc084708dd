package io.krill.broker.net;

import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Per-API request metrics, exported to Prometheus: requests answered, their time in the broker (a
 * histogram, from frame decoded to response handed to the socket), versions refused as unsupported,
 * and unexpected failures (which close the connection). The data point of every API is looked up once
 * here, so recording allocates nothing.
 *
 * <p>Thread-safe: the Prometheus data points are.
 */
public final class RequestMetrics {
    private final CounterDataPoint[] requests = new CounterDataPoint[ApiKeys.values().length];
    private final DistributionDataPoint[] seconds = new DistributionDataPoint[ApiKeys.values().length];
    private final CounterDataPoint[] unsupported = new CounterDataPoint[ApiKeys.values().length];
    private final CounterDataPoint[] unexpected = new CounterDataPoint[ApiKeys.values().length];

    public RequestMetrics(PrometheusRegistry registry) {
        Counter requestCounter = Counter.builder().name("krill_requests_total")
                .help("Requests answered, by API").labelNames("api").register(registry);
        Histogram latency = Histogram.builder().name("krill_request_seconds")
                .help("Time from a request's arrival to its response being handed to the socket, by API")
                .labelNames("api").classicOnly()
                .classicUpperBounds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
                .register(registry);
        Counter unsupportedCounter = Counter.builder().name("krill_requests_unsupported_version_total")
                .help("Requests refused for their version, by API").labelNames("api").register(registry);
        Counter unexpectedCounter = Counter.builder().name("krill_requests_failed_total")
                .help("Requests that failed unexpectedly and closed their connection, by API").labelNames("api")
                .register(registry);
        for (ApiKeys api : ApiKeys.values()) {
            int i = api.ordinal();
            requests[i] = requestCounter.labelValues(api.apiName());
            seconds[i] = latency.labelValues(api.apiName());
            unsupported[i] = unsupportedCounter.labelValues(api.apiName());
            unexpected[i] = unexpectedCounter.labelValues(api.apiName());
        }
    }

    void record(ApiKeys api, Errors error, long receivedNanos) {
        int i = api.ordinal();
        requests[i].inc();
        seconds[i].observe((System.nanoTime() - receivedNanos) / 1e9);
        if (error == Errors.UNSUPPORTED_VERSION) {
            unsupported[i].inc();
        }
    }

    void recordUnexpected(ApiKeys api) {
        unexpected[api.ordinal()].inc();
    }
}
