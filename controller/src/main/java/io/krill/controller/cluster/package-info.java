/**
 * The cluster {@link io.krill.controller.metadata.MetadataStore}: metadata in ZooKeeper, partition
 * leadership chosen by Apache Helix with Krill's ISR-only rule (docs/coordination.md).
 *
 * <p>A broker uses {@link io.krill.controller.cluster.ZooKeeperMetadataStore} (configured by
 * {@link io.krill.controller.cluster.ZooKeeperStoreConfig}) and, for a single machine or tests,
 * {@link io.krill.controller.cluster.EmbeddedZooKeeper}. The rest is internal: the election rule
 * ({@link io.krill.controller.cluster.LeaderElection}), replica placement, ZooKeeper records, the
 * watcher that keeps the image current, Helix's rebalancer and state model, and the fence.
 */
package io.krill.controller.cluster;
