package io.krill.broker.config;

/** Typed view of the transaction coordinator and producer-id keys. Immutable and thread-safe. */
public final class TransactionSettings {
    private final ConfigValues v;

    TransactionSettings(ConfigValues v) {
        this.v = v;
    }

    public int transactionalIdExpirationMs() {
        return v.getInt("transactional.id.expiration.ms");
    }

    public int maxTimeoutMs() {
        return v.getInt("transaction.max.timeout.ms");
    }

    public int stateLogMinIsr() {
        return v.getInt("transaction.state.log.min.isr");
    }

    public int stateLogLoadBufferSize() {
        return v.getInt("transaction.state.log.load.buffer.size");
    }

    public int stateLogNumPartitions() {
        return v.getInt("transaction.state.log.num.partitions");
    }

    public int stateLogSegmentBytes() {
        return v.getInt("transaction.state.log.segment.bytes");
    }

    public short stateLogReplicationFactor() {
        return v.getShort("transaction.state.log.replication.factor");
    }

    public int abortTimedOutTransactionCleanupIntervalMs() {
        return v.getInt("transaction.abort.timed.out.transaction.cleanup.interval.ms");
    }

    public int removeExpiredTransactionalIdCleanupIntervalMs() {
        return v.getInt("transaction.remove.expired.transaction.cleanup.interval.ms");
    }

    public boolean partitionVerificationEnable() {
        return v.getBoolean("transaction.partition.verification.enable");
    }

    public int producerIdExpirationMs() {
        return v.getInt("producer.id.expiration.ms");
    }

    public int producerIdExpirationCheckIntervalMs() {
        return v.getInt("producer.id.expiration.check.interval.ms");
    }
}
