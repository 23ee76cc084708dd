package io.krill.broker.txn;

import java.util.ArrayList;
import java.util.List;

/**
 * One transactional id as the coordinator holds it: the committed {@link TransactionValue} (written to
 * {@code __transaction_state} and acknowledged by the in-sync replicas) and, while a write is in flight,
 * the value being written. Requests arriving meanwhile get CONCURRENT_TRANSACTIONS, as in Kafka: one
 * transition at a time per transactional id; only an add to the transaction being written waits for it
 * instead ({@link #afterTransition}), since with transaction version 2 the leaders of a transaction's
 * partitions add them all at once.
 *
 * <p>Thread-safety: guarded by its own monitor; callers synchronize on the instance around a check and
 * the transition it decides. The coordinator never holds two of these monitors at once.
 */
final class TransactionMetadata {
    private final String transactionalId;
    private TransactionValue current;
    private TransactionValue pending;
    /** Markers of the current Prepare* state are being sent (set once per transition, on this coordinator). */
    private boolean markersInFlight;
    /** Requests to take up once the pending transition ends (adds that arrived while another was written). */
    private List<Runnable> waiting = List.of();

    TransactionMetadata(String transactionalId, TransactionValue current) {
        this.transactionalId = transactionalId;
        this.current = current;
    }

    String transactionalId() {
        return transactionalId;
    }

    /** The committed state. */
    TransactionValue current() {
        return current;
    }

    /** The value being written, or null. */
    TransactionValue pending() {
        return pending;
    }

    boolean hasPendingTransition() {
        return pending != null;
    }

    /** Starts a write of {@code next}; the caller checked {@link #hasPendingTransition()} first. */
    void beginTransition(TransactionValue next) {
        if (pending != null) {
            throw new IllegalStateException(transactionalId + ": a transition to " + pending.state() + " is in flight");
        }
        if (!next.state().validPrevious().contains(current.state())) {
            throw new IllegalStateException(transactionalId + ": no transition from " + current.state() + " to "
                    + next.state());
        }
        pending = next;
    }

    /** The write of the pending value succeeded: it becomes current. */
    void completeTransition(TransactionValue written) {
        if (pending != written) {
            throw new IllegalStateException(transactionalId + ": completing a transition that is not pending");
        }
        current = written;
        pending = null;
        markersInFlight = false;
    }

    /** The write failed: the committed state stays. */
    void abandonTransition() {
        pending = null;
    }

    /** Runs {@code action} (outside this monitor) once the pending transition is written or abandoned. */
    void afterTransition(Runnable action) {
        if (pending == null) {
            throw new IllegalStateException(transactionalId + ": no transition to wait for");
        }
        if (waiting.isEmpty()) {
            waiting = new ArrayList<>();
        }
        waiting.add(action);
    }

    /** What waits for the pending transition, handed over once (the caller runs it outside the monitor). */
    List<Runnable> takeWaiting() {
        List<Runnable> taken = waiting;
        waiting = List.of();
        return taken;
    }

    /** Claims the sending of the current Prepare* state's markers; false if already claimed. */
    boolean claimMarkers() {
        if (markersInFlight) {
            return false;
        }
        markersInFlight = true;
        return true;
    }

    @Override
    public String toString() {
        return "TransactionMetadata(" + transactionalId + ", " + current + (pending == null ? "" : ", pending " + pending)
                + ")";
    }
}
