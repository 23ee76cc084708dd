package io.krill.log;

import io.krill.wire.error.Errors;

/** A follower append whose batches' offsets are not strictly increasing: the leader sent bad data. Maps to {@code UNKNOWN_SERVER_ERROR}. */
public final class OffsetsOutOfOrderException extends LogException {
    private static final long serialVersionUID = 1L;

    public OffsetsOutOfOrderException(String message) {
        super(message);
    }

    @Override
    public Errors error() {
        return Errors.UNKNOWN_SERVER_ERROR;
    }
}
