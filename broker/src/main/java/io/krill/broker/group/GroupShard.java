package io.krill.broker.group;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The groups of one led partition of {@code __consumer_offsets}.
 *
 * <p>Thread-safety: the group map is concurrent and {@code loaded} is volatile (set once, by the load on
 * the coordinator thread); each group is guarded by its own monitor.
 */
final class GroupShard {
    final int partition;
    final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    volatile boolean loaded;

    GroupShard(int partition) {
        this.partition = partition;
    }
}
