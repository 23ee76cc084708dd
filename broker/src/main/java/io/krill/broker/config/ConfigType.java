package io.krill.broker.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The value types of config keys, with Kafka's parsing rules and the type ids that DescribeConfigs reports
 * (BOOLEAN 1 ... PASSWORD 9; 0 is UNKNOWN on the wire and has no constant here).
 *
 * <p>Parsing trims surrounding whitespace; booleans are {@code true}/{@code false} in any case; numbers must fit the
 * type; lists are comma-separated with trimmed items ({@code ""} is the empty list); CLASS values are kept as class
 * names and never loaded, since Kafka plug-in classes are not on Krill's class path.
 */
public enum ConfigType {
    BOOLEAN(1),
    STRING(2),
    INT(3),
    SHORT(4),
    LONG(5),
    DOUBLE(6),
    LIST(7),
    CLASS(8),
    PASSWORD(9);

    private static final Pattern COMMA_WITH_WHITESPACE = Pattern.compile("\\s*,\\s*");
    private static final Pattern CLASS_NAME =
            Pattern.compile("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*"
                    + "([.$][\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*)*");

    private final int id;

    ConfigType(int id) {
        this.id = id;
    }

    /** The config type id of Kafka's DescribeConfigs response. */
    public int id() {
        return id;
    }

    /**
     * Parses a string value of key {@code name}.
     *
     * @return the typed value: Boolean, String, Integer, Short, Long, Double, an unmodifiable List of String,
     *         a class name String, or a {@link Password}; {@code null} for {@code null}
     * @throws ConfigException naming the key and the raw value if it is not of this type
     */
    public Object parse(String name, String raw) {
        if (raw == null) {
            return null;
        }
        String trimmed = raw.trim();
        try {
            return switch (this) {
                case BOOLEAN -> parseBoolean(name, raw, trimmed);
                case STRING -> trimmed;
                case PASSWORD -> new Password(trimmed);
                case INT -> Integer.parseInt(trimmed);
                case SHORT -> Short.parseShort(trimmed);
                case LONG -> Long.parseLong(trimmed);
                case DOUBLE -> Double.parseDouble(trimmed);
                case LIST -> trimmed.isEmpty() ? List.of() : List.of(COMMA_WITH_WHITESPACE.split(trimmed, -1));
                case CLASS -> parseClassName(name, raw, trimmed);
            };
        } catch (NumberFormatException e) {
            throw new ConfigException(name, raw, "Not a number of type " + this);
        }
    }

    /**
     * Converts a default given in Java form (Integer for a LONG key, a String to parse, a List...) to this type.
     *
     * @throws IllegalArgumentException if it cannot represent a value of this type (a definition bug)
     */
    Object coerce(String name, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String s && this != STRING) {
            return parse(name, s);
        }
        Object result = switch (this) {
            case BOOLEAN -> value instanceof Boolean ? value : null;
            case STRING, CLASS -> value instanceof String ? value : null;
            case PASSWORD -> value instanceof Password ? value : null;
            case INT -> value instanceof Integer ? value : null;
            case SHORT -> value instanceof Short ? value
                    : value instanceof Integer i && i == i.shortValue() ? Short.valueOf(i.shortValue()) : null;
            case LONG -> value instanceof Long ? value : value instanceof Integer i ? Long.valueOf(i) : null;
            case DOUBLE -> value instanceof Number n ? Double.valueOf(n.doubleValue()) : null;
            case LIST -> value instanceof List<?> l ? copyOfStrings(l) : null;
        };
        if (result == null) {
            throw new IllegalArgumentException("Default of " + name + " is not of type " + this + ": " + value);
        }
        return result;
    }

    /**
     * Formats a typed value as Kafka does in DescribeConfigs and config dumps: lists comma-joined, everything else
     * by {@code toString} (so a Password shows as {@link Password#HIDDEN}); {@code null} stays {@code null}.
     */
    public static String format(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof List<?> list) {
            StringBuilder sb = new StringBuilder();
            for (Object item : list) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(item);
            }
            return sb.toString();
        }
        return value.toString();
    }

    private static Boolean parseBoolean(String name, String raw, String trimmed) {
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (lower.equals("true")) {
            return Boolean.TRUE;
        }
        if (lower.equals("false")) {
            return Boolean.FALSE;
        }
        throw new ConfigException(name, raw, "Expected value to be either true or false");
    }

    private static String parseClassName(String name, String raw, String trimmed) {
        if (!CLASS_NAME.matcher(trimmed).matches()) {
            throw new ConfigException(name, raw, "Expected a class name");
        }
        return trimmed;
    }

    private static List<String> copyOfStrings(List<?> list) {
        List<String> out = new ArrayList<>(list.size());
        for (Object o : list) {
            out.add(String.valueOf(o));
        }
        return List.copyOf(out);
    }

    /** Splits a comma-separated raw list the way {@link #LIST} parsing does (used by APPEND/SUBTRACT). */
    static List<String> splitList(String raw) {
        String trimmed = raw == null ? "" : raw.trim();
        return trimmed.isEmpty() ? List.of() : Arrays.asList(COMMA_WITH_WHITESPACE.split(trimmed, -1));
    }
}
