package io.krill.broker.config;

/**
 * One place a described config's value is or could be set, as DescribeConfigs lists synonyms. Immutable.
 *
 * @param name   the key at that level (e.g. log.retention.hours for retention.ms)
 * @param value  its value there as a string; {@code null} for sensitive keys
 * @param source the level
 */
public record ConfigSynonym(String name, String value, ConfigSource source) {
}
