package io.krill.broker.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Builds DescribeConfigs answers for TOPIC, BROKER and GROUP resources exactly as Kafka does: value, source, synonyms,
 * sensitivity, read-only flag, type and documentation. Stateless.
 *
 * <p>Synonyms are listed level by level (dynamic broker, dynamic default, static, default; a topic's own setting
 * first), each level in the key's synonym order. Like Kafka, the broker-level list starts at the first entry for the
 * described broker key itself, so for retention.ms, whose broker key log.retention.ms is rarely set, the defaults of
 * log.retention.hours are not listed.
 */
public final class ConfigDescriber {
    private ConfigDescriber() {
    }

    /** DescribeConfigs of a TOPIC resource: every topic key, sorted by name. */
    public static List<DescribedConfig> describeTopic(TopicConfig topic, BrokerConfig broker) {
        List<DescribedConfig> result = new ArrayList<>();
        for (ConfigKey key : sorted(TopicConfigDefs.DEF)) {
            String name = key.name();
            boolean sensitive = key.type() == ConfigType.PASSWORD;
            String value = sensitive ? null : ConfigType.format(topic.values().get(name));
            List<ConfigSynonym> synonyms = new ArrayList<>();
            if (topic.isOverridden(name)) {
                synonyms.add(new ConfigSynonym(name, value, ConfigSource.DYNAMIC_TOPIC_CONFIG));
            }
            TopicConfigSynonyms.primaryBrokerKey(name).ifPresent(brokerKey -> synonyms.addAll(
                    brokerSynonyms(brokerKey, broker, sensitive)));
            result.add(new DescribedConfig(name, value, sourceOf(synonyms), sensitive, false, key.type(),
                    key.documentation(), synonyms));
        }
        return result;
    }

    /** DescribeConfigs of this broker (resource name = its id): every broker key, sorted by name. */
    public static List<DescribedConfig> describeBroker(BrokerConfig broker) {
        List<DescribedConfig> result = new ArrayList<>();
        for (ConfigKey key : sorted(BrokerConfigDefs.DEF)) {
            if (key.internal()) {
                continue;
            }
            boolean sensitive = key.type() == ConfigType.PASSWORD;
            String value = sensitive ? null : ConfigType.format(broker.values().get(key.name()));
            List<ConfigSynonym> synonyms = brokerSynonyms(key.name(), broker, sensitive);
            result.add(new DescribedConfig(key.name(), value, sourceOf(synonyms), sensitive,
                    !key.dynamicMode().isDynamic(), key.type(), key.documentation(), synonyms));
        }
        return result;
    }

    /** DescribeConfigs of the cluster default (empty resource name): the keys set there, sorted by name. */
    public static List<DescribedConfig> describeClusterDefault(BrokerConfig broker) {
        List<DescribedConfig> result = new ArrayList<>();
        broker.dynamicDefaultConfigs().forEach((name, raw) -> {
            ConfigKey key = BrokerConfigDefs.DEF.key(name);
            boolean sensitive = key.type() == ConfigType.PASSWORD;
            List<ConfigSynonym> synonyms = brokerSynonyms(name, broker, sensitive).stream()
                    .filter(s -> s.source() == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG).toList();
            result.add(new DescribedConfig(name, sensitive ? null : raw, sourceOf(synonyms), sensitive,
                    !key.dynamicMode().isDynamic(), key.type(), key.documentation(), synonyms));
        });
        return result;
    }

    /**
     * DescribeConfigs of a group (ConfigResource GROUP): every non-internal group key, sorted by name, with the
     * group's own value (source GROUP_CONFIG) else its broker default. Synonyms as Kafka lists them: the group
     * setting, then the levels of the broker key it defaults to, or that key's (or, without one, the group key's)
     * default. Never read-only.
     *
     * @param overrides the group's configs as stored (valid when they were set)
     */
    public static List<DescribedConfig> describeGroup(Map<String, String> overrides, BrokerConfig broker) {
        List<DescribedConfig> result = new ArrayList<>();
        for (ConfigKey key : sorted(GroupConfigKeys.DEF)) {
            String name = key.name();
            if (GroupConfigKeys.internal(name)) {
                continue;
            }
            String raw = overrides.get(name);
            String value = raw != null ? ConfigType.format(key.parse(raw))
                    : ConfigType.format(GroupConfigKeys.brokerDefault(name, broker));
            List<ConfigSynonym> synonyms = new ArrayList<>();
            if (raw != null) {
                synonyms.add(new ConfigSynonym(name, value, ConfigSource.GROUP_CONFIG));
            }
            String brokerKey = GroupConfigKeys.brokerSynonym(name).orElse(name);
            if (BrokerConfigDefs.DEF.contains(brokerKey)) {
                synonyms.addAll(brokerSynonyms(brokerKey, broker, false));
            } else {
                synonyms.add(new ConfigSynonym(brokerKey,
                        ConfigType.format(GroupConfigKeys.brokerDefault(name, broker)), ConfigSource.DEFAULT_CONFIG));
            }
            result.add(new DescribedConfig(name, value, sourceOf(synonyms), false, false, key.type(),
                    key.documentation(), synonyms));
        }
        return result;
    }

    /** The broker-level synonyms of {@code brokerKey}, from its first entry for {@code brokerKey} itself. */
    private static List<ConfigSynonym> brokerSynonyms(String brokerKey, BrokerConfig broker, boolean sensitive) {
        List<String> group = TopicConfigSynonyms.brokerSynonymGroup(brokerKey);
        List<ConfigSynonym> all = new ArrayList<>();
        addLevel(all, group, broker.dynamicBrokerConfigs(), ConfigSource.DYNAMIC_BROKER_CONFIG, sensitive);
        addLevel(all, group, broker.dynamicDefaultConfigs(), ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, sensitive);
        addLevel(all, group, broker.staticConfigs(), ConfigSource.STATIC_BROKER_CONFIG, sensitive);
        for (String name : group) {
            ConfigKey key = BrokerConfigDefs.DEF.key(name);
            if (key.hasDefaultValue()) {
                all.add(new ConfigSynonym(name, sensitive ? null : key.defaultAsString(), ConfigSource.DEFAULT_CONFIG));
            }
        }
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).name().equals(brokerKey)) {
                return all.subList(i, all.size());
            }
        }
        return List.of();
    }

    private static void addLevel(List<ConfigSynonym> out, List<String> names, Map<String, String> level,
                                 ConfigSource source, boolean sensitive) {
        for (String name : names) {
            String value = level.get(name);
            if (value != null) {
                out.add(new ConfigSynonym(name, sensitive ? null : value, source));
            }
        }
    }

    private static ConfigSource sourceOf(List<ConfigSynonym> synonyms) {
        return synonyms.isEmpty() ? ConfigSource.DEFAULT_CONFIG : synonyms.get(0).source();
    }

    private static List<ConfigKey> sorted(ConfigDef def) {
        return def.keys().stream().sorted(Comparator.comparing(ConfigKey::name)).toList();
    }
}
