package io.krill.broker.share.state;

import io.krill.broker.BrokerContext;
import io.krill.broker.coordinator.LedPartitions;
import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.coordinator.ExecutorCoordinatorTimer;
import io.krill.broker.coordinator.PartitionCoordinatorLog;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share coordinator of this broker (KIP-932): for each partition of {@code __share_group_state} it
 * leads, the durable state of the share-partitions whose coordinator key hashes to it
 * ({@code abs(key.hashCode()) % partitions}, Kafka's), kept as snapshot and update records of that
 * partition ({@link ShareStateRecords}) and rebuilt from them when the partition is loaded.
 *
 * <p><b>Partitions.</b> As a {@link MetadataListener} the coordinator loads each partition it comes to
 * lead (on the {@code share-coordinator} thread; COORDINATOR_LOAD_IN_PROGRESS meanwhile) and forgets those
 * it no longer leads, or leads at a new epoch (NOT_COORDINATOR). A broker cut off from the cluster
 * ({@link CoordinatorLog#isFenced()}) answers NOT_COORDINATOR. When a topic is deleted, the state of its
 * share-partitions is deleted too (tombstoned), as Kafka's coordinator does.
 *
 * <p><b>Operations</b> follow Kafka 4.4's share coordinator: Initialize (state epoch not below the
 * current one, else FENCED_STATE_EPOCH; no batches), Write (merges batches, {@link StateBatches}; the
 * start offset never moves back; an older leader epoch is FENCED_LEADER_EPOCH, an older state epoch
 * FENCED_STATE_EPOCH), Read (a newer leader epoch is recorded before the answer), ReadSummary and
 * Delete. Negative epochs and partitions are INVALID_REQUEST; a topic id or partition the metadata does
 * not know is UNKNOWN_TOPIC_OR_PARTITION (but Delete, which must clean up after deleted topics, takes
 * any). Where Krill's contract ({@link ShareStatePersister}) differs from Kafka 4.4, which refuses reads
 * and writes of a share-partition never initialized (INVALID_REQUEST): a read answers start offset -1
 * and state epoch 0, and a write creates the state. Every answer that changes the state is given once
 * its record is committed (the log's future), and the state in memory changes only then.
 *
 * <p><b>Thread-safety.</b> The shard map is concurrent; a shard's states and queues are guarded by the
 * shard's monitor. Operations on one share-partition run one at a time, in arrival order (a queue per
 * busy key), so each sees the committed effect of the one before; operations on different keys run
 * concurrently. An operation runs on its caller's thread or on the thread that completed the previous
 * one's write (the caller's, or the coordinator thread).
 */
public final class ShareCoordinator implements MetadataListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShareCoordinator.class);

    private final int nodeId;
    private final ShareCoordinatorConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final Supplier<MetadataImage> image;
    private final Map<Integer, Shard> shards = new ConcurrentHashMap<>();
    private final List<AutoCloseable> owned = new ArrayList<>();
    private volatile int partitionCount;
    private volatile boolean closed;

    /** The share-partitions of one led partition of {@code __share_group_state}, at one leader epoch. */
    private static final class Shard {
        final int partition;
        final int epoch;
        /** Guarded by this. */
        final Map<SharePartitionKey, StoredShareState> states = new HashMap<>();
        /** The operations waiting for a key's running one; a key is here while one runs. Guarded by this. */
        final Map<SharePartitionKey, ArrayDeque<Runnable>> busy = new HashMap<>();
        volatile boolean loaded;

        Shard(int partition, int epoch) {
            this.partition = partition;
            this.epoch = epoch;
        }
    }

    /** What an operation decided: records to write and the state they leave (null: none left), or an answer now. */
    private record Step<T>(List<CoordinatorLog.Entry> records, StoredShareState next, T answer) {
        static <T> Step<T> answer(T answer) {
            return new Step<>(List.of(), null, answer);
        }
    }

    @FunctionalInterface
    private interface Operation<T> {
        /** Decides on the key's committed state (null if none); throws ApiException to refuse. */
        Step<T> apply(StoredShareState current);
    }

    /**
     * The broker's coordinator: its log is this broker's partitions of {@code __share_group_state}, its
     * timer a {@code share-coordinator} thread, which {@link #close()} stops. Call {@link #startup} after
     * registering it as a metadata listener.
     */
    public static ShareCoordinator forBroker(BrokerContext context, ShareCoordinatorConfig config) {
        ExecutorCoordinatorTimer timer = new ExecutorCoordinatorTimer("share-coordinator");
        PartitionCoordinatorLog log = new PartitionCoordinatorLog(ShareGroupStateTopic.NAME, context.metadata(),
                context.partitions(), context.producePurgatory(), timer, config.writeTimeoutMs(), 0,
                config.loadBufferSize());
        ShareCoordinator coordinator = new ShareCoordinator(context.nodeId(), config, log, timer,
                context.metadata()::image);
        coordinator.owned.add(timer);
        return coordinator;
    }

    ShareCoordinator(int nodeId, ShareCoordinatorConfig config, CoordinatorLog log, CoordinatorTimer timer,
                     Supplier<MetadataImage> image) {
        this.nodeId = nodeId;
        this.config = config;
        this.log = log;
        this.timer = timer;
        this.image = image;
        this.partitionCount = config.stateTopicNumPartitions();
    }

    public ShareCoordinatorConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ partitions

    /** Follows the image the broker starts with. */
    public void startup(MetadataImage current) {
        follow(current);
    }

    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        follow(current);
        Set<UUID> deleted = new HashSet<>();
        for (TopicImage topic : previous.topics()) {
            if (current.topic(topic.id()) == null) {
                deleted.add(topic.id());
            }
        }
        if (!deleted.isEmpty()) {
            timer.execute(() -> deleteStateOf(deleted));
        }
    }

    private synchronized void follow(MetadataImage current) {
        if (closed) {
            return;
        }
        LedPartitions led = LedPartitions.of(current, ShareGroupStateTopic.NAME, nodeId);
        if (led.partitionCount() > 0) {
            partitionCount = led.partitionCount();
        }
        for (Shard shard : new ArrayList<>(shards.values())) {
            if (!led.ledAt(shard.partition, shard.epoch)) {
                resign(shard);
            }
        }
        led.epochs().forEach((partition, epoch) -> {
            if (!shards.containsKey(partition)) {
                Shard shard = new Shard(partition, epoch);
                shards.put(partition, shard);
                LOG.debug("Loading share coordinator partition {}-{} at epoch {}", ShareGroupStateTopic.NAME,
                        partition, epoch);
                timer.execute(() -> load(shard));
            }
        });
    }

    private void resign(Shard shard) {
        if (shards.remove(shard.partition, shard)) {
            LOG.debug("Unloading share coordinator partition {}-{}", ShareGroupStateTopic.NAME, shard.partition);
            synchronized (shard) {
                shard.states.clear();
            }
        }
    }

    private boolean isCurrent(Shard shard) {
        return !closed && shards.get(shard.partition) == shard;
    }

    /** The partition of {@code __share_group_state} that holds {@code key}. */
    public int partitionFor(SharePartitionKey key) {
        return ShareGroupStateTopic.partitionFor(key, partitionCount);
    }

    /** Whether {@code partition} is loaded and served (for tests and tools). */
    public boolean isLoaded(int partition) {
        Shard shard = shards.get(partition);
        return shard != null && shard.loaded;
    }

    private void load(Shard shard) {
        long started = System.nanoTime();
        Map<SharePartitionKey, StoredShareState> states = new HashMap<>();
        try {
            log.replay(shard.partition, (key, value) -> replay(states, key, value));
        } catch (RuntimeException e) {
            LOG.error("Failed to load {}-{}; its share-partitions stay unavailable", ShareGroupStateTopic.NAME,
                    shard.partition, e);
            return;
        }
        synchronized (shard) {
            if (!isCurrent(shard)) {
                return;
            }
            shard.states.putAll(states);
            shard.loaded = true;
        }
        if (!states.isEmpty()) {
            LOG.info("Loaded {}-{}: {} share-partitions in {} ms", ShareGroupStateTopic.NAME, shard.partition,
                    states.size(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** Applies one record of the log to {@code states}, as {@link ShareStateRecords} describes. */
    static void replay(Map<SharePartitionKey, StoredShareState> states, byte[] key, byte[] value) {
        ShareStateRecords.Key k = ShareStateRecords.readKey(key);
        if (k == null) {
            return;
        }
        if (k.type() == ShareStateRecords.SNAPSHOT) {
            StoredShareState snapshot = value == null ? null : ShareStateRecords.readSnapshot(value);
            if (value == null) {
                states.remove(k.partition());
            } else if (snapshot != null) {
                states.put(k.partition(), snapshot);
            }
            return;
        }
        ShareStateRecords.Update update = value == null ? null : ShareStateRecords.readUpdate(value);
        StoredShareState current = states.get(k.partition());
        if (update != null && current != null && current.snapshotEpoch() == k.snapshotEpoch()) {
            states.put(k.partition(), current.apply(update, k.updateIndex(), current.writeTimestamp()));
        }
    }

    // ------------------------------------------------------------------ operations

    /** InitializeShareGroupState for one share-partition. */
    public CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        return submit(key, current -> {
            checkPartition(key);
            if (stateEpoch < 0) {
                throw new ApiException(Errors.INVALID_REQUEST, "The state epoch cannot be a negative number.");
            }
            if (current != null && current.stateEpoch() > stateEpoch) {
                throw new ApiException(Errors.FENCED_STATE_EPOCH, "State epoch " + stateEpoch + " is below "
                        + current.stateEpoch());
            }
            checkTopic(key);
            long now = timer.milliseconds();
            StoredShareState next = new StoredShareState(current == null ? 0 : current.snapshotEpoch() + 1,
                    stateEpoch, 0, startOffset, startOffset == ShareState.UNINITIALIZED ? -1 : 0, now, now, List.of(), 0);
            return new Step<>(snapshot(key, current, next), next, null);
        });
    }

    /**
     * ReadShareGroupState: the state, after recording {@code leaderEpoch} as the key's if it is newer (so
     * the answer's leader epoch is always {@code leaderEpoch}). A key never initialized answers start
     * offset -1, state epoch 0 and no batches, and records nothing.
     */
    public CompletableFuture<ShareState> read(SharePartitionKey key, int leaderEpoch) {
        return submit(key, current -> {
            checkPartition(key);
            checkLeaderEpoch(leaderEpoch);
            checkTopic(key);
            if (current == null) {
                return Step.answer(new ShareState(0, ShareState.UNINITIALIZED, leaderEpoch, List.of()));
            }
            if (current.leaderEpoch() > leaderEpoch) {
                throw fencedLeader(leaderEpoch, current);
            }
            if (current.leaderEpoch() == leaderEpoch) {
                return Step.answer(current.toShareState());
            }
            Step<Void> change = change(key, current, leaderEpoch, current.startOffset(),
                    current.deliveryCompleteCount(), List.of());
            return new Step<>(change.records(), change.next(), change.next().toShareState());
        });
    }

    /**
     * WriteShareGroupState: merges {@code batches} in. {@code deliveryCompleteCount} is what a v1 writer
     * reports, or -1, when the count is taken from the merged batches.
     */
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                                         int deliveryCompleteCount, List<StateBatch> batches) {
        List<StateBatch> written = List.copyOf(batches);
        return submit(key, current -> {
            checkPartition(key);
            checkLeaderEpoch(leaderEpoch);
            if (stateEpoch < 0) {
                throw new ApiException(Errors.INVALID_REQUEST, "The state epoch cannot be a negative number.");
            }
            if (current != null && current.leaderEpoch() > leaderEpoch) {
                throw fencedLeader(leaderEpoch, current);
            }
            if (current != null && current.stateEpoch() > stateEpoch) {
                throw new ApiException(Errors.FENCED_STATE_EPOCH, "State epoch " + stateEpoch + " is below "
                        + current.stateEpoch());
            }
            checkTopic(key);
            if (current == null) {
                long now = timer.milliseconds();
                List<StateBatch> merged = StateBatches.merge(List.of(), written, startOffset);
                StoredShareState next = new StoredShareState(0, stateEpoch, leaderEpoch, startOffset,
                        deliveryCompleteCount >= 0 ? deliveryCompleteCount : countOf(merged), now, now, merged, 0);
                return new Step<>(snapshot(key, null, next), next, null);
            }
            long newStart = Math.max(startOffset, current.startOffset());
            int complete;
            if (deliveryCompleteCount < 0) {
                complete = countOf(StateBatches.merge(current.batches(), written, newStart));
            } else if (startOffset == current.startOffset()) {
                complete = Math.max(deliveryCompleteCount, current.deliveryCompleteCount());
            } else {
                complete = startOffset < current.startOffset() ? current.deliveryCompleteCount() : deliveryCompleteCount;
            }
            return change(key, current, leaderEpoch, newStart, complete, written);
        });
    }

    /** ReadShareGroupStateSummary (Kafka 4.4 checks no leader epoch here; neither does Krill). */
    public CompletableFuture<ShareStateSummary> readSummary(SharePartitionKey key) {
        return submit(key, current -> {
            checkPartition(key);
            checkTopic(key);
            if (current == null) {
                return Step.answer(new ShareStateSummary(0, ShareState.UNINITIALIZED, 0, -1));
            }
            return Step.answer(new ShareStateSummary(current.stateEpoch(), current.startOffset(),
                    current.leaderEpoch(), current.deliveryCompleteCount()));
        });
    }

    /** DeleteShareGroupState: tombstones the key's snapshot and updates; a key without state is fine. */
    public CompletableFuture<Void> delete(SharePartitionKey key) {
        return submit(key, current -> {
            checkPartition(key);
            if (current == null) {
                return Step.answer(null);
            }
            List<CoordinatorLog.Entry> records = new ArrayList<>();
            records.add(new CoordinatorLog.Entry(ShareStateRecords.snapshotKey(key), null));
            addUpdateTombstones(records, key, current);
            return new Step<>(records, null, null);
        });
    }

    /** Deletes the state of every share-partition of {@code topicIds} this coordinator holds. */
    private void deleteStateOf(Set<UUID> topicIds) {
        for (Shard shard : shards.values()) {
            List<SharePartitionKey> keys = new ArrayList<>();
            synchronized (shard) {
                for (SharePartitionKey key : shard.states.keySet()) {
                    if (topicIds.contains(key.topicId())) {
                        keys.add(key);
                    }
                }
            }
            for (SharePartitionKey key : keys) {
                delete(key).whenComplete((ok, failure) -> {
                    if (failure != null) {
                        LOG.info("Could not delete the share state of {} after its topic was deleted: {}", key,
                                failure.getMessage());
                    }
                });
            }
        }
    }

    private static int countOf(List<StateBatch> batches) {
        return (int) Math.min(Integer.MAX_VALUE, StateBatches.completeCount(batches));
    }

    /**
     * The record of a change to an existing state: an update, or a new snapshot (with tombstones for the
     * updates it replaces) once {@code share.coordinator.snapshot.update.records.per.snapshot} were written.
     */
    private Step<Void> change(SharePartitionKey key, StoredShareState current, int leaderEpoch, long startOffset,
                              int deliveryCompleteCount, List<StateBatch> batches) {
        long now = timer.milliseconds();
        if (current.updatesSinceSnapshot() >= config.snapshotUpdateRecordsPerSnapshot()) {
            StoredShareState next = new StoredShareState(current.snapshotEpoch() + 1, current.stateEpoch(),
                    leaderEpoch, startOffset, deliveryCompleteCount, current.createTimestamp(), now,
                    StateBatches.merge(current.batches(), batches, startOffset), 0);
            return new Step<>(snapshot(key, current, next), next, null);
        }
        int index = current.updatesSinceSnapshot() + 1;
        ShareStateRecords.Update update = new ShareStateRecords.Update(current.snapshotEpoch(), leaderEpoch,
                startOffset, deliveryCompleteCount, batches);
        return new Step<>(List.of(new CoordinatorLog.Entry(
                ShareStateRecords.updateKey(key, current.snapshotEpoch(), index), ShareStateRecords.updateValue(update))),
                current.apply(update, index, now), null);
    }

    /** A snapshot record of {@code next}, with tombstones for the updates of {@code previous} it replaces. */
    private static List<CoordinatorLog.Entry> snapshot(SharePartitionKey key, StoredShareState previous,
                                                       StoredShareState next) {
        List<CoordinatorLog.Entry> records = new ArrayList<>();
        records.add(new CoordinatorLog.Entry(ShareStateRecords.snapshotKey(key), ShareStateRecords.snapshotValue(next)));
        if (previous != null) {
            addUpdateTombstones(records, key, previous);
        }
        return records;
    }

    private static void addUpdateTombstones(List<CoordinatorLog.Entry> records, SharePartitionKey key,
                                            StoredShareState state) {
        for (int index = 1; index <= state.updatesSinceSnapshot(); index++) {
            records.add(new CoordinatorLog.Entry(ShareStateRecords.updateKey(key, state.snapshotEpoch(), index), null));
        }
    }

    private static void checkPartition(SharePartitionKey key) {
        if (key.partition() < 0) {
            throw new ApiException(Errors.INVALID_REQUEST, "The partition id cannot be a negative number.");
        }
    }

    private static void checkLeaderEpoch(int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new ApiException(Errors.INVALID_REQUEST, "The leader epoch cannot be a negative number.");
        }
    }

    private void checkTopic(SharePartitionKey key) {
        TopicImage topic = image.get().topic(key.topicId());
        if (topic == null || key.partition() >= topic.partitionCount()) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + SharePartitionKey.kafkaString(
                    key.topicId()) + " partition " + key.partition() + " is not in the metadata");
        }
    }

    private static ApiException fencedLeader(int leaderEpoch, StoredShareState current) {
        return new ApiException(Errors.FENCED_LEADER_EPOCH, "Leader epoch " + leaderEpoch + " is below "
                + current.leaderEpoch());
    }

    // ------------------------------------------------------------------ running operations

    private Shard shardFor(SharePartitionKey key) {
        if (log.isFenced()) {
            throw new ApiException(Errors.NOT_COORDINATOR, "Broker " + nodeId + " is cut off from the cluster; "
                    + "another broker may coordinate " + key.coordinatorKey());
        }
        Shard shard = shards.get(partitionFor(key));
        if (shard == null) {
            throw new ApiException(Errors.NOT_COORDINATOR, "This broker is not the share coordinator of "
                    + key.coordinatorKey());
        }
        if (!shard.loaded) {
            throw new ApiException(Errors.COORDINATOR_LOAD_IN_PROGRESS, "The share coordinator of "
                    + key.coordinatorKey() + " is loading");
        }
        return shard;
    }

    /** Runs {@code operation} once the key's earlier ones are done. */
    private <T> CompletableFuture<T> submit(SharePartitionKey key, Operation<T> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Shard shard;
        try {
            shard = shardFor(key);
        } catch (ApiException e) {
            result.completeExceptionally(e);
            return result;
        }
        Runnable run = () -> run(shard, key, operation, result);
        synchronized (shard) {
            ArrayDeque<Runnable> waiting = shard.busy.get(key);
            if (waiting != null) {
                waiting.add(run);
                return result;
            }
            shard.busy.put(key, new ArrayDeque<>());
        }
        run.run();
        return result;
    }

    private <T> void run(Shard shard, SharePartitionKey key, Operation<T> operation, CompletableFuture<T> result) {
        Step<T> step;
        synchronized (shard) {
            try {
                if (!isCurrent(shard) || log.isFenced()) {
                    throw new ApiException(Errors.NOT_COORDINATOR, "This broker no longer coordinates "
                            + key.coordinatorKey());
                }
                step = operation.apply(shard.states.get(key));
            } catch (ApiException e) {
                step = null;
                result.completeExceptionally(e);
            } catch (RuntimeException e) {
                LOG.error("Share coordinator operation on {} failed", key, e);
                step = null;
                result.completeExceptionally(new ApiException(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(e)));
            }
        }
        if (step == null || step.records().isEmpty()) {
            if (step != null) {
                result.complete(step.answer());
            }
            next(shard, key);
            return;
        }
        Step<T> decided = step;
        log.append(shard.partition, decided.records()).whenComplete((ok, failure) -> {
            ApiException error = null;
            synchronized (shard) {
                if (failure != null) {
                    error = writeError(failure);
                } else if (!isCurrent(shard)) {
                    error = new ApiException(Errors.NOT_COORDINATOR, "This broker no longer coordinates "
                            + key.coordinatorKey());
                } else if (decided.next() == null) {
                    shard.states.remove(key);
                } else {
                    shard.states.put(key, decided.next());
                }
            }
            if (error == null) {
                result.complete(decided.answer());
            } else {
                result.completeExceptionally(error);
            }
            next(shard, key);
        });
    }

    /** Starts the key's next waiting operation, or marks the key idle. */
    private void next(Shard shard, SharePartitionKey key) {
        Runnable next;
        synchronized (shard) {
            ArrayDeque<Runnable> waiting = shard.busy.get(key);
            next = waiting == null ? null : waiting.poll();
            if (next == null) {
                shard.busy.remove(key);
            }
        }
        if (next != null) {
            next.run();
        }
    }

    private static ApiException writeError(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (!(cause instanceof ApiException api)) {
            LOG.error("Unexpected failure writing {}", ShareGroupStateTopic.NAME, failure);
            return new ApiException(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
        }
        return api.error() == Errors.RECORD_LIST_TOO_LARGE
                ? new ApiException(Errors.UNKNOWN_SERVER_ERROR, api.getMessage()) : api;
    }

    /** Stops serving, then the coordinator thread. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Shard shard : new ArrayList<>(shards.values())) {
            resign(shard);
        }
        for (AutoCloseable resource : owned) {
            try {
                resource.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + resource + " failed", e);
            }
        }
    }
}
