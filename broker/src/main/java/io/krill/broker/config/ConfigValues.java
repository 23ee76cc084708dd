package io.krill.broker.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Parsed values of every key of a {@link ConfigDef} (defaults filled in; optional keys may be {@code null}), with
 * typed getters. Immutable and thread-safe.
 */
public final class ConfigValues {
    private final Map<String, Object> values;

    ConfigValues(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The parsed value, possibly {@code null}. @throws IllegalArgumentException for a key that is not defined */
    public Object get(String name) {
        if (!values.containsKey(name)) {
            throw new IllegalArgumentException("Unknown configuration " + name);
        }
        return values.get(name);
    }

    /** True if the key is defined and has a non-null value. */
    public boolean isSet(String name) {
        return values.get(name) != null;
    }

    public int getInt(String name) {
        return (Integer) required(name);
    }

    public short getShort(String name) {
        return (Short) required(name);
    }

    public long getLong(String name) {
        return (Long) required(name);
    }

    public double getDouble(String name) {
        return (Double) required(name);
    }

    public boolean getBoolean(String name) {
        return (Boolean) required(name);
    }

    /** A STRING or CLASS value, possibly {@code null}. */
    public String getString(String name) {
        return (String) get(name);
    }

    /** A LIST value, possibly {@code null}; unmodifiable. */
    @SuppressWarnings("unchecked")
    public List<String> getList(String name) {
        return (List<String>) get(name);
    }

    public Password getPassword(String name) {
        return (Password) get(name);
    }

    public OptionalInt optionalInt(String name) {
        Object v = get(name);
        return v == null ? OptionalInt.empty() : OptionalInt.of((Integer) v);
    }

    public OptionalLong optionalLong(String name) {
        Object v = get(name);
        return v == null ? OptionalLong.empty() : OptionalLong.of((Long) v);
    }

    public Optional<String> optionalString(String name) {
        return Optional.ofNullable(getString(name));
    }

    /** All values by key (unmodifiable, may contain nulls), in definition order. */
    public Map<String, Object> asMap() {
        return values;
    }

    private Object required(String name) {
        Object v = get(name);
        if (v == null) {
            throw new IllegalStateException("Configuration " + name + " has no value");
        }
        return v;
    }

    /** One {@code key = value} line per key, sorted; passwords hidden. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(values).forEach((k, v) -> sb.append('\t').append(k).append(" = ")
                .append(ConfigType.format(v)).append('\n'));
        return sb.toString();
    }
}
