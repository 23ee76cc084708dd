package io.krill.log;

/** A follower append whose batches' offsets are not strictly increasing: the leader sent bad data. Maps to {@code UNKNOWN_SERVER_ERROR}. */
public final class OffsetsOutOfOrderException extends LogException {
    private static final long serialVersionUID = 1L;

    public OffsetsOutOfOrderException(String message) {
        super(message);
    }

    @Override
    public String errorName() {
        return "UNKNOWN_SERVER_ERROR";
    }
}
