package io.krill.controller.cluster;

import org.apache.helix.HelixDefinedState;
import org.apache.helix.model.StateModelDefinition;

/**
 * Krill's Helix state model for a partition replica: OFFLINE -> FOLLOWER -> LEADER, at most one
 * LEADER per partition (Helix demotes the old before it promotes the new), every other live replica
 * a FOLLOWER. Which replica leads is decided by {@link IsrLeaderRebalancer}; the LEADER transition
 * then takes leadership in the partition-state record. Stateless.
 */
final class LeaderFollowerModel {
    static final String NAME = "KrillLeaderFollower";
    static final String LEADER = "LEADER";
    static final String FOLLOWER = "FOLLOWER";
    static final String OFFLINE = "OFFLINE";
    static final String DROPPED = "DROPPED";

    private LeaderFollowerModel() {
    }

    static StateModelDefinition definition() {
        StateModelDefinition.Builder builder = new StateModelDefinition.Builder(NAME);
        builder.initialState(OFFLINE);
        builder.addState(LEADER, 0);
        builder.addState(FOLLOWER, 1);
        builder.addState(OFFLINE, 2);
        for (HelixDefinedState state : HelixDefinedState.values()) {
            builder.addState(state.name());
        }
        builder.addTransition(LEADER, FOLLOWER, 0);
        builder.addTransition(FOLLOWER, LEADER, 1);
        builder.addTransition(OFFLINE, FOLLOWER, 2);
        builder.addTransition(FOLLOWER, OFFLINE, 3);
        builder.addTransition(OFFLINE, DROPPED);
        builder.upperBound(LEADER, 1);
        builder.dynamicUpperBound(FOLLOWER, StateModelDefinition.STATE_REPLICA_COUNT_ALL_REPLICAS);
        return builder.build();
    }
}
