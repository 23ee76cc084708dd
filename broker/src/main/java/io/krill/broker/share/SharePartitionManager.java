package io.krill.broker.share;

import io.krill.broker.config.ShareGroupConfigs;
import io.krill.broker.partition.Partition;
import io.krill.broker.share.dlq.DeadLetterQueue;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The share-partitions this broker leads: one {@link SharePartition} per share group and topic partition,
 * loaded from its share coordinator on first use, dropped when the partition moves or a write fails (the
 * next use loads it again), and the timer that ends acquisition locks.
 *
 * <p>Threads: loads complete on the persister's threads; lock expiry runs on {@code share-lock-timer}
 * (one thread; one check pending per share-partition, at its earliest lock deadline).
 *
 * <p>Thread-safety: thread-safe; the map is concurrent and each share-partition guards itself.
 */
public final class SharePartitionManager implements MetadataListener, AutoCloseable {
    private final ShareStatePersister persister;
    private final DeadLetterQueue deadLetters;
    private final ShareGroupConfigs configs;
    private final Consumer<TopicPartition> onAvailable;
    private final Map<SharePartitionKey, CompletableFuture<SharePartition>> partitions = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    /**
     * @param onAvailable told of a partition whose share-partition has records available again (a release,
     *                    a lock expiry, a load), to wake share fetches waiting on it
     */
    public SharePartitionManager(ShareStatePersister persister, DeadLetterQueue deadLetters, ShareGroupConfigs configs,
                                 Consumer<TopicPartition> onAvailable) {
        this.persister = persister;
        this.deadLetters = deadLetters;
        this.configs = configs;
        this.onAvailable = onAvailable;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "share-lock-timer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * The share-partition of {@code groupId} on {@code partition}, which this broker leads: loaded (or being
     * loaded) from the share coordinator. A stale one (fenced, or of an earlier leader epoch) is replaced.
     */
    CompletableFuture<SharePartition> get(String groupId, Partition partition) {
        SharePartitionKey key = new SharePartitionKey(groupId, partition.topicId(), partition.topicPartition().partition());
        while (true) {
            CompletableFuture<SharePartition> existing = partitions.get(key);
            if (existing != null) {
                if (!existing.isDone()) {
                    return existing;
                }
                SharePartition loaded = existing.isCompletedExceptionally() ? null : existing.join();
                if (loaded != null && loaded.isValid() && loaded.partition() == partition) {
                    return existing;
                }
                if (loaded != null) {
                    loaded.fence(Errors.NOT_LEADER_OR_FOLLOWER);
                }
                partitions.remove(key, existing);
                continue;
            }
            CompletableFuture<SharePartition> loading = new CompletableFuture<>();
            if (partitions.putIfAbsent(key, loading) != null) {
                continue;
            }
            TopicPartition tp = partition.topicPartition();
            SharePartition.load(key, partition, partition.leaderEpoch(), new SharePartition.Links(persister,
                            deadLetters, () -> configs.of(groupId), () -> onAvailable.accept(tp)))
                    .whenComplete((loaded, failure) -> {
                        if (failure != null) {
                            loading.completeExceptionally(failure);
                            partitions.remove(key, loading);
                        } else {
                            loading.complete(loaded);
                        }
                        onAvailable.accept(tp);
                    });
            return loading;
        }
    }

    /**
     * Makes sure a lock check of {@code partition} runs at {@code deadline} (an acquisition's): one check is
     * pending per share-partition, at its earliest deadline; each check schedules the next one while records
     * stay locked (renewed locks included).
     */
    void scheduleExpiry(SharePartition partition, long deadline) {
        if (partition.armTimer(deadline)) {
            long delay = Math.max(0, deadline - System.currentTimeMillis());
            timer.schedule(() -> expire(partition, deadline), delay + 1, TimeUnit.MILLISECONDS);
        }
    }

    private void expire(SharePartition partition, long deadline) {
        if (!partition.timerFired(deadline)) {
            return; // an earlier check took over
        }
        long next = partition.expireLocks(System.currentTimeMillis());
        if (next != Long.MAX_VALUE) {
            scheduleExpiry(partition, next);
        }
    }

    /** Releases what {@code memberId} holds in the given share-partitions (its share session ended). */
    void releaseMember(String groupId, String memberId, List<SharePartitionKey> keys) {
        for (SharePartitionKey key : keys) {
            CompletableFuture<SharePartition> loaded = partitions.get(key);
            if (loaded != null && loaded.isDone() && !loaded.isCompletedExceptionally()) {
                loaded.join().releaseMember(memberId);
            }
        }
    }

    /**
     * Drops the loaded share-partition of {@code key} if nobody holds its records (see
     * {@link SharePartition#fenceIfIdle}): the next use loads it from the share coordinator again.
     */
    void refreshIfIdle(SharePartitionKey key) {
        CompletableFuture<SharePartition> loaded = partitions.get(key);
        if (loaded != null && loaded.isDone() && !loaded.isCompletedExceptionally() && loaded.join().fenceIfIdle()) {
            partitions.remove(key, loaded);
        }
    }

    /** Drops the share-partitions of partitions this broker no longer leads. */
    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        partitions.forEach((key, future) -> {
            if (future.isDone() && !future.isCompletedExceptionally()) {
                SharePartition loaded = future.join();
                if (!loaded.isValid()) {
                    loaded.fence(Errors.NOT_LEADER_OR_FOLLOWER);
                    partitions.remove(key, future);
                }
            }
        });
    }

    @Override
    public void close() {
        timer.shutdownNow();
        partitions.values().forEach(future -> {
            if (future.isDone() && !future.isCompletedExceptionally()) {
                future.join().fence(Errors.NOT_LEADER_OR_FOLLOWER);
            }
        });
        partitions.clear();
    }
}
