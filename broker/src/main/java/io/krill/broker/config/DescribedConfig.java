package io.krill.broker.config;

import java.util.List;

/**
 * One entry of a DescribeConfigs answer. Immutable.
 *
 * @param name          the key
 * @param value         the effective value as a string; {@code null} if sensitive or unset
 * @param source        where the value comes from: the first synonym's level, or DEFAULT_CONFIG
 * @param sensitive     true for PASSWORD keys, whose values are never returned
 * @param readOnly      true if AlterConfigs cannot change it
 * @param type          the value type; {@code type().id()} is the response's config type id
 * @param documentation what the key does
 * @param synonyms      the levels where it is set, highest priority first (topic, dynamic broker, dynamic
 *                      default, static, default)
 */
public record DescribedConfig(String name, String value, ConfigSource source, boolean sensitive, boolean readOnly,
                              ConfigType type, String documentation, List<ConfigSynonym> synonyms) {
    public DescribedConfig {
        synonyms = List.copyOf(synonyms);
    }
}
