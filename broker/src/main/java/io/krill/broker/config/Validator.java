package io.krill.broker.config;

/**
 * Checks a parsed, non-null value of a key; implementations must be immutable and thread-safe.
 * Their {@code toString} describes the valid values for documentation (Kafka's "Valid Values" column).
 * Ready-made validators are in {@link Validators}.
 */
@FunctionalInterface
public interface Validator {
    /**
     * @param name  the key, for the error message
     * @param value the parsed value, never {@code null} (absent optional values are not validated)
     * @throws ConfigException naming the key and value if the value is not valid
     */
    void ensureValid(String name, Object value);
}
