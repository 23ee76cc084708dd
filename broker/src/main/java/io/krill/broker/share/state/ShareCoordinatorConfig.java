package io.krill.broker.share.state;

/**
 * What the share coordinator is configured by, with Kafka's defaults ({@link #DEFAULTS}). The broker keys
 * each comes from are listed ({@link #from} reads them). Immutable.
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

    /** The broker's {@code share.coordinator.*} keys and its {@code request.timeout.ms}. */
    public static ShareCoordinatorConfig from(io.krill.broker.config.BrokerConfig config) {
        io.krill.broker.config.ShareCoordinatorSettings s = config.shareCoordinator();
        return new ShareCoordinatorConfig(s.stateTopicNumPartitions(), s.stateTopicReplicationFactor(),
                s.stateTopicMinIsr(), s.stateTopicSegmentBytes(), s.snapshotUpdateRecordsPerSnapshot(),
                s.writeTimeoutMs(), s.loadBufferSize(), config.socket().requestTimeoutMs());
    }
}
