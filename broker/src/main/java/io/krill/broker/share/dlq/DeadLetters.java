package io.krill.broker.share.dlq;

import io.krill.log.TopicPartition;
import java.util.UUID;

/**
 * Consecutive offsets of one share-partition bound for its group's dead-letter topic: one dead-letter
 * record per offset of {@code [firstOffset, lastOffset]}. Immutable.
 *
 * @param groupId       the share group
 * @param source        the topic partition the records were archived in (its leader is this broker)
 * @param topicId       the source topic's id
 * @param deliveryCount how many times they were delivered ({@code __dlq.errors.delivery.count})
 * @param cause         why ({@code __dlq.errors.message})
 */
public record DeadLetters(String groupId, TopicPartition source, UUID topicId, long firstOffset, long lastOffset,
                          short deliveryCount, DeadLetterCause cause) {
    public DeadLetters {
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("empty range " + firstOffset + ".." + lastOffset);
        }
    }

    public long count() {
        return lastOffset - firstOffset + 1;
    }
}
