package io.krill.controller.metadata;

import java.util.Objects;

/**
 * The outcome of one {@link IsrChange}: the state written, or the error (FENCED_LEADER_EPOCH,
 * INVALID_UPDATE_VERSION, INELIGIBLE_REPLICA, ...) after which the leader re-reads its image. Immutable.
 *
 * @param state the partition's new state; null on failure
 */
public record IsrChangeResult(IsrChange change, PartitionState state, ApiError error) {
    public IsrChangeResult {
        Objects.requireNonNull(change, "change");
        Objects.requireNonNull(error, "error");
    }
}
