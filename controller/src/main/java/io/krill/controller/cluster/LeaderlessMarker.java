package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this broker's Helix controller, when it is the active one, reads and asks for: the image's
 * topics, the unclean-election setting, and marking partitions leaderless in their records (on the
 * controller thread, retried every second while ZooKeeper does not answer).
 *
 * <p>Thread-safe: the rebalancer calls in on Helix's threads; the set of partitions with a pending
 * write is a concurrent set owned here, and the writes run on the controller thread.
 */
final class LeaderlessMarker implements ElectionInputs {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderlessMarker.class);

    private final StoreContext context;
    private final Executor controllerWork;
    private final Set<String> pendingLeaderless = ConcurrentHashMap.newKeySet();

    LeaderlessMarker(StoreContext context, Executor controllerWork) {
        this.context = context;
        this.controllerWork = controllerWork;
    }

    @Override
    public TopicImage topic(String name) {
        return context.image().topic(name);
    }

    @Override
    public boolean uncleanElection(TopicImage topic) {
        return context.uncleanElection(topic);
    }

    @Override
    public void declareLeaderless(String topic, int partition, Set<Integer> live) {
        String key = topic + "-" + partition;
        if (context.isClosed() || !pendingLeaderless.add(key)) {
            return;
        }
        controllerWork.execute(() -> writeLeaderless(topic, partition, live, key));
    }

    private void writeLeaderless(String topic, int partition, Set<Integer> live, String key) {
        boolean retry = false;
        try {
            PartitionState written = context.records().update(topic, partition, s -> {
                TopicImage image = context.image().topic(topic);
                PartitionState next = LeaderElection.next(s, live::contains,
                        image != null && context.uncleanElection(image));
                return next.leader() == PartitionState.NO_LEADER ? next : null;
            });
            if (written != null) {
                LOG.info("{}-{} has no eligible leader: leader epoch {}, ISR {}", topic, partition,
                        written.leaderEpoch(), written.isr());
            }
        } catch (ZkUnavailableException e) {
            // The partition must not keep naming a dead leader: try again once ZooKeeper answers.
            retry = !context.isClosed();
            LOG.warn("cannot mark {}-{} leaderless yet: {}", topic, partition, e.toString());
        } finally {
            if (retry) {
                CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS, controllerWork)
                        .execute(() -> writeLeaderless(topic, partition, live, key));
            } else {
                pendingLeaderless.remove(key);
            }
        }
    }
}
