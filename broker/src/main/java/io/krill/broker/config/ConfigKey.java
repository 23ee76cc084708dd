package io.krill.broker.config;

import java.util.Objects;

/**
 * The definition of one config key: its name, type, default, validation, documentation and whether it can be
 * changed at runtime. Immutable and thread-safe; build with {@link #builder(String, ConfigType)}.
 *
 * @param name          the property name, as in Kafka
 * @param type          the value type
 * @param defaultValue  the parsed default; {@code null} means "no value" unless {@code required}
 * @param required      true if the key has no default and must be set
 * @param validator     checks non-null values, or {@code null}
 * @param importance    documentation only
 * @param documentation one or two sentences on what the key does
 * @param dynamicMode   whether AlterConfigs may change it at runtime (broker keys; topic keys are always alterable)
 * @param supported     false for keys Krill accepts for compatibility but does not implement (e.g. tiered storage)
 * @param internal      true for keys Kafka defines as internal: settable, but DescribeConfigs does not list them
 */
public record ConfigKey(String name, ConfigType type, Object defaultValue, boolean required, Validator validator,
                        Importance importance, String documentation, DynamicMode dynamicMode, boolean supported,
                        boolean internal) {

    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(importance, "importance");
        Objects.requireNonNull(documentation, "documentation");
        Objects.requireNonNull(dynamicMode, "dynamicMode");
        if (required && defaultValue != null) {
            throw new IllegalArgumentException(name + ": a required key cannot have a default");
        }
        if (validator != null && defaultValue != null) {
            try {
                validator.ensureValid(name, defaultValue);
            } catch (ConfigException e) {
                throw new IllegalArgumentException("Invalid default for " + name + ": " + e.getMessage(), e);
            }
        }
    }

    public static Builder builder(String name, ConfigType type) {
        return new Builder(name, type);
    }

    /**
     * Parses and validates a raw string value of this key.
     *
     * @throws ConfigException naming this key and the raw value
     */
    public Object parse(String raw) {
        Object value = type.parse(name, raw);
        if (value != null && validator != null) {
            validator.ensureValid(name, value);
        }
        return value;
    }

    /** True if the key has a non-null default (Kafka's DEFAULT_CONFIG source exists for it). */
    public boolean hasDefaultValue() {
        return defaultValue != null;
    }

    /** The default formatted as Kafka reports it, or {@code null}. */
    public String defaultAsString() {
        return ConfigType.format(defaultValue);
    }

    /** Fluent construction of a {@link ConfigKey}; not thread-safe, use once. */
    public static final class Builder {
        private final String name;
        private final ConfigType type;
        private Object defaultValue;
        private boolean required;
        private Validator validator;
        private Importance importance = Importance.MEDIUM;
        private String documentation = "";
        private DynamicMode dynamicMode = DynamicMode.READ_ONLY;
        private boolean supported = true;
        private boolean internal;

        private Builder(String name, ConfigType type) {
            this.name = name;
            this.type = type;
        }

        /** The default, in Java form (e.g. {@code 1}, {@code 168L}) or as a string to parse. */
        public Builder defaultValue(Object value) {
            this.defaultValue = type.coerce(name, value);
            this.required = false;
            return this;
        }

        /** The key must be set: parsing fails with "Missing required configuration" when absent. */
        public Builder noDefault() {
            this.defaultValue = null;
            this.required = true;
            return this;
        }

        public Builder validator(Validator validator) {
            this.validator = validator;
            return this;
        }

        public Builder importance(Importance importance) {
            this.importance = importance;
            return this;
        }

        public Builder doc(String documentation) {
            this.documentation = documentation;
            return this;
        }

        public Builder dynamic(DynamicMode mode) {
            this.dynamicMode = mode;
            return this;
        }

        /** Shorthand for {@code dynamic(DynamicMode.CLUSTER_WIDE)}. */
        public Builder clusterWide() {
            return dynamic(DynamicMode.CLUSTER_WIDE);
        }

        /** Shorthand for {@code dynamic(DynamicMode.PER_BROKER)}. */
        public Builder perBroker() {
            return dynamic(DynamicMode.PER_BROKER);
        }

        /** Accepted for compatibility, not implemented by Krill. */
        public Builder notSupported() {
            this.supported = false;
            return this;
        }

        /** A tuning key Kafka keeps out of DescribeConfigs answers; it can still be set. */
        public Builder internal() {
            this.internal = true;
            return this;
        }

        public ConfigKey build() {
            return new ConfigKey(name, type, defaultValue, required, validator, importance, documentation,
                    dynamicMode, supported, internal);
        }
    }
}
