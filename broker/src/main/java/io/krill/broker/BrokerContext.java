package io.krill.broker;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.metrics.BrokerMetrics;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.purgatory.DelayedOperationPurgatory;
import io.krill.broker.replication.IsrChanger;
import io.krill.controller.metadata.MetadataStore;
import io.krill.log.TopicPartition;

/**
 * What request handlers share: configuration, cluster metadata, hosted partitions, the purgatories
 * of waiting requests, the metrics and the ISR changer (followers reaching the ISR are reported by Fetch). One object instead of a dozen constructor arguments. Immutable; its parts are
 * thread-safe.
 */
public record BrokerContext(BrokerConfig config, MetadataStore metadata, PartitionManager partitions,
                            DelayedOperationPurgatory<TopicPartition> producePurgatory,
                            DelayedOperationPurgatory<TopicPartition> fetchPurgatory, BrokerMetrics metrics,
                            IsrChanger isrChanger) {

    public int nodeId() {
        return config.nodeId();
    }
}
