package io.krill.broker.config;

/** Where a config value comes from, with the source ids of Kafka's DescribeConfigs response. */
public enum ConfigSource {
    UNKNOWN(0),
    /** Set on the topic (CreateTopics, AlterConfigs on a TOPIC resource). */
    DYNAMIC_TOPIC_CONFIG(1),
    /** Set dynamically for this broker. */
    DYNAMIC_BROKER_CONFIG(2),
    /** Set dynamically as the cluster-wide default. */
    DYNAMIC_DEFAULT_BROKER_CONFIG(3),
    /** Set in server.properties or by a command-line override. */
    STATIC_BROKER_CONFIG(4),
    /** Not set anywhere: the built-in default. */
    DEFAULT_CONFIG(5),
    DYNAMIC_BROKER_LOGGER_CONFIG(6),
    CLIENT_METRICS_CONFIG(7),
    GROUP_CONFIG(8);

    private final int id;

    ConfigSource(int id) {
        this.id = id;
    }

    /** The id sent in DescribeConfigs responses (v1+). */
    public int id() {
        return id;
    }
}
