package io.krill.broker.telemetry;

import io.krill.wire.error.Errors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One client instance (KIP-714) as the broker knows it: its attributes (the {@code match} selectors, which are
 * also the labels of its series on /metrics), the subscription it was given (id, metric prefixes, push
 * interval, the version of the subscriptions it was computed from), the times of its last
 * GetTelemetrySubscriptions and PushTelemetry (Kafka's throttling rules), whether it said it was terminating,
 * the last error it was answered, and the latest value of each series it pushed.
 *
 * <p>Thread-safe: every mutable field is guarded by this object's monitor.
 */
final class ClientInstance {
    final UUID id;
    final Map<String, String> attributes;
    final int subscriptionId;
    final int subscriptionVersion;
    /** Kafka's HashSet: the response lists it in this set's order, and the subscription id hashes its text. */
    final Set<String> metrics;
    final int pushIntervalMs;

    private long lastGetMs;
    private long lastPushMs;
    private boolean terminating;
    private Errors lastKnownError = Errors.NONE;
    private final Map<SeriesKey, SeriesValue> series = new HashMap<>();

    ClientInstance(UUID id, Map<String, String> attributes, int subscriptionId, int subscriptionVersion,
                   Set<String> metrics, int pushIntervalMs) {
        this.id = id;
        this.attributes = Map.copyOf(attributes);
        this.subscriptionId = subscriptionId;
        this.subscriptionVersion = subscriptionVersion;
        this.metrics = metrics;
        this.pushIntervalMs = pushIntervalMs;
    }

    /** How long the instance is kept without requests: Kafka's max(60 s, 3 push intervals). */
    long ttlMs(long minimumMs) {
        return Math.max(minimumMs, 3L * pushIntervalMs);
    }

    /** A GetTelemetrySubscriptions at {@code nowMs}: allowed once a push interval has passed since the last request. */
    synchronized boolean maybeUpdateGetRequestTimestamp(long nowMs) {
        if (nowMs - Math.max(lastGetMs, lastPushMs) >= pushIntervalMs) {
            lastGetMs = nowMs;
            return true;
        }
        return false;
    }

    /** A PushTelemetry at {@code nowMs}: allowed right after a Get, else once a push interval has passed. */
    synchronized boolean maybeUpdatePushRequestTimestamp(long nowMs) {
        boolean allowed = lastGetMs > lastPushMs || nowMs - lastPushMs >= pushIntervalMs;
        if (allowed) {
            lastPushMs = nowMs;
        }
        return allowed;
    }

    synchronized boolean terminating() {
        return terminating;
    }

    synchronized void terminating(boolean value) {
        terminating = value;
    }

    synchronized Errors lastKnownError() {
        return lastKnownError;
    }

    synchronized void lastKnownError(Errors error) {
        lastKnownError = error;
    }

    /**
     * Records a pushed point: replaces the series' value, or adds a delta sum to it. A new series is kept only if
     * {@code admit} allows (the broker-wide bound).
     *
     * @return 1 if a series was added, 0 otherwise
     */
    synchronized int record(SeriesKey key, OtlpMetricsDecoder.Point point, java.util.function.BooleanSupplier admit) {
        SeriesValue current = series.get(key);
        if (current == null) {
            if (!admit.getAsBoolean()) {
                return -1;
            }
            series.put(key, SeriesValue.of(point));
            return 1;
        }
        series.put(key, current.next(point));
        return 0;
    }

    /** The series this instance holds now (a copy). */
    synchronized Map<SeriesKey, SeriesValue> series() {
        return Map.copyOf(series);
    }

    synchronized int seriesCount() {
        return series.size();
    }

    /** A series of one instance: metric name, kind and the point's attributes. */
    record SeriesKey(String metric, OtlpMetricsDecoder.Kind kind, Map<String, String> attributes) {
    }

    /** The latest value of a series (a histogram's count, sum, bounds and per-bucket counts). */
    record SeriesValue(double value, OtlpMetricsDecoder.Histogram histogram) {
        static SeriesValue of(OtlpMetricsDecoder.Point point) {
            return new SeriesValue(point.value(), point.histogram());
        }

        /** The value after {@code point}: a delta adds to the value before it; anything else replaces it. */
        SeriesValue next(OtlpMetricsDecoder.Point point) {
            if (!point.delta()) {
                return of(point);
            }
            if (point.histogram() == null) {
                return new SeriesValue(value + point.value(), null);
            }
            OtlpMetricsDecoder.Histogram before = histogram;
            OtlpMetricsDecoder.Histogram delta = point.histogram();
            if (before == null || !java.util.Arrays.equals(before.bounds(), delta.bounds())
                    || before.bucketCounts().length != delta.bucketCounts().length) {
                return of(point);
            }
            long[] counts = before.bucketCounts().clone();
            for (int i = 0; i < counts.length; i++) {
                counts[i] += delta.bucketCounts()[i];
            }
            return new SeriesValue(0, new OtlpMetricsDecoder.Histogram(before.count() + delta.count(),
                    before.sum() + delta.sum(), before.bounds(), counts));
        }
    }

    /** Metrics asked of this instance, as the response lists them. */
    List<String> requestedMetrics() {
        return List.copyOf(metrics);
    }
}
