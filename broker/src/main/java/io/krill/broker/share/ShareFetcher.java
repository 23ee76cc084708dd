package io.krill.broker.share;

import io.krill.broker.api.ErrorMapping;
import io.krill.broker.config.ShareGroupConfigs;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.share.ShareSessionCache.SessionPartition;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * What ShareFetch and ShareAcknowledge do on a partition leader, apart from the wire: apply a member's
 * acknowledgements and acquire records for it from the share-partitions of its share session
 * ({@link SharePartitionManager}), with the errors Kafka gives per partition.
 *
 * <p>Thread-safety: thread-safe; its parts guard themselves.
 */
public final class ShareFetcher {
    /** What one partition of a read gave: an error, or acquired records (possibly none). */
    public record PartitionRead(SessionPartition partition, String topic, Errors error, String message,
                                SharePartition.ShareRead read) {
        public boolean acquired() {
            return read != null && !read.acquired().isEmpty();
        }
    }

    /** One round of reads over a session's partitions. */
    public record Round(List<PartitionRead> partitions, List<TopicPartition> watched, boolean loading) {
        public boolean acquiredAny() {
            return partitions.stream().anyMatch(PartitionRead::acquired);
        }

        public boolean errors() {
            return partitions.stream().anyMatch(p -> p.error() != Errors.NONE);
        }

        /** Closes the file slices of a round that will not be sent. */
        public void discard() {
            for (PartitionRead p : partitions) {
                if (p.read() != null && p.read().read() != null) {
                    p.read().read().close();
                }
            }
        }
    }

    private final PartitionManager replicas;
    private final SharePartitionManager shares;
    private final ShareSessionCache sessions;
    private final ShareGroupConfigs configs;

    public ShareFetcher(PartitionManager replicas, SharePartitionManager shares, ShareSessionCache sessions,
                        ShareGroupConfigs configs) {
        this.replicas = replicas;
        this.shares = shares;
        this.sessions = sessions;
        this.configs = configs;
    }

    public ShareSessionCache sessions() {
        return sessions;
    }

    /** {@code share.record.lock.duration.ms} of the group, which responses report. */
    public int lockDurationMs(String groupId) {
        return configs.of(groupId).recordLockDurationMs();
    }

    /**
     * Applies {@code acks} of {@code memberId} to one partition: completes with NONE once written durably,
     * or with the partition's acknowledge error.
     */
    public CompletableFuture<Errors> acknowledge(MetadataImage image, String groupId, String memberId,
                                                 SessionPartition partition, List<SharePartition.Acknowledgement> acks) {
        try {
            Partition leader = leader(image, partition);
            return shares.get(groupId, leader)
                    .thenCompose(share -> share.acknowledge(memberId, acks, System.currentTimeMillis()))
                    .handle((ok, failure) -> failure == null ? Errors.NONE : ErrorMapping.toError(unwrap(failure), this));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(ErrorMapping.toError(e, this));
        }
    }

    /**
     * A member opened its share session with {@code partitions}: share-partitions of them that nobody holds
     * records of are loaded again, so that an offsets reset or deletion of the (empty) group is seen.
     */
    public void sessionOpened(String groupId, List<SessionPartition> partitions) {
        for (SessionPartition p : partitions) {
            shares.refreshIfIdle(new SharePartitionKey(groupId, p.topicId(), p.partition()));
        }
    }

    /** Releases what the member holds on {@code partitions} (its session closed or was replaced). */
    public void release(MetadataImage image, String groupId, String memberId, List<SessionPartition> partitions) {
        List<SharePartitionKey> keys = new ArrayList<>();
        for (SessionPartition p : partitions) {
            keys.add(new SharePartitionKey(groupId, p.topicId(), p.partition()));
        }
        shares.releaseMember(groupId, memberId, keys);
    }

    /**
     * Acquires records for {@code memberId} from {@code partitions}: at most {@code maxRecords} in all (whole
     * batches unless {@code strictLimit}) and about {@code maxBytes}. A share-partition still loading counts
     * as empty this round ({@link Round#loading}); {@code readable} says which topics the member may read.
     */
    public Round read(MetadataImage image, String groupId, String memberId, List<SessionPartition> partitions,
                      int maxRecords, int maxBytes, boolean strictLimit, Predicate<String> readable) {
        List<PartitionRead> reads = new ArrayList<>();
        List<TopicPartition> watched = new ArrayList<>();
        boolean loading = false;
        int records = maxRecords;
        int bytes = maxBytes;
        long now = System.currentTimeMillis();
        // start at a different partition each round, so that one busy partition does not starve the others
        int n = partitions.size();
        int first = n == 0 ? 0 : Math.floorMod((int) (now ^ memberId.hashCode()), n);
        for (int i = 0; i < n; i++) {
            SessionPartition p = partitions.get((first + i) % n);
            TopicImage topic = image.topic(p.topicId());
            if (topic == null) {
                reads.add(new PartitionRead(p, null, Errors.UNKNOWN_TOPIC_ID, null, null));
                continue;
            }
            if (!readable.test(topic.name())) {
                reads.add(new PartitionRead(p, topic.name(), Errors.TOPIC_AUTHORIZATION_FAILED, null, null));
                continue;
            }
            try {
                Partition leader = replicas.leaderPartition(image, topic.name(), p.partition());
                watched.add(leader.topicPartition());
                CompletableFuture<SharePartition> share = shares.get(groupId, leader);
                if (!share.isDone()) {
                    loading = true;
                    reads.add(new PartitionRead(p, topic.name(), Errors.NONE, null, SharePartition.ShareRead.NONE));
                    continue;
                }
                SharePartition loaded = share.join();
                SharePartition.ShareRead read = records > 0 && bytes > 0
                        ? loaded.acquire(memberId, records, bytes, strictLimit, now) : SharePartition.ShareRead.NONE;
                if (!read.acquired().isEmpty()) {
                    records -= read.acquiredCount();
                    bytes -= read.read().records().sizeInBytes();
                    shares.scheduleExpiry(loaded, now + configs.of(groupId).recordLockDurationMs());
                }
                reads.add(new PartitionRead(p, topic.name(), Errors.NONE, null, read));
            } catch (RuntimeException e) {
                Throwable cause = unwrap(e);
                reads.add(new PartitionRead(p, topic.name(), ErrorMapping.toError(cause, this),
                        ErrorMapping.clientMessage(cause), null));
            }
        }
        return new Round(reads, watched, loading);
    }

    /** Whether some share-partition of {@code partitions} could hand out records now. */
    public boolean canAcquire(MetadataImage image, String groupId, List<SessionPartition> partitions) {
        for (SessionPartition p : partitions) {
            TopicImage topic = image.topic(p.topicId());
            if (topic == null) {
                return true;
            }
            Partition hosted = replicas.partition(topic.name(), p.partition());
            if (hosted == null || !hosted.isLeader()) {
                return true; // the fetch answers NOT_LEADER_OR_FOLLOWER
            }
            CompletableFuture<SharePartition> share = shares.get(groupId, hosted);
            if (share.isDone() && (share.isCompletedExceptionally() || share.join().canAcquire())) {
                return true;
            }
        }
        return false;
    }

    private Partition leader(MetadataImage image, SessionPartition partition) {
        TopicImage topic = image.topic(partition.topicId());
        if (topic == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_ID, "Unknown topic id " + partition.topicId());
        }
        return replicas.leaderPartition(image, topic.name(), partition.partition());
    }

    private static Throwable unwrap(Throwable failure) {
        while ((failure instanceof java.util.concurrent.CompletionException
                || failure instanceof java.util.concurrent.ExecutionException) && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
    }
}
