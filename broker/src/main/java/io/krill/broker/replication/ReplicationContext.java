package io.krill.broker.replication;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ReplicationSettings;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.MetadataStore;

/**
 * What every replica fetcher reads: this broker's id, the metadata (to find leaders' endpoints), the
 * inter-broker listener, how to connect to it securely and the {@code replica.*} settings. Immutable.
 */
record ReplicationContext(int nodeId, MetadataStore metadata, String listenerName, int socketTimeoutMs,
                          int receiveBufferBytes, int fetchMaxBytes, int fetchWaitMaxMs, int fetchMinBytes,
                          int fetchResponseMaxBytes, int backoffMs, InterBrokerConnector connector) {

    static ReplicationContext of(BrokerConfig config, MetadataStore metadata, InterBrokerConnector connector) {
        ReplicationSettings r = config.replication();
        return new ReplicationContext(config.nodeId(), metadata, config.listeners().interBrokerListenerName(),
                r.replicaSocketTimeoutMs(), r.replicaSocketReceiveBufferBytes(), r.replicaFetchMaxBytes(),
                r.replicaFetchWaitMaxMs(), r.replicaFetchMinBytes(), r.replicaFetchResponseMaxBytes(),
                r.replicaFetchBackoffMs(), connector);
    }

    /** A response larger than this is not a Fetch answer this broker asked for. */
    int maxResponseBytes() {
        return Math.max(fetchResponseMaxBytes, fetchMaxBytes) + 16 * 1024 * 1024;
    }
}
