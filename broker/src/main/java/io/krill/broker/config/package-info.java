/**
 * The broker's typed configuration: Kafka's property names, types, defaults and validation rules.
 *
 * <p>{@link io.krill.broker.config.ConfigDef} is a small definition framework (keys, types, validators,
 * dynamic-update mode); {@link io.krill.broker.config.BrokerConfig} is the immutable view of a broker's
 * {@code server.properties}; {@link io.krill.broker.config.TopicConfig} is a topic's effective config (topic
 * overrides over broker defaults); {@link io.krill.broker.config.ConfigDescriber} and
 * {@link io.krill.broker.config.TopicConfigValidator} answer DescribeConfigs and validate
 * CreateTopics/AlterConfigs/IncrementalAlterConfigs exactly as Kafka reports them.
 */
package io.krill.broker.config;
