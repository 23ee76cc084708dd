package io.krill.broker.config;

/**
 * The effective settings of one share group: its group configs (ConfigResource GROUP, kept per group in
 * the metadata store) over the broker's {@code group.share.*} defaults. Immutable.
 *
 * @param autoOffsetReset       {@code share.auto.offset.reset}: {@code latest}, {@code earliest} or
 *                              {@code by_duration:<ISO-8601 duration>}
 * @param readCommitted         {@code share.isolation.level} is {@code read_committed}
 * @param recordLockDurationMs  {@code share.record.lock.duration.ms}: how long an acquired record stays locked
 * @param deliveryCountLimit    {@code share.delivery.count.limit}: deliveries before a record is archived
 * @param partitionMaxRecordLocks {@code share.partition.max.record.locks}: in-flight records per share-partition
 * @param sessionTimeoutMs      {@code share.session.timeout.ms}
 * @param heartbeatIntervalMs   {@code share.heartbeat.interval.ms}
 */
public record ShareGroupConfig(String autoOffsetReset, boolean readCommitted, int recordLockDurationMs,
                               int deliveryCountLimit, int partitionMaxRecordLocks, int sessionTimeoutMs,
                               int heartbeatIntervalMs) {

    /** Kafka 4.4's broker defaults, for tests and tools. */
    public static final ShareGroupConfig DEFAULTS = new ShareGroupConfig("latest", false, 30_000, 5, 2_000, 45_000,
            5_000);
}
