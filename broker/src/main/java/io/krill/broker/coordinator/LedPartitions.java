package io.krill.broker.coordinator;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The partitions of a coordinator's internal topic ({@code __consumer_offsets}, {@code __transaction_state},
 * {@code __share_group_state}) that one broker leads in one metadata image, with their leader epochs. A
 * coordinator loads a partition it comes to lead and unloads one it no longer leads, or leads at another
 * epoch than the one it loaded (it may have missed writes of the leader in between). Immutable.
 *
 * @param partitionCount the topic's partitions, or -1 when the topic does not exist (yet)
 * @param epochs         partition to leader epoch, for the partitions this broker leads
 */
public record LedPartitions(int partitionCount, Map<Integer, Integer> epochs) {
    public LedPartitions {
        epochs = Collections.unmodifiableMap(epochs);
    }

    /** What {@code nodeId} leads of {@code topic} in {@code image}. */
    public static LedPartitions of(MetadataImage image, String topic, int nodeId) {
        TopicImage found = image.topic(topic);
        if (found == null) {
            return new LedPartitions(-1, Map.of());
        }
        Map<Integer, Integer> epochs = new HashMap<>();
        for (PartitionState state : found.partitions()) {
            if (state.leader() == nodeId) {
                epochs.put(state.partition(), state.leaderEpoch());
            }
        }
        return new LedPartitions(found.partitionCount(), epochs);
    }

    /** Whether {@code partition} is led here at {@code epoch}: a shard loaded at that epoch stays. */
    public boolean ledAt(int partition, int epoch) {
        Integer led = epochs.get(partition);
        return led != null && led == epoch;
    }

    /** Whether {@code partition} is led here, at whatever epoch. */
    public boolean led(int partition) {
        return epochs.containsKey(partition);
    }
}
