package io.krill.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The rate and throttle arithmetic of Kafka's quota sensors, on a controlled clock. */
class QuotaRateTest {

    @Test
    void aYoungRateIsMeasuredOverAtLeastTheFullWindowsButOne() {
        QuotaRate rate = new QuotaRate(11, 1000, 0);
        rate.record(5000, 100);
        // 100 ms elapsed, counted as 100 ms + 10 full windows.
        assertEquals(5000 / 10.1, rate.measure(100), 1e-9);
    }

    @Test
    void throttleBringsTheRateBackToTheBound() {
        QuotaRate rate = new QuotaRate(11, 1000, 0);
        assertEquals(0, rate.recordAndThrottle(10_000, 0, 1000, Long.MAX_VALUE), "10 s of quota at once is allowed");
        // 2000 more: rate (12000 / 10 s) = 1200, 20% over the bound: throttled 20% of the 10 s window.
        assertEquals(2000, rate.recordAndThrottle(2000, 0, 1000, Long.MAX_VALUE));
        assertEquals(500, rate.recordAndThrottle(0, 0, 1000, 500), "capped");
    }

    @Test
    void negativeValuesTakeBackAndOldSamplesExpire() {
        QuotaRate rate = new QuotaRate(3, 1000, 0);
        rate.record(3000, 0);
        rate.record(-1000, 10);
        assertEquals(2000 / 2.01, rate.measure(10), 1e-9);
        rate.record(600, 1500);
        rate.record(600, 2600);
        // At 3000 ms the first sample (started at 0) is 3 windows old and forgotten.
        // Oldest sample left started at 1500: 1.5 s elapsed, counted as 2.5 s (one full window missing).
        assertEquals(1200 / 2.5, rate.measure(3000), 1e-9);
    }
}
