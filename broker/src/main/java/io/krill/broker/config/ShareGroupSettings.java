package io.krill.broker.config;

import java.util.List;

/**
 * Typed view of the broker's share-group keys ({@code group.share.*}): the defaults of every share group's
 * settings and the bounds of its group configs. Immutable and thread-safe.
 */
public final class ShareGroupSettings {
    private final ConfigValues v;

    ShareGroupSettings(ConfigValues v) {
        this.v = v;
    }

    public int sessionTimeoutMs() {
        return v.getInt("group.share.session.timeout.ms");
    }

    public int minSessionTimeoutMs() {
        return v.getInt("group.share.min.session.timeout.ms");
    }

    public int maxSessionTimeoutMs() {
        return v.getInt("group.share.max.session.timeout.ms");
    }

    public int heartbeatIntervalMs() {
        return v.getInt("group.share.heartbeat.interval.ms");
    }

    public int minHeartbeatIntervalMs() {
        return v.getInt("group.share.min.heartbeat.interval.ms");
    }

    public int maxHeartbeatIntervalMs() {
        return v.getInt("group.share.max.heartbeat.interval.ms");
    }

    /** Members of one share group at most. */
    public int maxSize() {
        return v.getInt("group.share.max.size");
    }

    /** The one server-side assignor every share group uses (Kafka's built-in: simple). */
    public List<String> assignors() {
        return v.getList("group.share.assignors");
    }

    public int assignmentIntervalMs() {
        return v.getInt("group.share.assignment.interval.ms");
    }

    public int minAssignmentIntervalMs() {
        return v.getInt("group.share.min.assignment.interval.ms");
    }

    public int maxAssignmentIntervalMs() {
        return v.getInt("group.share.max.assignment.interval.ms");
    }

    /** How long before initializing a group's share state is retried. */
    public int initializeRetryIntervalMs() {
        return v.getInt("group.share.initialize.retry.interval.ms");
    }

    public int deliveryCountLimit() {
        return v.getInt("group.share.delivery.count.limit");
    }

    public int minDeliveryCountLimit() {
        return v.getInt("group.share.min.delivery.count.limit");
    }

    public int maxDeliveryCountLimit() {
        return v.getInt("group.share.max.delivery.count.limit");
    }

    public int recordLockDurationMs() {
        return v.getInt("group.share.record.lock.duration.ms");
    }

    public int minRecordLockDurationMs() {
        return v.getInt("group.share.min.record.lock.duration.ms");
    }

    public int maxRecordLockDurationMs() {
        return v.getInt("group.share.max.record.lock.duration.ms");
    }

    /** In-flight (acquired) records of one share-partition at most. */
    public int partitionMaxRecordLocks() {
        return v.getInt("group.share.partition.max.record.locks");
    }

    public int minPartitionMaxRecordLocks() {
        return v.getInt("group.share.min.partition.max.record.locks");
    }

    public int maxPartitionMaxRecordLocks() {
        return v.getInt("group.share.max.partition.max.record.locks");
    }

    /** ShareFetch sessions one broker keeps at most. */
    public int maxShareSessions() {
        return v.getInt("group.share.max.share.sessions");
    }

    public int fetchPurgatoryPurgeIntervalRequests() {
        return v.getInt("share.fetch.purgatory.purge.interval.requests");
    }

    /** Whether a share group's missing dead-letter topic is created (KIP-1191). */
    public boolean deadLetterAutoCreateTopics() {
        return v.getBoolean("errors.deadletterqueue.auto.create.topics.enable");
    }

    /** The prefix every dead-letter topic name must have; empty for none. */
    public String deadLetterTopicPrefix() {
        return v.getString("errors.deadletterqueue.topic.name.prefix");
    }

    /** The settings of a share group without group configs: these broker defaults. */
    public ShareGroupConfig defaults() {
        return new ShareGroupConfig("latest", false, recordLockDurationMs(), deliveryCountLimit(),
                partitionMaxRecordLocks(), sessionTimeoutMs(), heartbeatIntervalMs());
    }
}
