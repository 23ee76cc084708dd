package io.krill.broker.share.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Kafka's backoff between the attempts of a dead-letter batch: 1 s times 2^attempts, at most 30 s, jitter 20%. */
class DeadLetterWriterBackoffTest {
    @Test
    void waitsDoubleFromTwoSecondsAfterTheFirstAttemptUpToThirtySeconds() {
        DeadLetterWriter.Backoff exact = new DeadLetterWriter.Backoff(1000, 2, 30_000, 0);
        assertEquals(2000, exact.afterAttempt(1));
        assertEquals(4000, exact.afterAttempt(2));
        assertEquals(16_000, exact.afterAttempt(4));
        assertEquals(30_000, exact.afterAttempt(5));
        assertEquals(30_000, exact.afterAttempt(40));
        for (int i = 0; i < 1000; i++) {
            long wait = DeadLetterWriter.Backoff.KAFKA.afterAttempt(2);
            assertTrue(wait >= 3200 && wait <= 4800, wait + " is not 4000 ms +- 20%");
        }
    }
}
