package io.krill.broker.partition;

import io.krill.log.TopicPartition;
import java.util.Collection;

/**
 * What the {@link PartitionManager} asks of the replica fetchers as metadata changes: stop fetching some
 * partitions before their role changes or their log goes, and follow exactly a given set afterwards
 * (leader and leader epoch read from each partition's state).
 *
 * <p>Implementations are thread-safe; both calls come from the metadata thread.
 */
public interface ReplicaFollowing {

    /** Returns once no fetcher touches these partitions any more. */
    void stopFollowing(Collection<TopicPartition> partitions);

    /** Fetches exactly these partitions, each from its current leader; starts each with truncation. */
    void follow(Collection<Partition> followed);

    /** A single node: nothing to follow. */
    ReplicaFollowing NONE = new ReplicaFollowing() {
        @Override
        public void stopFollowing(Collection<TopicPartition> partitions) {
        }

        @Override
        public void follow(Collection<Partition> followed) {
        }
    };
}
