package io.krill.log;

/** Wall-clock and monotonic time, replaceable in tests. Implementations are thread-safe. */
public interface Time {
    Time SYSTEM = new Time() {
        @Override
        public long milliseconds() {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }
    };

    /** Wall-clock time in milliseconds since the epoch (record timestamps, retention, roll by age). */
    long milliseconds();

    /** Monotonic time in nanoseconds (durations only). */
    long nanoseconds();
}
