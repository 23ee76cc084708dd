package io.krill.broker.telemetry;

import io.krill.broker.config.AlterConfigOp;
import io.krill.broker.config.ConfigException;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The configs of a client metrics subscription (ConfigResource CLIENT_METRICS, KIP-714) as Kafka 4.4's
 * {@code ClientMetricsConfigs} defines and validates them: {@code metrics} (metric name prefixes, {@code *} for
 * every metric; default none), {@code interval.ms} (100 to 3,600,000; default 300,000) and {@code match}
 * ({@code selector=regex} pairs over {@link #SELECTORS}; default: every client). A subscription is stored as the
 * metadata entity {@code client-metrics/<name>}; a subscription whose configs are all deleted is gone.
 *
 * <p>Errors as Kafka's: an empty name, an unknown key or an interval out of range are INVALID_REQUEST; a value
 * that does not parse or a bad match pattern are INVALID_CONFIG ({@link ConfigException}); a list item given twice
 * is accepted, as Kafka 4.4 accepts it; APPEND and SUBTRACT are INVALID_CONFIG on every key, as Kafka's controller
 * knows no LIST type for them.
 * Stateless.
 */
public final class ClientMetricsConfigs {
    /** Metadata store entity type of subscriptions: {@code client-metrics/<name>}. */
    public static final String ENTITY_TYPE = "client-metrics";
    public static final String METRICS = "metrics";
    public static final String INTERVAL_MS = "interval.ms";
    public static final String MATCH = "match";
    public static final String ALL_METRICS = "*";
    public static final int DEFAULT_INTERVAL_MS = 300_000;
    static final int MIN_INTERVAL_MS = 100;
    static final int MAX_INTERVAL_MS = 3_600_000;

    public static final String CLIENT_INSTANCE_ID = "client_instance_id";
    public static final String CLIENT_ID = "client_id";
    public static final String CLIENT_SOFTWARE_NAME = "client_software_name";
    public static final String CLIENT_SOFTWARE_VERSION = "client_software_version";
    public static final String CLIENT_SOURCE_ADDRESS = "client_source_address";
    public static final String CLIENT_SOURCE_PORT = "client_source_port";
    /** The client attributes a {@code match} entry may select on. */
    public static final Set<String> SELECTORS = Set.of(CLIENT_INSTANCE_ID, CLIENT_ID, CLIENT_SOFTWARE_NAME,
            CLIENT_SOFTWARE_VERSION, CLIENT_SOURCE_ADDRESS, CLIENT_SOURCE_PORT);

    /** The keys in Kafka's definition order, with their types (as DescribeConfigs reports them) and docs. */
    public static final List<Key> KEYS = List.of(
            new Key(METRICS, true, "Telemetry metric name prefix list"),
            new Key(INTERVAL_MS, false, "Metrics push interval in milliseconds"),
            new Key(MATCH, true, "Client match criteria"));

    /** One key: a LIST or (interval.ms) an INT. */
    public record Key(String name, boolean list, String documentation) {
        /** The default as DescribeConfigs shows it. */
        public String defaultValue() {
            return list ? "" : Integer.toString(DEFAULT_INTERVAL_MS);
        }
    }

    private ClientMetricsConfigs() {
    }

    /** The metadata store entity holding subscription {@code name}. */
    public static String entity(String name) {
        return ENTITY_TYPE + "/" + name;
    }

    /**
     * {@code ops} applied to a subscription's {@code current} configs, then validated as a whole.
     *
     * @throws ApiException INVALID_REQUEST for an empty name, an unknown key, an interval out of range
     * @throws ConfigException for a value that does not parse or a bad match pattern (INVALID_CONFIG)
     */
    public static Map<String, String> applyIncremental(String name, Map<String, String> current,
                                                       List<AlterConfigOp> ops) {
        Map<String, String> result = new TreeMap<>(current);
        for (AlterConfigOp op : ops) {
            switch (op.op()) {
                case SET -> result.put(op.name(), op.value());
                case DELETE -> result.remove(op.name());
                // Kafka's controller knows no type for CLIENT_METRICS keys: a LIST operation is refused on any.
                case APPEND, SUBTRACT -> throw new ConfigException("Can't " + op.op() + " to key " + op.name()
                        + " because its type is not LIST.");
                default -> throw new IllegalStateException("Unexpected op " + op.op());
            }
        }
        return validate(name, result);
    }

    /**
     * Validates a subscription's whole set of configs as Kafka's {@code ClientMetricsConfigs.validate}.
     *
     * @return {@code configs}, sorted
     */
    public static Map<String, String> validate(String name, Map<String, String> configs) {
        if (name == null || name.isEmpty()) {
            throw new ApiException(Errors.INVALID_REQUEST, "Subscription name can't be empty");
        }
        for (String key : configs.keySet()) {
            if (find(key) == null) {
                throw new ApiException(Errors.INVALID_REQUEST, "Unknown client metrics configuration: " + key);
            }
        }
        parse(name, configs);
        return new TreeMap<>(configs);
    }

    /** The subscription {@code name}'s configs parsed; they must be valid (as {@link #validate} checks). */
    public static ClientMetricsSubscription parse(String name, Map<String, String> configs) {
        List<String> metrics = configs.containsKey(METRICS) ? splitList(configs.get(METRICS)) : List.of();
        int interval = DEFAULT_INTERVAL_MS;
        String rawInterval = configs.get(INTERVAL_MS);
        if (rawInterval != null) {
            try {
                interval = Integer.parseInt(rawInterval.trim());
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid value " + rawInterval + " for configuration " + INTERVAL_MS
                        + ": Not a number of type INT");
            }
            if (interval < MIN_INTERVAL_MS || interval > MAX_INTERVAL_MS) {
                throw new ApiException(Errors.INVALID_REQUEST, String.format("Invalid value %s for %s, interval must "
                        + "be between 100 and 3600000 (1 hour)", interval, INTERVAL_MS));
            }
        }
        Map<String, Pattern> match = configs.containsKey(MATCH)
                ? matchPatterns(splitList(configs.get(MATCH))) : Map.of();
        return new ClientMetricsSubscription(name, metrics, interval, match);
    }

    /** Kafka's {@code parseMatchingPatterns}: each entry {@code selector=regex}, a known selector, a valid regex. */
    static Map<String, Pattern> matchPatterns(List<String> entries) {
        Map<String, Pattern> patterns = new LinkedHashMap<>();
        for (String entry : entries) {
            String[] parts = entry.split("=");
            if (parts.length != 2 || !SELECTORS.contains(parts[0].trim())) {
                throw new ConfigException("Illegal client matching pattern: " + entry);
            }
            try {
                patterns.put(parts[0].trim(), Pattern.compile(parts[1].trim()));
            } catch (PatternSyntaxException e) {
                throw new ConfigException("Illegal client matching pattern: " + entry);
            }
        }
        return patterns;
    }

    /** A LIST value's items: comma-separated, trimmed; none for the empty string. */
    public static List<String> splitList(String raw) {
        if (raw == null || raw.trim().isEmpty()) {
            return List.of();
        }
        List<String> items = new ArrayList<>();
        for (String item : raw.split(",", -1)) {
            items.add(item.trim());
        }
        return items;
    }

    private static Key find(String name) {
        for (Key key : KEYS) {
            if (key.name().equals(name)) {
                return key;
            }
        }
        return null;
    }
}
