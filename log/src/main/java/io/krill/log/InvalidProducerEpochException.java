package io.krill.log;

import io.krill.wire.error.Errors;

/** A producer batch or marker with an epoch older than the producer's current one (fenced). Maps to {@code INVALID_PRODUCER_EPOCH}. */
public final class InvalidProducerEpochException extends LogException {
    private static final long serialVersionUID = 1L;

    public InvalidProducerEpochException(String message) {
        super(message);
    }

    @Override
    public Errors error() {
        return Errors.INVALID_PRODUCER_EPOCH;
    }
}
