package io.krill.broker.config;

/**
 * A configuration value is missing, malformed or out of range.
 *
 * <p>The message follows Kafka's wording ({@code Invalid value x for configuration retention.ms: Not a number of
 * type LONG}) because it is shown to operators at startup and returned verbatim to clients as the error message of
 * an INVALID_CONFIG answer.
 */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String configName;

    /** A failure not tied to a single key (cross-key rules, file errors). */
    public ConfigException(String message) {
        super(message);
        this.configName = null;
    }

    /** A failure of one key: names the key and the offending value as Kafka does. */
    public ConfigException(String name, Object value, String message) {
        super("Invalid value " + value + " for configuration " + name + (message == null ? "" : ": " + message));
        this.configName = name;
    }

    /** The key at fault, or {@code null} when the failure involves several keys. */
    public String configName() {
        return configName;
    }
}
