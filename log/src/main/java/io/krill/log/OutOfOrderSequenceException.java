package io.krill.log;

/** An idempotent batch whose sequence does not follow the producer's last one. Maps to {@code OUT_OF_ORDER_SEQUENCE_NUMBER}. */
public final class OutOfOrderSequenceException extends LogException {
    private static final long serialVersionUID = 1L;

    public OutOfOrderSequenceException(String message) {
        super(message);
    }

    @Override
    public String errorName() {
        return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    }
}
