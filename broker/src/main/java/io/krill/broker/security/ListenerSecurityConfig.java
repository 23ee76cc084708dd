package io.krill.broker.security;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.BrokerConfigDefs;
import io.krill.broker.config.Password;
import java.util.List;
import java.util.Locale;

/**
 * The security keys as one listener sees them: Kafka's {@code listener.name.<name lower-case>.<key>}
 * overrides ({@code listener.name.internal.ssl.keystore.location}) win over the broker-wide key.
 *
 * <p>Immutable and thread-safe.
 */
public final class ListenerSecurityConfig {
    private final BrokerConfig config;
    private final String listenerName;
    private final String prefix;

    public ListenerSecurityConfig(BrokerConfig config, String listenerName) {
        this.config = config;
        this.listenerName = listenerName;
        this.prefix = BrokerConfig.LISTENER_PREFIX + listenerName.toLowerCase(Locale.ROOT) + ".";
    }

    public String listenerName() {
        return listenerName;
    }

    public BrokerConfig brokerConfig() {
        return config;
    }

    /** The value of {@code key} for this listener: its override when set, else the broker's value. */
    public Object get(String key) {
        String override = config.staticConfigs().get(prefix + key);
        if (override != null) {
            return BrokerConfigDefs.DEF.parseValue(key, override);
        }
        return config.values().get(key);
    }

    public String string(String key) {
        Object v = get(key);
        return v == null ? null : v.toString();
    }

    /** A password's clear text, or null when unset. */
    public String password(String key) {
        Object v = get(key);
        return v instanceof Password p ? p.value() : v == null ? null : v.toString();
    }

    @SuppressWarnings("unchecked")
    public List<String> list(String key) {
        Object v = get(key);
        return v == null ? List.of() : (List<String>) v;
    }

    public long longValue(String key) {
        return ((Number) get(key)).longValue();
    }

    public int intValue(String key) {
        return ((Number) get(key)).intValue();
    }
}
