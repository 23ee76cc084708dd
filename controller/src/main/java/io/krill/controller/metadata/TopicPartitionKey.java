package io.krill.controller.metadata;

import java.util.Objects;

/**
 * Names one partition of one topic in requests to the {@link MetadataStore} and in its answers. Immutable.
 */
public record TopicPartitionKey(String topic, int partition) {

    public TopicPartitionKey {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
