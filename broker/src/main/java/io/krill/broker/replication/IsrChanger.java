package io.krill.broker.replication;

import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's half of ISR management: removes followers that have not caught up for
 * {@code replica.lag.time.max.ms} (or whose broker is no longer live), and adds back a follower that
 * reached the high watermark, each as a compare-and-set of the partition's record through
 * {@link MetadataStore#alterPartition}. A lost compare-and-set (another leader, a newer record) is not
 * retried: the metadata that caused it reaches this broker and decides what it leads next.
 *
 * <p>Thread-safety: every change runs on its own thread {@code krill-isr-<node>}, one at a time (they
 * block on ZooKeeper); {@link #requestJoin} may be called from any thread. One change per partition is
 * in flight at a time ({@link Partition#beginIsrChange}).
 */
public final class IsrChanger implements MetadataListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IsrChanger.class);

    private final int nodeId;
    private final MetadataStore metadata;
    private final PartitionManager partitions;
    private final long maxLagMs;
    private final Consumer<TopicPartition> changed;
    private final ScheduledExecutorService executor;
    private final AtomicLong shrinks = new AtomicLong();
    private final AtomicLong expands = new AtomicLong();

    /** @param changed told after this broker changed a partition's ISR (wakes requests waiting on it) */
    public IsrChanger(int nodeId, MetadataStore metadata, PartitionManager partitions, long maxLagMs,
                      Consumer<TopicPartition> changed) {
        this.nodeId = nodeId;
        this.metadata = metadata;
        this.partitions = partitions;
        this.maxLagMs = maxLagMs;
        this.changed = changed;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "krill-isr-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(100, maxLagMs / 2);
        executor.scheduleWithFixedDelay(this::periodicShrink, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * A follower of {@code partition} reached the high watermark: propose it for the ISR, unless this
     * broker's image does not show it live. A restarted broker fetches, and catches up, before it registers;
     * the store would refuse it (INELIGIBLE_REPLICA) on every one of its fetches until then, a ZooKeeper-less
     * but busy loop of refusals. Kafka's leader likewise proposes only eligible replicas. The first fetch
     * after the broker shows up live proposes it again.
     */
    public void requestJoin(Partition partition, int replica) {
        if (metadata.image().broker(replica) == null) {
            return;
        }
        submit(() -> {
            if (!partition.isLeader() || partition.state().isr().contains(replica)) {
                return;
            }
            change(partition, partition.isrWith(replica), Set.of(replica));
        });
    }

    /** A broker left: the ISRs it was in shrink now rather than after the lag time. */
    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        if (previous != null && !previous.brokers().equals(current.brokers())) {
            submit(this::shrinkLagging);
        }
    }

    private void submit(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("ISR change after shutdown ignored");
        }
    }

    /** The periodic check must survive a failed round (a closed store at shutdown, a storage error). */
    private void periodicShrink() {
        try {
            shrinkLagging();
        } catch (RuntimeException e) {
            LOG.error("ISR shrink check failed; next check in {} ms", Math.max(100, maxLagMs / 2), e);
        }
    }

    private void shrinkLagging() {
        long now = System.currentTimeMillis();
        MetadataImage image = metadata.image();
        for (Partition partition : partitions.partitions()) {
            if (!partition.isLeader()) {
                continue;
            }
            List<Integer> out = new ArrayList<>(partition.laggingIsrMembers(now, maxLagMs));
            for (int replica : partition.state().isr()) {
                if (replica != nodeId && image.broker(replica) == null && !out.contains(replica)) {
                    out.add(replica);
                }
            }
            if (out.isEmpty()) {
                continue;
            }
            List<Integer> isr = new ArrayList<>(partition.state().isr());
            isr.removeAll(out);
            change(partition, isr, Set.of());
        }
    }

    private void change(Partition partition, List<Integer> newIsr, Set<Integer> additions) {
        if (!partition.beginIsrChange(additions)) {
            return;
        }
        PartitionState expected = partition.state();
        TopicPartition tp = partition.topicPartition();
        try {
            if (expected.leader() != nodeId || newIsr.equals(expected.isr())) {
                return;
            }
            PartitionState done = metadata.alterPartition(tp.topic(), expected, expected.withIsr(newIsr));
            (additions.isEmpty() ? shrinks : expands).incrementAndGet();
            LOG.info("{}: ISR {} -> {} (leader {}, epoch {})", tp, expected.isr(), done.isr(), nodeId,
                    done.leaderEpoch());
        } catch (ApiException e) {
            LOG.info("{}: ISR change {} -> {} not applied: {} ({})", tp, expected.isr(), newIsr, e.error(),
                    e.getMessage());
        } finally {
            partition.finishIsrChange();
            changed.accept(tp);
        }
    }

    public long isrShrinks() {
        return shrinks.get();
    }

    public long isrExpands() {
        return expands.get();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
