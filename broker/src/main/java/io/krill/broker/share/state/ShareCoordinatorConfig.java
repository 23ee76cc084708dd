package io.krill.broker.share.state;

import java.util.Map;

/**
 * What the share coordinator is configured by, with Kafka's defaults ({@link #DEFAULTS}). The broker keys
 * each comes from are listed; until they are part of the broker configuration, {@link #fromStatic} reads
 * them from the static configuration's raw keys. Immutable.
 *
 * @param stateTopicNumPartitions      share.coordinator.state.topic.num.partitions (50)
 * @param stateTopicReplicationFactor  share.coordinator.state.topic.replication.factor (3; capped by the
 *                                     live brokers when the topic is created, as for the offsets topic)
 * @param stateTopicMinIsr             share.coordinator.state.topic.min.isr (2; capped by the replication factor)
 * @param stateTopicSegmentBytes       share.coordinator.state.topic.segment.bytes (100 MiB)
 * @param snapshotUpdateRecordsPerSnapshot share.coordinator.snapshot.update.records.per.snapshot (500): after
 *                                     that many update records a share-partition's next write is a full snapshot
 * @param writeTimeoutMs               share.coordinator.write.timeout.ms (5000): how long a state record may
 *                                     wait for the in-sync replicas
 * @param loadBufferSize               share.coordinator.load.buffer.size (5 MiB): the read size of a replay
 * @param requestTimeoutMs             request.timeout.ms (30000): how long the persister retries a call
 *                                     whose coordinator is moving or loading
 */
public record ShareCoordinatorConfig(int stateTopicNumPartitions, short stateTopicReplicationFactor,
                                     int stateTopicMinIsr, int stateTopicSegmentBytes,
                                     int snapshotUpdateRecordsPerSnapshot, int writeTimeoutMs, int loadBufferSize,
                                     int requestTimeoutMs) {
    public static final ShareCoordinatorConfig DEFAULTS = new ShareCoordinatorConfig(50, (short) 3, 2,
            100 * 1024 * 1024, 500, 5000, 5 * 1024 * 1024, 30_000);

    public ShareCoordinatorConfig {
        if (stateTopicNumPartitions < 1 || stateTopicReplicationFactor < 1 || stateTopicMinIsr < 1
                || snapshotUpdateRecordsPerSnapshot < 0 || writeTimeoutMs < 1 || loadBufferSize < 1
                || requestTimeoutMs < 1) {
            throw new IllegalArgumentException("share coordinator settings out of range: partitions "
                    + stateTopicNumPartitions + ", replication factor " + stateTopicReplicationFactor + ", min ISR "
                    + stateTopicMinIsr + ", updates per snapshot " + snapshotUpdateRecordsPerSnapshot + ", write timeout "
                    + writeTimeoutMs + ", load buffer " + loadBufferSize + ", request timeout " + requestTimeoutMs);
        }
    }

    /**
     * The settings the static configuration gives under Kafka's keys, the defaults for the others (a
     * stop-gap until the broker configuration knows the keys; a malformed value fails the start).
     */
    public static ShareCoordinatorConfig fromStatic(Map<String, String> statics) {
        ShareCoordinatorConfig d = DEFAULTS;
        return new ShareCoordinatorConfig(
                intOf(statics, "share.coordinator.state.topic.num.partitions", d.stateTopicNumPartitions),
                (short) intOf(statics, "share.coordinator.state.topic.replication.factor", d.stateTopicReplicationFactor),
                intOf(statics, "share.coordinator.state.topic.min.isr", d.stateTopicMinIsr),
                intOf(statics, "share.coordinator.state.topic.segment.bytes", d.stateTopicSegmentBytes),
                intOf(statics, "share.coordinator.snapshot.update.records.per.snapshot",
                        d.snapshotUpdateRecordsPerSnapshot),
                intOf(statics, "share.coordinator.write.timeout.ms", d.writeTimeoutMs),
                intOf(statics, "share.coordinator.load.buffer.size", d.loadBufferSize),
                intOf(statics, "request.timeout.ms", d.requestTimeoutMs));
    }

    private static int intOf(Map<String, String> statics, String key, int fallback) {
        String value = statics.get(key);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, not " + value, e);
        }
    }
}
