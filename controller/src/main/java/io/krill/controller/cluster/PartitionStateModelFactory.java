package io.krill.controller.cluster;

import org.apache.helix.participant.statemachine.StateModelFactory;

/** Creates the {@link PartitionStateModel} of each replica Helix assigns to this broker. Thread-safe. */
final class PartitionStateModelFactory extends StateModelFactory<PartitionStateModel> {
    private final ReplicaRoles roles;

    PartitionStateModelFactory(ReplicaRoles roles) {
        this.roles = roles;
    }

    @Override
    public PartitionStateModel createNewStateModel(String resourceName, String partitionName) {
        return new PartitionStateModel(resourceName, ZkPaths.partitionIndex(resourceName, partitionName), roles);
    }
}
