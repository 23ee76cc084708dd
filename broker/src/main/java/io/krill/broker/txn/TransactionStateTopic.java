package io.krill.broker.txn;

import io.krill.broker.coordinator.InternalTopic;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;

/**
 * Creates {@code __transaction_state}: {@code transaction.state.log.num.partitions} partitions,
 * replication factor {@code transaction.state.log.replication.factor} capped by the live brokers (so one
 * node works, as for {@code __consumer_offsets}), {@code min.insync.replicas} from
 * {@code transaction.state.log.min.isr} capped by that replication factor (else a small cluster could
 * never write it), compacted, internal, segments of {@code transaction.state.log.segment.bytes}.
 * Stateless.
 */
public final class TransactionStateTopic {
    public static final String NAME = "__transaction_state";

    private TransactionStateTopic() {
    }

    /** The topic as it is created on first use: its replication factor bounded by the live brokers. */
    public static NewTopic spec(MetadataStore metadata, TransactionConfig config) {
        return new InternalTopic(NAME, config.stateLogNumPartitions(), config.stateLogReplicationFactor(),
                config.stateLogMinIsr(), "uncompressed", config.stateLogSegmentBytes()).spec(metadata);
    }

    /** The partition of {@code __transaction_state} that holds {@code transactionalId} (Kafka's hash). */
    public static int partitionFor(String transactionalId, int partitions) {
        int hash = transactionalId.hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }
}
