package io.krill.broker.console;

import io.krill.wire.error.Errors;

/**
 * An answer other than 200 to a console request: the HTTP status and the body's {@code error} (a Kafka
 * error name, or {@code BAD_REQUEST}) and {@code message}. Immutable.
 */
public final class ConsoleException extends RuntimeException {
    private final int status;
    private final String error;

    public ConsoleException(int status, String error, String message) {
        super(message, null, false, false);
        this.status = status;
        this.error = error;
    }

    public static ConsoleException badRequest(String message) {
        return new ConsoleException(400, "BAD_REQUEST", message);
    }

    public static ConsoleException notFound(Errors error, String message) {
        return new ConsoleException(404, error.name(), message);
    }

    public static ConsoleException forbidden(Errors error, String message) {
        return new ConsoleException(403, error.name(), message);
    }

    public static ConsoleException unavailable(Errors error, String message) {
        return new ConsoleException(503, error.name(), message);
    }

    public int status() {
        return status;
    }

    public String error() {
        return error;
    }
}
