package io.krill.controller.cluster;

/**
 * What a participant does when Helix moves one of its replicas: the store implements it. Called on
 * Helix's state-transition threads; must stay short (a few ZooKeeper round trips at most).
 */
interface ReplicaRoles {
    /** Helix made this broker the leader of the partition: take leadership in its record. */
    void becomeLeader(String topic, int partition);

    /** Any other transition: nothing to write, the record stays the truth; noted for diagnostics. */
    void transitioned(String topic, int partition, String from, String to);
}
