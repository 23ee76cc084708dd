/**
 * The runtime the broker's coordinators share (the group coordinator in {@code io.krill.broker.group}, the
 * transaction coordinator in {@code io.krill.broker.txn}, the share coordinator in
 * {@code io.krill.broker.share.state}): a coordinator
 * keeps its state as records of the partitions of an internal topic it leads ({@link
 * io.krill.broker.coordinator.CoordinatorLog}, over this broker's partitions in {@link
 * io.krill.broker.coordinator.PartitionCoordinatorLog}), rebuilt by replaying them when it comes to lead one,
 * and runs its deadlines and loads on one thread ({@link io.krill.broker.coordinator.CoordinatorTimer});
 * {@link io.krill.broker.coordinator.LedPartitions} says which partitions it leads in a metadata image.
 */
package io.krill.broker.coordinator;
