package io.krill.log;

/**
 * Base of the typed outcomes the log reports by exception. Each subclass names the Kafka error code the
 * broker should answer with ({@link #errorName()}, e.g. {@code OFFSET_OUT_OF_RANGE}); the broker maps by
 * class or by that name. Stack traces are not filled: these are expected outcomes, not bugs.
 */
public abstract class LogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected LogException(String message) {
        super(message, null, false, false);
    }

    protected LogException(String message, Throwable cause) {
        super(message, cause, false, true);
    }

    /** The name of the Kafka protocol error this maps to, as in Kafka's {@code Errors} enum. */
    public abstract String errorName();
}
