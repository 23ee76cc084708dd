package io.krill.log;

import io.krill.wire.error.Errors;

/**
 * Base of the typed outcomes the log reports by exception. Each subclass gives the Kafka error the broker
 * answers with ({@link #error()}, e.g. {@link Errors#OFFSET_OUT_OF_RANGE}), checked by the compiler rather
 * than matched by name. Stack traces are not filled: these are expected outcomes, not bugs.
 */
public abstract class LogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected LogException(String message) {
        super(message, null, false, false);
    }

    protected LogException(String message, Throwable cause) {
        super(message, cause, false, true);
    }

    /** The Kafka protocol error this is answered with. */
    public abstract Errors error();
}
