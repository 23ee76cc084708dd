package io.krill.controller.metadata;

import java.util.Objects;

/**
 * One item of {@link MetadataStore#alterPartitions}: a leader's proposal to move a partition from
 * {@code expected} (the state it last saw) to {@code proposed} (the same leader and epoch, another ISR).
 * Immutable.
 */
public record IsrChange(String topic, PartitionState expected, PartitionState proposed) {
    public IsrChange {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(proposed, "proposed");
    }
}
