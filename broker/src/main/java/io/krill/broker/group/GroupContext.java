package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the parts of the group coordinator share: this broker's id, the group config, the log of
 * {@code __consumer_offsets}, the timer, and the one map of led partitions ({@link GroupShard}s, each
 * with its groups), plus the partition count and the latest metadata image. This class owns that map;
 * the parts reach groups only through it.
 *
 * <p>Thread-safety: thread-safe and lock-free. The shard map is concurrent; the image, the partition
 * count and the closed flag are volatile, written only under {@link GroupCoordinator}'s monitor (its
 * metadata follow and close). Groups are guarded by their own monitors, taken by the callers.
 */
final class GroupContext {
    private final int nodeId;
    private final GroupConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final Map<Integer, GroupShard> shards = new ConcurrentHashMap<>();
    /** The latest metadata image (partition counts and topic ids for consumer groups). */
    private volatile MetadataImage image;
    private volatile int partitionCount;
    private volatile boolean closed;

    GroupContext(int nodeId, GroupConfig config, CoordinatorLog log, CoordinatorTimer timer) {
        this.nodeId = nodeId;
        this.config = config;
        this.log = log;
        this.timer = timer;
        this.partitionCount = config.offsetsTopicNumPartitions();
    }

    int nodeId() {
        return nodeId;
    }

    GroupConfig config() {
        return config;
    }

    CoordinatorLog log() {
        return log;
    }

    CoordinatorTimer timer() {
        return timer;
    }

    long now() {
        return timer.milliseconds();
    }

    MetadataImage image() {
        return image;
    }

    void image(MetadataImage image) {
        this.image = image;
    }

    int partitionCount() {
        return partitionCount;
    }

    void partitionCount(int partitionCount) {
        this.partitionCount = partitionCount;
    }

    boolean closed() {
        return closed;
    }

    void close() {
        closed = true;
    }

    // ------------------------------------------------------------------ shards

    /** The shard of a led partition, or null. */
    GroupShard shard(int partition) {
        return shards.get(partition);
    }

    /** Adds the shard of a newly led partition; false when the partition already has one. */
    boolean addShard(GroupShard shard) {
        return shards.putIfAbsent(shard.partition, shard) == null;
    }

    /** Removes the shard of a partition no longer led; null when there was none. */
    GroupShard removeShard(int partition) {
        return shards.remove(partition);
    }

    /** The led partitions (a copy). */
    List<Integer> ledPartitions() {
        return new ArrayList<>(shards.keySet());
    }

    /** The shards of the led partitions (a live view). */
    Collection<GroupShard> shards() {
        return shards.values();
    }

    /** The partition of {@code __consumer_offsets} that holds {@code groupId}. */
    int partitionFor(String groupId) {
        return partitionFor(groupId, partitionCount);
    }

    static int partitionFor(String groupId, int partitions) {
        int hash = groupId.hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }

    GroupShard shardFor(String groupId) {
        if (log.isFenced()) {
            // Cut off from the cluster: another broker may have loaded newer state of this group.
            throw new ApiException(Errors.NOT_COORDINATOR, "Broker " + nodeId + " is cut off from the cluster; "
                    + "another broker may coordinate group " + groupId);
        }
        GroupShard shard = shards.get(partitionFor(groupId));
        if (shard == null) {
            throw new ApiException(Errors.NOT_COORDINATOR, "This broker is not the coordinator of group " + groupId);
        }
        if (!shard.loaded) {
            throw new ApiException(Errors.COORDINATOR_LOAD_IN_PROGRESS, "The coordinator of group " + groupId
                    + " is loading");
        }
        return shard;
    }

    static void validateGroupId(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            throw new ApiException(Errors.INVALID_GROUP_ID, "The group id must not be empty");
        }
    }

    /** The group, or null when it does not exist (a Dead group is gone). */
    static ClassicGroup group(GroupShard shard, String groupId) {
        ClassicGroup group = shard.groups.get(groupId);
        return group;
    }

    /** The error of a failed write of group metadata or offset tombstones. */
    static Errors groupStoreError(Throwable failure) {
        Errors error = failure instanceof ApiException api ? api.error()
                : failure.getCause() instanceof ApiException api ? api.error() : Errors.UNKNOWN_SERVER_ERROR;
        return error == Errors.RECORD_LIST_TOO_LARGE ? Errors.UNKNOWN_SERVER_ERROR : error;
    }
}
