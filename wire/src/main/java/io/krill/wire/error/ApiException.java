package io.krill.wire.error;

/**
 * A failure that the broker answers with a specific protocol error code: throw it from request handling
 * and the response carries {@link #error()} (see {@link Errors#forException}). Without a stack trace:
 * these are expected outcomes (a stale epoch, an unknown topic), not bugs.
 *
 * <p>Immutable, thread-safe.
 */
public class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errors error;

    public ApiException(Errors error, String message) {
        super(message, null, false, false);
        if (error == null || error == Errors.NONE) {
            throw new IllegalArgumentException("an ApiException needs an error, got " + error);
        }
        this.error = error;
    }

    public ApiException(Errors error, String message, Throwable cause) {
        super(message, cause, false, false);
        if (error == null || error == Errors.NONE) {
            throw new IllegalArgumentException("an ApiException needs an error, got " + error);
        }
        this.error = error;
    }

    public Errors error() {
        return error;
    }
}
