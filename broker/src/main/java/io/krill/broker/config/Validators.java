package io.krill.broker.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Factories for the validators Kafka's config definitions use, with Kafka's error wording
 * ({@code Value must be at least 1}, {@code String must be one of: a, b}, ...). All are immutable.
 */
public final class Validators {
    private Validators() {
    }

    /** Numbers at least {@code min}. */
    public static Validator atLeast(Number min) {
        return new Range(min, null);
    }

    /** Numbers in {@code [min, max]}. */
    public static Validator between(Number min, Number max) {
        return new Range(min, max);
    }

    /** One of the given strings, compared exactly (as Kafka's {@code ValidString}). */
    public static Validator oneOf(String... allowed) {
        return new OneOf(List.of(allowed), false);
    }

    /** One of the given strings, ignoring case (as Kafka's {@code CaseInsensitiveValidString}). */
    public static Validator oneOfIgnoreCase(String... allowed) {
        return new OneOf(List.of(allowed), true);
    }

    /**
     * A list whose items are non-empty, distinct and, if {@code allowed} is not empty, each one of {@code allowed}.
     *
     * @param emptyListAllowed whether the empty list is a valid value
     */
    public static Validator listOf(boolean emptyListAllowed, String... allowed) {
        return new ListOf(emptyListAllowed, new OneOf(List.of(allowed), false));
    }

    /** A string that is not empty after trimming. */
    public static Validator nonEmptyString() {
        return new Custom("non-empty string", v -> !v.toString().isEmpty(), "String must be non-empty");
    }

    /**
     * Any other rule.
     *
     * @param description     valid values, for documentation
     * @param test            true if the value is valid
     * @param failureMessage  appended to "Invalid value x for configuration k: "
     */
    public static Validator custom(String description, Predicate<Object> test, String failureMessage) {
        return new Custom(description, test, failureMessage);
    }

    /** A numeric range; {@code max} may be null. */
    record Range(Number min, Number max) implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            Number n = (Number) value;
            if (min != null && compare(n, min) < 0) {
                throw new ConfigException(name, value, "Value must be at least " + min);
            }
            if (max != null && compare(n, max) > 0) {
                throw new ConfigException(name, value, "Value must be no more than " + max);
            }
        }

        private static int compare(Number a, Number b) {
            boolean integral = !(a instanceof Double || a instanceof Float)
                    && !(b instanceof Double || b instanceof Float);
            return integral ? Long.compare(a.longValue(), b.longValue())
                    : Double.compare(a.doubleValue(), b.doubleValue());
        }

        @Override
        public String toString() {
            return max == null ? "[" + min + ",...]" : "[" + min + ",...," + max + "]";
        }
    }

    /** A string from a fixed set. */
    record OneOf(List<String> allowed, boolean ignoreCase) implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String s = value.toString();
            for (String a : allowed) {
                if (ignoreCase ? a.equalsIgnoreCase(s) : a.equals(s)) {
                    return;
                }
            }
            throw new ConfigException(name, value, (ignoreCase ? "String must be one of (case insensitive): "
                    : "String must be one of: ") + String.join(", ", allowed));
        }

        @Override
        public String toString() {
            return (ignoreCase ? "(case insensitive) " : "") + "[" + String.join(", ", allowed) + "]";
        }
    }

    /** A list of strings, each validated by {@code items} when it has allowed values. */
    record ListOf(boolean emptyListAllowed, OneOf items) implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            List<?> values = (List<?>) value;
            if (!emptyListAllowed && values.isEmpty()) {
                throw new ConfigException("Configuration '" + name + "' must not be empty. Valid values include: "
                        + (items.allowed().isEmpty() ? "any non-empty value" : items));
            }
            Set<Object> seen = new HashSet<>();
            for (Object item : values) {
                if (item.toString().isEmpty()) {
                    throw new ConfigException("Configuration '" + name + "' values must not be empty.");
                }
                if (!seen.add(item)) {
                    throw new ConfigException("Configuration '" + name + "' values must not be duplicated.");
                }
                if (!items.allowed().isEmpty()) {
                    items.ensureValid(name, item);
                }
            }
        }

        @Override
        public String toString() {
            return items.allowed().isEmpty() ? "list of distinct non-empty values"
                    : items.toString();
        }
    }

    /** A rule given as a predicate. */
    record Custom(String description, Predicate<Object> test, String failureMessage) implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!test.test(value)) {
                throw new ConfigException(name, value, failureMessage);
            }
        }

        @Override
        public String toString() {
            return description;
        }
    }
}
