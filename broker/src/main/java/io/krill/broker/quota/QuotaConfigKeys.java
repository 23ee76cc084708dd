package io.krill.broker.quota;

import java.util.Map;

/**
 * The quota config keys an entity may carry and their value types, as Kafka's QuotaConfig defines them:
 * user, client-id and user/client-id entities take the byte rates (integral), request_percentage and
 * controller_mutation_rate (doubles; Krill stores the latter without enforcing it); ip entities take
 * connection_creation_rate (integral; stored, enforced by the network layer if at all).
 */
public final class QuotaConfigKeys {
    /** The value type of a key, which decides what values are accepted. */
    public enum ValueType { LONG, INT, DOUBLE }

    public static final String PRODUCER_BYTE_RATE = "producer_byte_rate";
    public static final String CONSUMER_BYTE_RATE = "consumer_byte_rate";
    public static final String REQUEST_PERCENTAGE = "request_percentage";
    public static final String CONTROLLER_MUTATION_RATE = "controller_mutation_rate";
    public static final String CONNECTION_CREATION_RATE = "connection_creation_rate";

    public static final Map<String, ValueType> CLIENT_KEYS = Map.of(
            PRODUCER_BYTE_RATE, ValueType.LONG,
            CONSUMER_BYTE_RATE, ValueType.LONG,
            REQUEST_PERCENTAGE, ValueType.DOUBLE,
            CONTROLLER_MUTATION_RATE, ValueType.DOUBLE);

    public static final Map<String, ValueType> IP_KEYS = Map.of(CONNECTION_CREATION_RATE, ValueType.INT);

    private QuotaConfigKeys() {
    }

    /** Whether {@code key} is a quota key of any entity type (the keys this package owns in an entity). */
    public static boolean isQuotaKey(String key) {
        return CLIENT_KEYS.containsKey(key) || IP_KEYS.containsKey(key);
    }

    /**
     * Why {@code value} cannot be stored for {@code key} of type {@code type}, or null when it can; the
     * checks and messages of Kafka's controller.
     */
    public static String invalidValue(String key, ValueType type, double value) {
        if (!(value > 0.0)) {
            return "Quota " + key + " must be greater than 0";
        }
        switch (type) {
            case DOUBLE:
                return Double.isFinite(value) ? null : "Proposed value for " + key + " is not a finite number.";
            case INT:
                if (value > Integer.MAX_VALUE) {
                    return "Proposed value for " + key + " is too large for an INT.";
                }
                return fractional(key, value);
            case LONG:
                if (value > Long.MAX_VALUE) {
                    return "Proposed value for " + key + " is too large for a LONG.";
                }
                return fractional(key, value);
            default:
                throw new IllegalStateException("unreachable");
        }
    }

    private static String fractional(String key, double value) {
        return Math.abs(value % 1.0) > 1e-6 ? key + " cannot be a fractional value." : null;
    }
}
