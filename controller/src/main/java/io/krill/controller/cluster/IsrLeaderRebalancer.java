package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.helix.HelixException;
import org.apache.helix.HelixManager;
import org.apache.helix.controller.dataproviders.ResourceControllerDataProvider;
import org.apache.helix.controller.rebalancer.Rebalancer;
import org.apache.helix.controller.rebalancer.internal.MappingCalculator;
import org.apache.helix.controller.stages.CurrentStateOutput;
import org.apache.helix.model.IdealState;
import org.apache.helix.model.Partition;
import org.apache.helix.model.Resource;
import org.apache.helix.model.ResourceAssignment;

/**
 * Helix's USER_DEFINED rebalancer for topics: per partition, {@link LeaderElection#chooseLeader} over
 * the partition-state record and Helix's live, enabled instances picks the LEADER; every other live
 * replica is a FOLLOWER. Helix's built-in modes cannot do this: SEMI_AUTO may promote any replica in
 * the preference list, ISR or not; CUSTOMIZED never picks a replacement by itself. A replica that is
 * no longer in the record (a reassignment removed it) is left out of the mapping, and Helix's message
 * phase takes every replica it finds outside the mapping to DROPPED (through OFFLINE).
 *
 * <p>The records come from the controller's own metadata image, which may trail ZooKeeper by a few
 * milliseconds. That costs at most a wasted transition, never safety: the promoted replica re-reads
 * its record and takes leadership only from the ISR, and every change of a record reaches the image,
 * which makes the store schedule another pipeline run. When a leader is gone and nobody may replace
 * it, the rebalancer asks the store to write NO_LEADER.
 *
 * <p>Helix creates an instance per pipeline run and resource, on its pipeline thread; not shared.
 * {@link MappingCalculator} is internal to Helix: this is why the Helix version is pinned and this
 * class covered by the multi-broker test.
 */
public final class IsrLeaderRebalancer implements Rebalancer<ResourceControllerDataProvider>,
        MappingCalculator<ResourceControllerDataProvider> {
    private HelixManager manager;
    private ElectionInputs inputs;

    public IsrLeaderRebalancer() {
    }

    @Override
    public void init(HelixManager helixManager) {
        this.manager = helixManager;
        this.inputs = ElectionRegistry.lookup(helixManager);
    }

    @Override
    public IdealState computeNewIdealState(String resourceName, IdealState currentIdealState,
                                           CurrentStateOutput currentStateOutput,
                                           ResourceControllerDataProvider clusterData) {
        return currentIdealState;
    }

    @Override
    public ResourceAssignment computeBestPossiblePartitionState(ResourceControllerDataProvider cache,
                                                                IdealState idealState, Resource resource,
                                                                CurrentStateOutput currentStateOutput) {
        if (inputs == null) {
            throw new HelixException("no Krill metadata store registered for controller "
                    + (manager == null ? null : manager.getInstanceName()));
        }
        String topicName = resource.getResourceName();
        Set<Integer> live = new HashSet<>();
        for (String instance : cache.getEnabledLiveInstances()) {
            int nodeId = ZkPaths.nodeId(instance);
            if (nodeId >= 0) {
                live.add(nodeId);
            }
        }
        Set<Integer> liveView = Set.copyOf(live);
        TopicImage topic = inputs.topic(topicName);
        boolean unclean = topic != null && inputs.uncleanElection(topic);
        ResourceAssignment assignment = new ResourceAssignment(topicName);
        for (Partition partition : resource.getPartitions()) {
            int index = ZkPaths.partitionIndex(topicName, partition.getPartitionName());
            PartitionState state = topic == null ? null : topic.partition(index);
            List<Integer> replicas;
            int leader;
            if (state == null) {
                // Not in this controller's image yet: bring the replicas up as followers; the image
                // catching up schedules the next run, which elects.
                replicas = replicasOf(idealState.getPreferenceList(partition.getPartitionName()));
                leader = PartitionState.NO_LEADER;
            } else {
                replicas = state.replicas();
                leader = LeaderElection.chooseLeader(state, liveView::contains, unclean);
                if (leader == PartitionState.NO_LEADER && state.leader() != PartitionState.NO_LEADER) {
                    inputs.declareLeaderless(topicName, index, liveView);
                }
            }
            Map<String, String> states = new HashMap<>();
            for (int replica : replicas) {
                if (liveView.contains(replica)) {
                    states.put(ZkPaths.instanceName(replica),
                            replica == leader ? LeaderFollowerModel.LEADER : LeaderFollowerModel.FOLLOWER);
                }
            }
            assignment.addReplicaMap(partition, states);
        }
        return assignment;
    }

    private static List<Integer> replicasOf(List<String> preferenceList) {
        List<Integer> replicas = new ArrayList<>();
        if (preferenceList != null) {
            for (String instance : preferenceList) {
                int nodeId = ZkPaths.nodeId(instance);
                if (nodeId >= 0) {
                    replicas.add(nodeId);
                }
            }
        }
        return replicas;
    }
}
