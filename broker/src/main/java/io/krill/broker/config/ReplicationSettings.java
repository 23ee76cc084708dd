package io.krill.broker.config;

/** Typed view of replication, leadership and shutdown keys. Immutable and thread-safe. */
public final class ReplicationSettings {
    private final ConfigValues v;

    ReplicationSettings(ConfigValues v) {
        this.v = v;
    }

    public int defaultReplicationFactor() {
        return v.getInt("default.replication.factor");
    }

    /** {@code replica.selector.class} is Kafka's RackAwareReplicaSelector (KIP-392 fetch from follower). */
    public boolean rackAwareReplicaSelector() {
        return ReplicationConfigDefs.RACK_AWARE_SELECTOR.equals(v.getString("replica.selector.class"));
    }

    public long replicaLagTimeMaxMs() {
        return v.getLong("replica.lag.time.max.ms");
    }

    public int replicaSocketTimeoutMs() {
        return v.getInt("replica.socket.timeout.ms");
    }

    public int replicaSocketReceiveBufferBytes() {
        return v.getInt("replica.socket.receive.buffer.bytes");
    }

    public int replicaFetchMaxBytes() {
        return v.getInt("replica.fetch.max.bytes");
    }

    public int replicaFetchWaitMaxMs() {
        return v.getInt("replica.fetch.wait.max.ms");
    }

    public int replicaFetchMinBytes() {
        return v.getInt("replica.fetch.min.bytes");
    }

    public int replicaFetchResponseMaxBytes() {
        return v.getInt("replica.fetch.response.max.bytes");
    }

    public int replicaFetchBackoffMs() {
        return v.getInt("replica.fetch.backoff.ms");
    }

    public int numReplicaFetchers() {
        return v.getInt("num.replica.fetchers");
    }

    public long replicaHighWatermarkCheckpointIntervalMs() {
        return v.getLong("replica.high.watermark.checkpoint.interval.ms");
    }

    public int fetchPurgatoryPurgeIntervalRequests() {
        return v.getInt("fetch.purgatory.purge.interval.requests");
    }

    public int producerPurgatoryPurgeIntervalRequests() {
        return v.getInt("producer.purgatory.purge.interval.requests");
    }

    public int deleteRecordsPurgatoryPurgeIntervalRequests() {
        return v.getInt("delete.records.purgatory.purge.interval.requests");
    }

    public boolean autoLeaderRebalanceEnable() {
        return v.getBoolean("auto.leader.rebalance.enable");
    }

    public int leaderImbalancePerBrokerPercentage() {
        return v.getInt("leader.imbalance.per.broker.percentage");
    }

    public long leaderImbalanceCheckIntervalSeconds() {
        return v.getLong("leader.imbalance.check.interval.seconds");
    }

    public boolean uncleanLeaderElectionEnable() {
        return v.getBoolean("unclean.leader.election.enable");
    }

    public int controllerSocketTimeoutMs() {
        return v.getInt("controller.socket.timeout.ms");
    }

    public boolean controlledShutdownEnable() {
        return v.getBoolean("controlled.shutdown.enable");
    }

    public int controlledShutdownMaxRetries() {
        return v.getInt("controlled.shutdown.max.retries");
    }

    public long controlledShutdownRetryBackoffMs() {
        return v.getLong("controlled.shutdown.retry.backoff.ms");
    }
}
