package io.krill.controller.cluster;

import org.apache.helix.PropertyPathBuilder;

/**
 * Where things live in ZooKeeper, relative to the connect string's chroot. Helix's own nodes come
 * from Helix's {@link PropertyPathBuilder}; Krill's records live in the cluster's property store:
 *
 * <pre>
 * /&lt;cluster&gt;/PROPERTYSTORE/krill/cluster-id             {clusterId}
 * /&lt;cluster&gt;/PROPERTYSTORE/krill/producer-ids           {nextProducerId}        version-checked counter
 * /&lt;cluster&gt;/PROPERTYSTORE/krill/topics/&lt;topic&gt;         {topicId, partitions, internal, configs}
 * /&lt;cluster&gt;/PROPERTYSTORE/krill/topics/&lt;topic&gt;/&lt;p&gt;     {leader, leaderEpoch, partitionEpoch, replicas, isr}
 * /&lt;cluster&gt;/PROPERTYSTORE/krill/broker-configs/&lt;id|default&gt; map configs: dynamic broker configs
 * </pre>
 *
 * Immutable.
 */
final class ZkPaths {
    static final String INSTANCE_PREFIX = "broker_";
    static final String DEFAULT_BROKER_ENTITY = "default";

    private final String cluster;
    private final String root;

    ZkPaths(String cluster) {
        this.cluster = cluster;
        this.root = PropertyPathBuilder.propertyStore(cluster) + "/krill";
    }

    String cluster() {
        return cluster;
    }

    /** The cluster's root node, {@code /<cluster>}. */
    String clusterRoot() {
        return "/" + cluster;
    }

    /** An ephemeral node that serialises the set-up of a new cluster; beside the cluster, not in it. */
    String setupLock() {
        return "/" + cluster + ".setup-lock";
    }

    String krillRoot() {
        return root;
    }

    String clusterId() {
        return root + "/cluster-id";
    }

    String producerIds() {
        return root + "/producer-ids";
    }

    String topics() {
        return root + "/topics";
    }

    String topic(String name) {
        return topics() + "/" + name;
    }

    String partition(String topic, int partition) {
        return topic(topic) + "/" + partition;
    }

    /**
     * Digest nodes ({@link PartitionDigest}): {@code <nodeId>-<slot>}, each rewritten in the multi-ops
     * that change partition records, so that readers read one node per multi rather than one per record.
     */
    String partitionDigests() {
        return root + "/partition-digests";
    }

    String partitionDigest(int nodeId, int slot) {
        return partitionDigests() + "/" + nodeId + "-" + slot;
    }

    /**
     * Entity configs (dynamic broker configs, users, clients, security data), one node per entity: the
     * entity name URL-encoded, {@code default} for the cluster-wide broker defaults.
     */
    String entityConfigs() {
        return krillRoot() + "/entity-configs";
    }

    String entityConfig(String entity) {
        return entityConfigs() + "/" + (entity.isEmpty() ? DEFAULT_BROKER_ENTITY
                : java.net.URLEncoder.encode(entity, java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The entity of an entity-config node name: "" for the cluster-wide broker defaults. */
    static String entityOfNode(String nodeName) {
        return DEFAULT_BROKER_ENTITY.equals(nodeName) ? ""
                : java.net.URLDecoder.decode(nodeName, java.nio.charset.StandardCharsets.UTF_8);
    }

    String liveInstances() {
        return PropertyPathBuilder.liveInstance(cluster);
    }

    String instanceConfigs() {
        return PropertyPathBuilder.instanceConfig(cluster);
    }

    String instanceConfig(String instance) {
        return PropertyPathBuilder.instanceConfig(cluster, instance);
    }

    String controllerLeader() {
        return PropertyPathBuilder.controllerLeader(cluster);
    }

    /** Where Helix keeps its resources; Krill made one per topic before 0.2 and removes any it finds. */
    String idealStates() {
        return PropertyPathBuilder.idealState(cluster);
    }

    String idealState(String topic) {
        return PropertyPathBuilder.idealState(cluster, topic);
    }

    /** The Helix instance name of broker {@code nodeId}. */
    static String instanceName(int nodeId) {
        return INSTANCE_PREFIX + nodeId;
    }

    /** The node id in a Helix instance name, or -1 when the instance is not a Krill broker. */
    static int nodeId(String instanceName) {
        if (instanceName == null || !instanceName.startsWith(INSTANCE_PREFIX)) {
            return -1;
        }
        try {
            return Integer.parseInt(instanceName.substring(INSTANCE_PREFIX.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

}
