package io.krill.controller.metadata;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Objects;

/**
 * The outcome of one item of a batch operation (one partition of an election or a reassignment):
 * {@link #NONE} for success, otherwise Kafka's error code and a message for the client. Batch
 * operations return these instead of throwing, because one request mixes items that succeed and items
 * that fail. Immutable.
 */
public record ApiError(Errors error, String message) {
    public static final ApiError NONE = new ApiError(Errors.NONE, null);

    public ApiError {
        Objects.requireNonNull(error, "error");
    }

    public static ApiError of(ApiException failure) {
        return new ApiError(failure.error(), failure.getMessage());
    }

    public boolean isSuccess() {
        return error == Errors.NONE;
    }
}
