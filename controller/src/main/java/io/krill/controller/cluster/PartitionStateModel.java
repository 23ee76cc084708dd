package io.krill.controller.cluster;

import org.apache.helix.NotificationContext;
import org.apache.helix.model.Message;
import org.apache.helix.participant.statemachine.StateModel;
import org.apache.helix.participant.statemachine.StateModelInfo;
import org.apache.helix.participant.statemachine.Transition;

/**
 * One replica of one partition on this broker, as Helix drives it. Only FOLLOWER -> LEADER writes:
 * it takes leadership in the partition-state record (compare-and-set, ISR members only). Demotions
 * write nothing: a demoted replica either never took leadership, or a successor's promotion (or the
 * controller) replaces it in the record. Public because Helix finds transitions by reflection.
 *
 * <p>Thread-safety: Helix runs one transition at a time per partition.
 */
@StateModelInfo(initialState = LeaderFollowerModel.OFFLINE,
        states = {LeaderFollowerModel.LEADER, LeaderFollowerModel.FOLLOWER, LeaderFollowerModel.OFFLINE})
public final class PartitionStateModel extends StateModel {
    private final String topic;
    private final int partition;
    private final ReplicaRoles roles;

    PartitionStateModel(String topic, int partition, ReplicaRoles roles) {
        this.topic = topic;
        this.partition = partition;
        this.roles = roles;
    }

    @Transition(from = LeaderFollowerModel.OFFLINE, to = LeaderFollowerModel.FOLLOWER)
    public void onBecomeFollowerFromOffline(Message message, NotificationContext context) {
        roles.transitioned(topic, partition, LeaderFollowerModel.OFFLINE, LeaderFollowerModel.FOLLOWER);
    }

    @Transition(from = LeaderFollowerModel.FOLLOWER, to = LeaderFollowerModel.LEADER)
    public void onBecomeLeaderFromFollower(Message message, NotificationContext context) {
        roles.becomeLeader(topic, partition);
        roles.transitioned(topic, partition, LeaderFollowerModel.FOLLOWER, LeaderFollowerModel.LEADER);
    }

    @Transition(from = LeaderFollowerModel.LEADER, to = LeaderFollowerModel.FOLLOWER)
    public void onBecomeFollowerFromLeader(Message message, NotificationContext context) {
        roles.transitioned(topic, partition, LeaderFollowerModel.LEADER, LeaderFollowerModel.FOLLOWER);
    }

    @Transition(from = LeaderFollowerModel.FOLLOWER, to = LeaderFollowerModel.OFFLINE)
    public void onBecomeOfflineFromFollower(Message message, NotificationContext context) {
        roles.transitioned(topic, partition, LeaderFollowerModel.FOLLOWER, LeaderFollowerModel.OFFLINE);
    }

    @Transition(from = LeaderFollowerModel.OFFLINE, to = LeaderFollowerModel.DROPPED)
    public void onBecomeDroppedFromOffline(Message message, NotificationContext context) {
        roles.transitioned(topic, partition, LeaderFollowerModel.OFFLINE, LeaderFollowerModel.DROPPED);
    }

    @Override
    public void reset() {
        // A new Helix session: every replica starts again from OFFLINE (the participant resigned its
        // old roles in the record before going live).
        roles.transitioned(topic, partition, getCurrentState(), LeaderFollowerModel.OFFLINE);
    }
}
