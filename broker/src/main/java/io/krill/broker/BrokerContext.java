package io.krill.broker;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.DynamicBrokerConfig;
import io.krill.broker.metrics.BrokerMetrics;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.purgatory.DelayedOperationPurgatory;
import io.krill.broker.replication.IsrChanger;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.MetadataStore;
import io.krill.log.TopicPartition;

/**
 * What request handlers share: configuration, cluster metadata, hosted partitions, the purgatories
 * of waiting requests, the metrics, the ISR changer (followers reaching the ISR are reported by Fetch) and
 * the request authorization. One object instead of a dozen constructor arguments. Immutable; its parts are
 * thread-safe.
 */
public record BrokerContext(DynamicBrokerConfig configs, MetadataStore metadata, PartitionManager partitions,
                            DelayedOperationPurgatory<TopicPartition> producePurgatory,
                            DelayedOperationPurgatory<TopicPartition> fetchPurgatory, BrokerMetrics metrics,
                            IsrChanger isrChanger, Authorization authorization) {

    /** A context without authorization (everything allowed). */
    public BrokerContext(DynamicBrokerConfig configs, MetadataStore metadata, PartitionManager partitions,
                         DelayedOperationPurgatory<TopicPartition> producePurgatory,
                         DelayedOperationPurgatory<TopicPartition> fetchPurgatory, BrokerMetrics metrics,
                         IsrChanger isrChanger) {
        this(configs, metadata, partitions, producePurgatory, fetchPurgatory, metrics, isrChanger,
                Authorization.ALLOW_ALL);
    }

    /** A context whose configuration never changes (tests, tools). */
    public BrokerContext(BrokerConfig config, MetadataStore metadata, PartitionManager partitions,
                         DelayedOperationPurgatory<TopicPartition> producePurgatory,
                         DelayedOperationPurgatory<TopicPartition> fetchPurgatory, BrokerMetrics metrics,
                         IsrChanger isrChanger) {
        this(new DynamicBrokerConfig(config), metadata, partitions, producePurgatory, fetchPurgatory, metrics,
                isrChanger);
    }

    /** The effective configuration now (static plus dynamic layers): read it once per request. */
    public BrokerConfig config() {
        return configs.current();
    }

    public int nodeId() {
        return configs.statics().nodeId();
    }
}
