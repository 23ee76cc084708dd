package io.krill.controller.cluster;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.Arrays;

/**
 * One topic in {@link TopicCache}, with the ZooKeeper modification zxids that order re-reads.
 *
 * <p>Not thread-safe: confined to the watcher's notification thread; its image is immutable.
 */
final class CachedTopic {
    final MetadataRecords.TopicRecord record;
    final long mzxid;
    final PartitionState[] partitions;
    final long[] partitionMzxids;
    private TopicImage image;

    CachedTopic(MetadataRecords.TopicRecord record, long mzxid, PartitionState[] partitions, long[] partitionMzxids) {
        this.record = record;
        this.mzxid = mzxid;
        this.partitions = partitions;
        this.partitionMzxids = partitionMzxids;
    }

    void setPartition(int partition, PartitionState state, long partitionMzxid) {
        partitions[partition] = state;
        partitionMzxids[partition] = partitionMzxid;
        image = null;
    }

    TopicImage image() {
        if (image == null) {
            image = new TopicImage(record.name(), record.id(), Arrays.asList(partitions), record.configs(),
                    record.internal());
        }
        return image;
    }
}
