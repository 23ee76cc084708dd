package io.krill.wire.generator;

/** A schema the generator cannot (or must not) turn into code. */
public final class SchemaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SchemaException(String message) {
        super(message);
    }
}
