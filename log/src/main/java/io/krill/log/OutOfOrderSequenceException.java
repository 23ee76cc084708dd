package io.krill.log;

import io.krill.wire.error.Errors;

/** An idempotent batch whose sequence does not follow the producer's last one. Maps to {@code OUT_OF_ORDER_SEQUENCE_NUMBER}. */
public final class OutOfOrderSequenceException extends LogException {
    private static final long serialVersionUID = 1L;

    public OutOfOrderSequenceException(String message) {
        super(message);
    }

    @Override
    public Errors error() {
        return Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
    }
}
