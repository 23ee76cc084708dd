package io.krill.log;

import io.krill.wire.error.Errors;

/** A transaction marker from a coordinator epoch older than the last one seen for that producer. Maps to {@code TRANSACTION_COORDINATOR_FENCED}. */
public final class TransactionCoordinatorFencedException extends LogException {
    private static final long serialVersionUID = 1L;

    public TransactionCoordinatorFencedException(String message) {
        super(message);
    }

    @Override
    public Errors error() {
        return Errors.TRANSACTION_COORDINATOR_FENCED;
    }
}
