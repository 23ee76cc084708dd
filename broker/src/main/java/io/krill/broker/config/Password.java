package io.krill.broker.config;

import java.util.Objects;

/**
 * A secret config value: {@link #toString()} never shows it, so it cannot leak into logs or config dumps.
 * Immutable and thread-safe.
 */
public final class Password {
    /** What is printed instead of the secret. */
    public static final String HIDDEN = "[hidden]";

    private final String value;

    public Password(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /** The secret itself; call only where it is needed (e.g. to open a key store). */
    public String value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Password p && p.value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return HIDDEN;
    }
}
