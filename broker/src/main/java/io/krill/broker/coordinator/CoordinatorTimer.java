package io.krill.broker.coordinator;

/**
 * A coordinator's clock and its one thread for deadlines (for groups: join and sync waits, session
 * expiry, initial rebalance delay, offsets expiry; for transactions: timeouts, id expiry, retries) and
 * partition loads. Tasks are not cancelled: each checks,
 * under its group's lock, whether it is still current (a generation or rebalance token, a deadline that
 * moved) and does nothing otherwise. No thread per member or per waiting request.
 *
 * <p>Implementations are thread-safe.
 */
public interface CoordinatorTimer {

    /** Wall-clock time in milliseconds. */
    long milliseconds();

    /** Runs {@code task} on the coordinator thread after {@code delayMs}. */
    void schedule(long delayMs, Runnable task);

    /** Runs {@code task} on the coordinator thread as soon as possible. */
    void execute(Runnable task);
}
