package io.krill.controller.cluster;

import java.util.Objects;

/**
 * How a broker joins a cluster coordinated in ZooKeeper. Immutable.
 *
 * @param zkConnect              {@code host:port[,host:port...][/chroot]}; the chroot is created if missing
 * @param clusterName            the Helix cluster, a node under the chroot ({@code /<clusterName>})
 * @param nodeId                 this broker's {@code node.id}
 * @param clusterId              the Kafka cluster id to create the cluster with, or null for a random one;
 *                               when the cluster exists, it must match (null matches anything)
 * @param sessionTimeoutMs       ZooKeeper session timeout: how long a broker may be silent before its
 *                               leaderships move (the embedded server allows 400 ms to 60 s)
 * @param operationTimeoutMs     how long a metadata change waits for an unreachable ZooKeeper before it
 *                               fails with REQUEST_TIMED_OUT
 * @param uncleanLeaderElection  the broker default of {@code unclean.leader.election.enable}, for topics
 *                               that do not override it
 * @param defaultPartitions      {@code num.partitions}, for a NewTopic with -1 partitions
 * @param defaultReplicationFactor {@code default.replication.factor}, for a NewTopic with replication factor -1
 * @param autoLeaderRebalance    {@code auto.leader.rebalance.enable}: the active controller moves leadership
 *                               back to preferred replicas when a broker's imbalance is too high
 * @param leaderImbalanceCheckIntervalMs {@code leader.imbalance.check.interval.seconds}, in milliseconds
 * @param leaderImbalancePerBrokerPercentage {@code leader.imbalance.per.broker.percentage}: the share of a
 *                               broker's preferred partitions that others may lead before it acts
 * @param crashProbeListener     the listener whose endpoint the active controller keeps a connection to on
 *                               every broker, to count a broker that refuses connections as dead before its
 *                               session expires ({@link CrashProbe}); null: sessions alone decide
 * @param minInsyncReplicas      the broker default of {@code min.insync.replicas}, for topics that do not
 *                               override it when no cluster-wide dynamic default is set (eligible leader
 *                               replicas follow it)
 */
public record ZooKeeperStoreConfig(String zkConnect, String clusterName, int nodeId, String clusterId,
                                   int sessionTimeoutMs, long operationTimeoutMs, boolean uncleanLeaderElection,
                                   int defaultPartitions, int defaultReplicationFactor, boolean autoLeaderRebalance,
                                   long leaderImbalanceCheckIntervalMs, int leaderImbalancePerBrokerPercentage,
                                   String crashProbeListener, int minInsyncReplicas) {
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 6_000;
    public static final long DEFAULT_OPERATION_TIMEOUT_MS = 15_000;
    /** Kafka's defaults: enabled, every 300 s, above 10 %. */
    public static final long DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS = 300_000;
    public static final int DEFAULT_LEADER_IMBALANCE_PER_BROKER_PERCENTAGE = 10;

    public ZooKeeperStoreConfig {
        Objects.requireNonNull(zkConnect, "zkConnect");
        Objects.requireNonNull(clusterName, "clusterName");
        if (clusterName.isEmpty() || clusterName.contains("/")) {
            throw new IllegalArgumentException("bad cluster name '" + clusterName + "'");
        }
        if (nodeId < 0) {
            throw new IllegalArgumentException("node id must not be negative: " + nodeId);
        }
        if (sessionTimeoutMs <= 0 || operationTimeoutMs <= 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (leaderImbalanceCheckIntervalMs <= 0) {
            throw new IllegalArgumentException("leader.imbalance.check.interval must be positive: "
                    + leaderImbalanceCheckIntervalMs + " ms");
        }
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + minInsyncReplicas);
        }
        if (leaderImbalancePerBrokerPercentage < 0 || leaderImbalancePerBrokerPercentage > 100) {
            throw new IllegalArgumentException("leader.imbalance.per.broker.percentage must be within 0..100: "
                    + leaderImbalancePerBrokerPercentage);
        }
    }

    /**
     * Defaults: 6 s sessions, 15 s operation timeout, clean elections only, 1 partition, 1 replica,
     * automatic preferred-leader rebalancing as Kafka's (every 300 s, above 10 %).
     */
    public static ZooKeeperStoreConfig of(String zkConnect, String clusterName, int nodeId) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, null, DEFAULT_SESSION_TIMEOUT_MS,
                DEFAULT_OPERATION_TIMEOUT_MS, false, 1, 1, true, DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS,
                DEFAULT_LEADER_IMBALANCE_PER_BROKER_PERCENTAGE, null, 1);
    }

    public ZooKeeperStoreConfig withClusterId(String id) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, id, sessionTimeoutMs, operationTimeoutMs,
                uncleanLeaderElection, defaultPartitions, defaultReplicationFactor, autoLeaderRebalance,
                leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage, crashProbeListener, minInsyncReplicas);
    }

    public ZooKeeperStoreConfig withSessionTimeoutMs(int timeoutMs) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, timeoutMs, operationTimeoutMs,
                uncleanLeaderElection, defaultPartitions, defaultReplicationFactor, autoLeaderRebalance,
                leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage, crashProbeListener, minInsyncReplicas);
    }

    public ZooKeeperStoreConfig withOperationTimeoutMs(long timeoutMs) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, sessionTimeoutMs, timeoutMs,
                uncleanLeaderElection, defaultPartitions, defaultReplicationFactor, autoLeaderRebalance,
                leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage, crashProbeListener, minInsyncReplicas);
    }

    public ZooKeeperStoreConfig withUncleanLeaderElection(boolean enabled) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, sessionTimeoutMs, operationTimeoutMs,
                enabled, defaultPartitions, defaultReplicationFactor, autoLeaderRebalance, leaderImbalanceCheckIntervalMs,
                leaderImbalancePerBrokerPercentage, crashProbeListener, minInsyncReplicas);
    }

    public ZooKeeperStoreConfig withTopicDefaults(int partitions, int replicationFactor) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, sessionTimeoutMs, operationTimeoutMs,
                uncleanLeaderElection, partitions, replicationFactor, autoLeaderRebalance, leaderImbalanceCheckIntervalMs,
                leaderImbalancePerBrokerPercentage, crashProbeListener, minInsyncReplicas);
    }

    /**
     * {@code auto.leader.rebalance.enable}, {@code leader.imbalance.check.interval.seconds} (here in
     * milliseconds) and {@code leader.imbalance.per.broker.percentage}.
     */
    public ZooKeeperStoreConfig withAutoLeaderRebalance(boolean enabled, long checkIntervalMs, int imbalancePercentage) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, sessionTimeoutMs, operationTimeoutMs,
                uncleanLeaderElection, defaultPartitions, defaultReplicationFactor, enabled, checkIntervalMs,
                imbalancePercentage, crashProbeListener, minInsyncReplicas);
    }

    /**
     * Crash detection on {@code listenerName} (the inter-broker listener), or off with null: see
     * {@link CrashProbe}.
     */
    public ZooKeeperStoreConfig withCrashProbe(String listenerName) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, sessionTimeoutMs, operationTimeoutMs,
                uncleanLeaderElection, defaultPartitions, defaultReplicationFactor, autoLeaderRebalance,
                leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage, listenerName, minInsyncReplicas);
    }

    /** The broker default of {@code min.insync.replicas} (Kafka's default: 1). */
    public ZooKeeperStoreConfig withMinInsyncReplicas(int minIsr) {
        return new ZooKeeperStoreConfig(zkConnect, clusterName, nodeId, clusterId, sessionTimeoutMs, operationTimeoutMs,
                uncleanLeaderElection, defaultPartitions, defaultReplicationFactor, autoLeaderRebalance,
                leaderImbalanceCheckIntervalMs, leaderImbalancePerBrokerPercentage, crashProbeListener, minIsr);
    }
}
