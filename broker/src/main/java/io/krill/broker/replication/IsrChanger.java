package io.krill.broker.replication;

import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.controller.metadata.IsrChange;
import io.krill.controller.metadata.IsrChangeResult;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * reached the high watermark, each as a compare-and-set of the partition's record. A lost
 * compare-and-set (another leader, a newer record) is not retried: the metadata that caused it reaches
 * this broker and decides what it leads next.
 *
 * <p>Changes are batched as Kafka's AlterPartitionManager batches them: a requested change is queued
 * (at most one per partition: {@link Partition#beginIsrChange} claims it when it is queued,
 * {@link Partition#finishIsrChange} releases it once its outcome is known), and the ISR thread sends
 * everything queued, up to {@value #MAX_BATCH} changes, in one {@link MetadataStore#alterPartitions}
 * call, then the next batch with what arrived meanwhile. Each change's new ISR is computed from the
 * partition's state when its batch is sent, so a change queued behind a slow batch is not stale.
 *
 * <p>Thread-safety: batches are sent, and lagging followers looked for, on one thread
 * {@code krill-isr-<node>}, one batch at a time (they block on ZooKeeper); {@link #requestJoin} and
 * {@link #onChange} may be called from any thread. The queue is guarded by its own monitor, never held
 * while a batch is sent or a partition's lock is taken.
 */
public final class IsrChanger implements MetadataListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IsrChanger.class);
    /** The most changes one alterPartitions call carries. */
    static final int MAX_BATCH = 1_000;
    /** Batches up to this size log each change at INFO; larger ones one summary at INFO, the changes at DEBUG. */
    private static final int LOG_EACH_UP_TO = 10;

    private final int nodeId;
    private final MetadataStore metadata;
    private final PartitionManager partitions;
    private final long maxLagMs;
    private final Consumer<TopicPartition> changed;
    private final ScheduledExecutorService executor;
    private final AtomicLong shrinks = new AtomicLong();
    private final AtomicLong expands = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    /** Claimed changes waiting for the ISR thread; guarded by itself. */
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Whether a drain of {@link #queue} is scheduled or running; guarded by {@link #queue}. */
    private boolean draining;
    /** A shrink found its partition busy with another change: look again once this batch is done (ISR thread). */
    private boolean shrinkDeferred;

    /**
     * One queued change, claimed on its partition: a join of {@code joining}, or a shrink removing
     * {@code leaving}. The new ISR is computed when its batch is sent.
     */
    private record Pending(Partition partition, int joining, Set<Integer> leaving) {
        boolean isJoin() {
            return leaving == null;
        }

        /** The ISR to propose from {@code current}, or null when there is nothing to change any more. */
        List<Integer> newIsr(PartitionState current) {
            List<Integer> isr = new ArrayList<>();
            if (isJoin()) {
                if (current.isr().contains(joining)) {
                    return null;
                }
                for (int replica : current.replicas()) { // replica-assignment order, as Partition#isrWith
                    if (replica == joining || current.isr().contains(replica)) {
                        isr.add(replica);
                    }
                }
            } else {
                for (int replica : current.isr()) {
                    if (!leaving.contains(replica)) {
                        isr.add(replica);
                    }
                }
            }
            return isr.equals(current.isr()) ? null : isr;
        }
    }

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
     * after the broker shows up live proposes it again. Dropped while another change of the partition is
     * queued or in flight (the follower's next fetch asks again).
     */
    public void requestJoin(Partition partition, int replica) {
        if (metadata.image().broker(replica) == null) {
            return;
        }
        if (!partition.isLeader() || partition.state().isr().contains(replica)) {
            return;
        }
        if (partition.beginIsrChange(Set.of(replica))) {
            enqueue(new Pending(partition, replica, null));
        }
    }

    /** A broker left: the ISRs it was in shrink now rather than after the lag time. */
    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        if (previous != null && !previous.brokers().equals(current.brokers())) {
            submit(this::periodicShrink);
        }
    }

    private void submit(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("ISR change after shutdown ignored");
        }
    }

    private void enqueue(Pending change) {
        boolean schedule;
        synchronized (queue) {
            queue.add(change);
            schedule = !draining;
            draining = true;
        }
        if (schedule) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                LOG.debug("ISR change after shutdown ignored");
                List<Pending> dropped = new ArrayList<>();
                synchronized (queue) {
                    dropped.addAll(queue);
                    queue.clear();
                    draining = false;
                }
                dropped.forEach(p -> p.partition().finishIsrChange());
            }
        }
    }

    /** Sends batches until the queue is empty (ISR thread). */
    private void drain() {
        while (true) {
            List<Pending> batch = new ArrayList<>();
            synchronized (queue) {
                while (batch.size() < MAX_BATCH && !queue.isEmpty()) {
                    batch.add(queue.poll());
                }
                if (batch.isEmpty()) {
                    draining = false;
                    break;
                }
            }
            try {
                send(batch);
            } catch (RuntimeException e) {
                LOG.error("ISR change batch failed", e); // claims are released by send in any case
            }
        }
        if (shrinkDeferred) {
            shrinkDeferred = false;
            periodicShrink();
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
            Set<Integer> out = new HashSet<>(partition.laggingIsrMembers(now, maxLagMs));
            for (int replica : partition.state().isr()) {
                if (replica != nodeId && image.broker(replica) == null) {
                    out.add(replica);
                }
            }
            if (out.isEmpty()) {
                continue;
            }
            if (partition.beginIsrChange(Set.of())) {
                enqueue(new Pending(partition, -1, Set.copyOf(out)));
            } else {
                shrinkDeferred = true;
            }
        }
    }

    /** One alterPartitions call for {@code batch}; every claim in it is released, whatever happens. */
    private void send(List<Pending> batch) {
        long started = System.nanoTime();
        List<IsrChange> changes = new ArrayList<>(batch.size());
        List<Pending> sent = new ArrayList<>(batch.size());
        List<IsrChangeResult> results = null;
        RuntimeException failure = null;
        try {
            for (Pending p : batch) {
                PartitionState expected = p.partition().state();
                List<Integer> newIsr = expected.leader() == nodeId ? p.newIsr(expected) : null;
                if (newIsr == null) {
                    release(p);
                    continue;
                }
                changes.add(new IsrChange(p.partition().topicPartition().topic(), expected, expected.withIsr(newIsr)));
                sent.add(p);
            }
            if (changes.isEmpty()) {
                return;
            }
            try {
                results = metadata.alterPartitions(changes);
            } catch (RuntimeException e) {
                failure = e;
            }
            batches.incrementAndGet();
            report(sent, changes, results, failure, (System.nanoTime() - started) / 1_000_000);
        } finally {
            for (Pending p : sent) {
                release(p);
            }
        }
    }

    private void release(Pending p) {
        p.partition().finishIsrChange();
        changed.accept(p.partition().topicPartition());
    }

    /** Counters and log lines for one sent batch. */
    private void report(List<Pending> sent, List<IsrChange> changes, List<IsrChangeResult> results, RuntimeException failure, long ms) {
        boolean each = changes.size() <= LOG_EACH_UP_TO;
        int shrunk = 0;
        int expanded = 0;
        Map<Errors, Integer> refused = new EnumMap<>(Errors.class);
        for (int i = 0; i < changes.size(); i++) {
            IsrChange change = changes.get(i);
            IsrChangeResult result = results != null && i < results.size() ? results.get(i) : null;
            String tp = change.topic() + "-" + change.expected().partition();
            if (result != null && result.error().isSuccess() && result.state() != null) {
                if (sent.get(i).isJoin()) {
                    expanded++;
                    expands.incrementAndGet();
                } else {
                    shrunk++;
                    shrinks.incrementAndGet();
                }
                log(each, "{}: ISR {} -> {} (leader {}, epoch {})", tp, change.expected().isr(),
                        result.state().isr(), nodeId, result.state().leaderEpoch());
            } else {
                Errors error = result != null ? result.error().error() : Errors.UNKNOWN_SERVER_ERROR;
                String message = result != null ? result.error().message()
                        : failure != null ? failure.toString() : "no result for this change";
                refused.merge(error, 1, Integer::sum);
                log(each, "{}: ISR change {} -> {} not applied: {} ({})", tp, change.expected().isr(),
                        change.proposed().isr(), error, message);
            }
        }
        if (failure != null) {
            LOG.warn("ISR change batch of {} partitions failed after {} ms; none retried, the image decides",
                    changes.size(), ms, failure);
        } else if (results == null || results.size() != changes.size()) {
            LOG.error("ISR change batch of {} partitions got {} results", changes.size(),
                    results == null ? 0 : results.size());
        }
        if (!each) {
            LOG.info("ISR changes of {} partitions in one batch ({} ms): {} shrunk, {} expanded, not applied: {}",
                    changes.size(), ms, shrunk, expanded, refused.isEmpty() ? "none" : refused);
        }
    }

    private static void log(boolean info, String format, Object... args) {
        if (info) {
            LOG.info(format, args);
        } else {
            LOG.debug(format, args);
        }
    }

    public long isrShrinks() {
        return shrinks.get();
    }

    public long isrExpands() {
        return expands.get();
    }

    /** How many alterPartitions calls have been made (for metrics and tests). */
    public long isrChangeBatches() {
        return batches.get();
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
