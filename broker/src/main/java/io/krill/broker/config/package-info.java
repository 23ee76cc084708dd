/**
 * The broker's typed configuration: Kafka's property names, types, defaults and validation rules.
 *
 * <p>{@link io.krill.broker.config.ConfigDef} is a small definition framework (keys, types, validators,
 * dynamic-update mode); {@link io.krill.broker.config.BrokerConfig} is the immutable view of a broker's
 * {@code server.properties}; {@link io.krill.broker.config.TopicConfig} is a topic's effective config (topic
 * overrides over broker defaults); {@link io.krill.broker.config.ConfigDescriber} and
 * {@link io.krill.broker.config.TopicConfigValidator} answer DescribeConfigs and validate
 * CreateTopics/AlterConfigs/IncrementalAlterConfigs exactly as Kafka reports them.
 *
 * <p>Group configs (ConfigResource GROUP: {@code share.auto.offset.reset}, {@code consumer.session.timeout.ms},
 * ...) are {@link io.krill.broker.config.GroupConfigKeys}, checked against the broker's {@code group.share.*} and
 * {@code group.consumer.*} bounds by {@link io.krill.broker.config.GroupConfigValidator}, stored per group as the
 * metadata store entity {@code groups/<groupId>} and read, over the broker defaults, through
 * {@link io.krill.broker.config.GroupConfigLookup}.
 */
package io.krill.broker.config;
