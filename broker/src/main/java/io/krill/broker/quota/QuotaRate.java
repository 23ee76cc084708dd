package io.krill.broker.quota;

/**
 * A rate over a sliding window of samples, measured as Kafka's quota sensors measure it (a Rate over a
 * SampledStat): {@code samples} samples of {@code windowMs} each; a sample is started by the first value
 * recorded after the previous one is full, samples older than {@code samples * windowMs} are forgotten,
 * and the elapsed time divided by is never less than {@code samples - 1} full windows, so a client that
 * has just started does not measure as infinitely fast.
 *
 * <p>A value that takes the rate over a bound gets a throttle time of
 * {@code (rate - bound) / bound * window}, the time after which the rate is back at the bound if nothing
 * more is recorded.
 *
 * <p>Thread-safe: every method holds the instance's lock (no allocation).
 */
final class QuotaRate {
    private final int samples;
    private final long windowMs;
    private final double[] values;
    private final long[] starts;
    private int current;
    private volatile long lastRecordMs;

    QuotaRate(int samples, long windowMs, long nowMs) {
        if (samples < 2 || windowMs <= 0) {
            throw new IllegalArgumentException("need at least 2 samples of a positive window");
        }
        this.samples = samples;
        this.windowMs = windowMs;
        this.values = new double[samples];
        this.starts = new long[samples];
        java.util.Arrays.fill(starts, nowMs);
        this.lastRecordMs = nowMs;
    }

    /**
     * Records {@code value} at {@code nowMs} and returns the throttle time it causes against
     * {@code bound} (0 when the rate stays within it), at most {@code maxThrottleMs}.
     */
    synchronized long recordAndThrottle(double value, long nowMs, double bound, long maxThrottleMs) {
        record(value, nowMs);
        double rate = measure(nowMs);
        if (rate <= bound) {
            return 0;
        }
        double throttle = (rate - bound) / bound * windowSizeMs(nowMs);
        return Math.min(maxThrottleMs, Math.max(1, Math.round(throttle)));
    }

    /** Records {@code value} (negative to take back a value recorded earlier) without a quota check. */
    synchronized void record(double value, long nowMs) {
        if (nowMs - starts[current] >= windowMs) {
            current = (current + 1) % samples;
            starts[current] = nowMs;
            values[current] = 0;
        }
        values[current] += value;
        lastRecordMs = nowMs;
    }

    /** The rate per second now. */
    synchronized double measure(long nowMs) {
        purgeObsolete(nowMs);
        double total = 0;
        for (double v : values) {
            total += v;
        }
        return total / (windowSizeMs(nowMs) / 1000.0);
    }

    long lastRecordMs() {
        return lastRecordMs;
    }

    private void purgeObsolete(long nowMs) {
        long expireAge = samples * windowMs;
        for (int i = 0; i < samples; i++) {
            if (nowMs - starts[i] >= expireAge) {
                starts[i] = nowMs;
                values[i] = 0;
            }
        }
    }

    /** Time since the oldest sample started, and at least {@code samples - 1} full windows. */
    private long windowSizeMs(long nowMs) {
        long oldest = starts[current];
        for (long start : starts) {
            oldest = Math.min(oldest, start);
        }
        long elapsed = Math.max(0, nowMs - oldest);
        long fullWindows = elapsed / windowMs;
        if (fullWindows < samples - 1) {
            elapsed += (samples - 1 - fullWindows) * windowMs;
        }
        return Math.max(elapsed, 1);
    }
}
