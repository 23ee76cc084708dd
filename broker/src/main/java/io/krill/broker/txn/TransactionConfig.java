package io.krill.broker.txn;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TransactionSettings;

/**
 * What the transaction coordinator is configured by (the broker keys each comes from are listed).
 * Immutable.
 *
 * @param stateLogNumPartitions         transaction.state.log.num.partitions
 * @param stateLogReplicationFactor     transaction.state.log.replication.factor (capped by the live brokers)
 * @param stateLogMinIsr                transaction.state.log.min.isr (capped by the replication factor)
 * @param stateLogSegmentBytes          transaction.state.log.segment.bytes
 * @param stateLogLoadBufferSize        transaction.state.log.load.buffer.size
 * @param maxTimeoutMs                  transaction.max.timeout.ms
 * @param transactionalIdExpirationMs   transactional.id.expiration.ms
 * @param abortTimedOutIntervalMs       transaction.abort.timed.out.transaction.cleanup.interval.ms
 * @param removeExpiredIntervalMs       transaction.remove.expired.transaction.cleanup.interval.ms
 * @param partitionVerification         transaction.partition.verification.enable
 * @param requestTimeoutMs              request.timeout.ms: how long a state write or a marker write may
 *                                      wait for the in-sync replicas
 */
public record TransactionConfig(int stateLogNumPartitions, short stateLogReplicationFactor, int stateLogMinIsr,
                                int stateLogSegmentBytes, int stateLogLoadBufferSize, int maxTimeoutMs,
                                long transactionalIdExpirationMs, long abortTimedOutIntervalMs,
                                long removeExpiredIntervalMs, boolean partitionVerification, int requestTimeoutMs) {

    public static TransactionConfig from(BrokerConfig config) {
        TransactionSettings s = config.transaction();
        return new TransactionConfig(s.stateLogNumPartitions(), s.stateLogReplicationFactor(), s.stateLogMinIsr(),
                s.stateLogSegmentBytes(), s.stateLogLoadBufferSize(), s.maxTimeoutMs(), s.transactionalIdExpirationMs(),
                s.abortTimedOutTransactionCleanupIntervalMs(), s.removeExpiredTransactionalIdCleanupIntervalMs(),
                s.partitionVerificationEnable(), config.socket().requestTimeoutMs());
    }
}
