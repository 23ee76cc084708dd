package io.krill.broker.txn;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The transactional ids of one led partition of {@code __transaction_state}, at one coordinator epoch (the
 * partition's leader epoch when this broker came to lead it, stamped on the markers it writes). A new
 * leadership is a new shard, so work begun for an old one can tell it is stale by identity.
 *
 * <p>Thread-safety: {@link #txns} is concurrent; {@link #loaded} is set once, by the load, and read by
 * request threads.
 */
final class TransactionShard {
    final int partition;
    final int coordinatorEpoch;
    final Map<String, TransactionMetadata> txns = new ConcurrentHashMap<>();
    volatile boolean loaded;

    TransactionShard(int partition, int coordinatorEpoch) {
        this.partition = partition;
        this.coordinatorEpoch = coordinatorEpoch;
    }
}
