package io.krill.log;

import io.krill.wire.error.Errors;

/**
 * The log directory holding this partition failed with an I/O error (or was already marked offline); the
 * partition refuses reads and appends until the broker moves it. Maps to {@code KAFKA_STORAGE_ERROR}.
 */
public final class KafkaStorageException extends LogException {
    private static final long serialVersionUID = 1L;

    public KafkaStorageException(String message) {
        super(message);
    }

    public KafkaStorageException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public Errors error() {
        return Errors.KAFKA_STORAGE_ERROR;
    }
}
