package io.krill.wire.protocol;

/**
 * Thrown by {@link Message#write} and {@link Message#size} when the message cannot be encoded at the
 * requested version: a version the schema does not define, a null in a non-nullable field, a
 * non-default value in a non-ignorable field the version lacks (ignorable fields are silently
 * dropped, as in Kafka), unknown tagged fields at a non-flexible version, a string over 32767 UTF-8
 * bytes or an unsigned value out of range. It signals a bug in the caller, never bad input.
 */
public final class UnwritableMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnwritableMessageException(String message) {
        super(message);
    }
}
