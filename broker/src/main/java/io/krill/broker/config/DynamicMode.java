package io.krill.broker.config;

/**
 * Whether and how a broker key can be changed at runtime with AlterConfigs, using Kafka's three modes
 * (the "Dynamic Update Mode" column of Kafka's broker config documentation).
 */
public enum DynamicMode {
    /** Only in server.properties; a restart is needed to change it. */
    READ_ONLY("read-only"),
    /** Can be changed for one broker (resource name = broker id), not as a cluster-wide default. */
    PER_BROKER("per-broker"),
    /** Can be changed for one broker or as the cluster-wide default (empty resource name). */
    CLUSTER_WIDE("cluster-wide");

    private final String label;

    DynamicMode(String label) {
        this.label = label;
    }

    /** Kafka's documentation label: read-only, per-broker or cluster-wide. */
    public String label() {
        return label;
    }

    public boolean isDynamic() {
        return this != READ_ONLY;
    }
}
