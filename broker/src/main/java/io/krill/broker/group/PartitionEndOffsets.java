package io.krill.broker.group;

import java.util.concurrent.CompletableFuture;

/**
 * The end offset of a topic partition as a share group's lag counts it (Kafka: the partition's high
 * watermark, from its leader), for DescribeShareGroupOffsets v1. Implementations are thread-safe.
 */
@FunctionalInterface
public interface PartitionEndOffsets {
    /** Unknown end offsets: every lag answers -1, as Kafka does when it cannot tell. */
    PartitionEndOffsets UNKNOWN = (topic, partition) -> CompletableFuture.completedFuture(-1L);

    /** The partition's end offset, or -1 when unknown; fails with the partition's error. */
    CompletableFuture<Long> endOffset(String topic, int partition);
}
