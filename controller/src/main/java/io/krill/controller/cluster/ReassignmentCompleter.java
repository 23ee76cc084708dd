package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller's half of a reassignment: it watches the image for partitions whose whole
 * target has joined the ISR (their leader grows the ISR as the new replicas catch up) and completes
 * them ({@link ReassignmentRules#complete}, a compare-and-set together with the Helix preference list).
 * A broker that starts acting as controller looks at every partition, so a reassignment whose
 * controller died still completes; after that, only at the topics that changed. Completions that
 * cannot reach ZooKeeper are tried again a second later.
 *
 * <p>Thread-safety: {@link #onChange} runs on the metadata notification thread, completions on the
 * controller thread; the set of pending partitions is concurrent.
 */
final class ReassignmentCompleter {
    private static final Logger LOG = LoggerFactory.getLogger(ReassignmentCompleter.class);
    private static final long RETRY_DELAY_MS = 1_000;

    private final int nodeId;
    private final Executor controllerWork;
    private final BooleanSupplier active;
    private final Consumer<TopicPartitionKey> complete;
    private final Set<TopicPartitionKey> pending = ConcurrentHashMap.newKeySet();
    private boolean actedOnLastImage; // confined to the notification thread

    /**
     * @param active   whether this broker may act as the controller now (joined, open)
     * @param complete completes one partition if its fresh record still calls for it; throws
     *                 {@link ZkUnavailableException} when ZooKeeper does not answer
     */
    ReassignmentCompleter(int nodeId, Executor controllerWork, BooleanSupplier active,
                          Consumer<TopicPartitionKey> complete) {
        this.nodeId = nodeId;
        this.controllerWork = controllerWork;
        this.active = active;
        this.complete = complete;
    }

    void onChange(MetadataImage previous, MetadataImage current) {
        boolean acting = current.controllerId() == nodeId && active.getAsBoolean();
        boolean startedActing = acting && !actedOnLastImage;
        actedOnLastImage = acting;
        if (!acting) {
            return;
        }
        for (TopicImage topic : current.topics()) {
            if (!startedActing && previous.topic(topic.name()) == topic) {
                continue;
            }
            for (PartitionState state : topic.partitions()) {
                if (state.isReassigning() && state.isr().containsAll(state.targetReplicas())) {
                    schedule(new TopicPartitionKey(topic.name(), state.partition()));
                }
            }
        }
    }

    private void schedule(TopicPartitionKey key) {
        if (pending.add(key)) {
            controllerWork.execute(() -> run(key));
        }
    }

    private void run(TopicPartitionKey key) {
        pending.remove(key);
        if (!active.getAsBoolean()) {
            return;
        }
        try {
            complete.accept(key);
        } catch (ZkUnavailableException e) {
            LOG.warn("cannot complete the reassignment of {} yet: {}", key, e.toString());
            if (pending.add(key)) {
                CompletableFuture.delayedExecutor(RETRY_DELAY_MS, TimeUnit.MILLISECONDS, controllerWork)
                        .execute(() -> run(key));
            }
        }
    }
}
