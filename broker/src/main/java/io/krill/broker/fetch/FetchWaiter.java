package io.krill.broker.fetch;

import io.krill.log.TopicPartition;

/** A fetch parked in its session until one of the session's partitions changes (or its deadline). */
public interface FetchWaiter {
    /** {@code tp}, a partition of the session, changed; called on the thread that changed it. */
    void partitionChanged(TopicPartition tp);
}
