package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Helix's transitions of this broker's replicas: a promotion to LEADER takes the leadership in the
 * partition's record ({@link LeaderElection#promote}); every transition is remembered for diagnostics.
 *
 * <p>Thread-safe: Helix calls in on its own threads; the only state, the replicas' Helix states, is a
 * concurrent map owned here.
 */
final class ReplicaRolesHandler implements ReplicaRoles {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRolesHandler.class);

    private final StoreContext context;
    private final int nodeId;
    private final Map<String, String> helixStates = new ConcurrentHashMap<>();

    ReplicaRolesHandler(StoreContext context) {
        this.context = context;
        this.nodeId = context.nodeId();
    }

    @Override
    public void becomeLeader(String topic, int partition) {
        TopicImage image = context.image().topic(topic);
        boolean unclean = image != null && context.uncleanElection(image);
        PartitionState taken = context.records().update(topic, partition,
                s -> LeaderElection.promote(s, nodeId, unclean));
        if (taken == null) {
            // Nothing written: either the record already names this broker (it led from creation,
            // or an operator election or a reassignment made it leader) or it may not lead (not in the ISR, or the topic is gone).
            LOG.info("broker {} told to lead {}-{}: {}", nodeId, topic, partition,
                    alreadyLeads(topic, partition) ? "leads already" : "may not (not in the ISR, or the topic is gone)");
            return;
        }
        LOG.info("broker {} leads {}-{} at epoch {} (ISR {})", nodeId, topic, partition, taken.leaderEpoch(),
                taken.isr());
        try {
            MetadataWatcher.await(context.watcher().refreshPartition(topic, partition),
                    context.config().operationTimeoutMs());
        } catch (ZkUnavailableException slow) {
            // The record names this broker now: failing the transition would leave Helix's replica in ERROR
            // (no way out but a new session) while ZooKeeper says it leads. The image follows the record
            // when the refresh, or the watch, gets through.
            LOG.warn("broker {} leads {}-{} at epoch {}; its image does not show it yet: {}", nodeId, topic,
                    partition, taken.leaderEpoch(), slow.getMessage());
        }
    }

    /** For the log line only: the image may trail the record, so this never waits. */
    private boolean alreadyLeads(String topic, int partition) {
        TopicImage t = context.image().topic(topic);
        PartitionState state = t == null ? null : t.partition(partition);
        return state != null && state.leader() == nodeId;
    }

    @Override
    public void transitioned(String topic, int partition, String from, String to) {
        LOG.debug("broker {}: {}-{} {} -> {}", nodeId, topic, partition, from, to);
        if (LeaderFollowerModel.DROPPED.equals(to)) {
            helixStates.remove(topic + "-" + partition);
        } else {
            helixStates.put(topic + "-" + partition, to);
        }
    }

    /** The Helix state of a replica on this broker (for diagnostics and tests), or null. */
    String helixState(String topic, int partition) {
        return helixStates.get(topic + "-" + partition);
    }
}
