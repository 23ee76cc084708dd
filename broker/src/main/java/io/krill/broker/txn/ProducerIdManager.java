package io.krill.broker.txn;

import io.krill.controller.metadata.MetadataStore;

/**
 * Hands out producer ids from blocks reserved in the metadata store, so ids are unique across the
 * cluster and restarts while a block costs one durable write per {@link #BLOCK_SIZE} ids. One per broker,
 * shared by idempotent producers (InitProducerId without a transactional id) and the transaction
 * coordinator.
 *
 * <p>Thread-safe: synchronized.
 */
public final class ProducerIdManager {
    static final int BLOCK_SIZE = 1000;

    private final MetadataStore store;
    private long next;
    private long end;

    public ProducerIdManager(MetadataStore store) {
        this.store = store;
    }

    /** The next unused producer id; may block on the metadata store when a block is used up. */
    public synchronized long nextProducerId() {
        if (next >= end) {
            next = store.allocateProducerIds(BLOCK_SIZE);
            end = next + BLOCK_SIZE;
        }
        return next++;
    }
}
