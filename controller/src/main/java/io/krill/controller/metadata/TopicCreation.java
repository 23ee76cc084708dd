package io.krill.controller.metadata;

import java.util.Objects;

/**
 * The outcome of one topic of {@link MetadataStore#createTopics}: the topic as created, or why not.
 * Immutable.
 *
 * @param topic the created topic as this broker's image shows it; null on failure
 * @param error {@link ApiError#NONE} on success
 */
public record TopicCreation(String name, TopicImage topic, ApiError error) {
    public TopicCreation {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(error, "error");
    }

    public static TopicCreation created(TopicImage topic) {
        return new TopicCreation(topic.name(), topic, ApiError.NONE);
    }

    public static TopicCreation failed(String name, ApiError error) {
        return new TopicCreation(name, null, error);
    }
}
