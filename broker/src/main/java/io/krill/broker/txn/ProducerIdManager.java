package io.krill.broker.api.handlers;

import io.krill.controller.metadata.MetadataStore;

/**
 * Hands out producer ids from blocks reserved in the metadata store, so ids are unique across the
 * cluster and restarts while a block costs one durable write per {@link #BLOCK_SIZE} ids.
 *
 * <p>Thread-safe: synchronized.
 */
final class ProducerIdManager {
    static final int BLOCK_SIZE = 1000;

    private final MetadataStore store;
    private long next;
    private long end;

    ProducerIdManager(MetadataStore store) {
        this.store = store;
    }

    synchronized long nextProducerId() {
        if (next >= end) {
            next = store.allocateProducerIds(BLOCK_SIZE);
            end = next + BLOCK_SIZE;
        }
        return next++;
    }
}
