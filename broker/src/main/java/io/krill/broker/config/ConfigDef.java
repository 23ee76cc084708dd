package io.krill.broker.config;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * An ordered set of {@link ConfigKey}s that parses string properties into {@link ConfigValues}.
 *
 * <p>Built once at class initialisation (by the {@code *ConfigDefs} classes) and then only read: safe to share
 * between threads after construction, like an effectively immutable object. Not safe to {@link #define} into
 * while another thread reads.
 */
public final class ConfigDef {
    private final Map<String, ConfigKey> keys = new LinkedHashMap<>();

    /** Adds a key. @throws IllegalStateException if a key of that name exists */
    public ConfigDef define(ConfigKey key) {
        if (keys.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("Configuration " + key.name() + " is defined twice.");
        }
        return this;
    }

    public ConfigDef define(ConfigKey.Builder key) {
        return define(key.build());
    }

    /** Adds every key of {@code other}. */
    public ConfigDef defineAll(ConfigDef other) {
        other.keys().forEach(this::define);
        return this;
    }

    public Optional<ConfigKey> find(String name) {
        return Optional.ofNullable(keys.get(name));
    }

    /** @throws IllegalArgumentException if the key is not defined */
    public ConfigKey key(String name) {
        ConfigKey key = keys.get(name);
        if (key == null) {
            throw new IllegalArgumentException("Unknown configuration " + name);
        }
        return key;
    }

    public boolean contains(String name) {
        return keys.containsKey(name);
    }

    /** All keys in definition order (unmodifiable view). */
    public Collection<ConfigKey> keys() {
        return Collections.unmodifiableCollection(keys.values());
    }

    /** All key names in definition order (unmodifiable view). */
    public Set<String> names() {
        return Collections.unmodifiableSet(keys.keySet());
    }

    /**
     * Parses and validates every defined key; absent keys get their default. Keys of {@code props} that are not
     * defined are ignored here (see {@link #unknownKeys}).
     *
     * @throws ConfigException on the first bad value, or for a missing required key
     */
    public ConfigValues parse(Map<String, String> props) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (ConfigKey key : keys.values()) {
            String raw = props.get(key.name());
            if (raw != null) {
                values.put(key.name(), key.parse(raw));
            } else if (key.required()) {
                throw new ConfigException("Missing required configuration \"" + key.name()
                        + "\" which has no default value.");
            } else {
                values.put(key.name(), key.defaultValue());
            }
        }
        return new ConfigValues(values);
    }

    /** Parses one value of a defined key. @throws ConfigException if bad or the key is unknown */
    public Object parseValue(String name, String raw) {
        ConfigKey key = keys.get(name);
        if (key == null) {
            throw new ConfigException("Unknown configuration " + name);
        }
        return key.parse(raw);
    }

    /** The names among {@code names} that are not defined here, sorted. */
    public Set<String> unknownKeys(Collection<String> names) {
        Set<String> unknown = new TreeSet<>();
        for (String n : names) {
            if (!keys.containsKey(n)) {
                unknown.add(n);
            }
        }
        return unknown;
    }
}
