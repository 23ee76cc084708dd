package io.krill.log;

import io.krill.wire.error.Errors;

/** A batch larger than {@code segment.bytes} can never be stored. Maps to {@code RECORD_LIST_TOO_LARGE}, as Kafka answers it (the Java client throws {@code RecordBatchTooLargeException}). */
public final class RecordBatchTooLargeException extends LogException {
    private static final long serialVersionUID = 1L;

    public RecordBatchTooLargeException(String message) {
        super(message);
    }

    @Override
    public Errors error() {
        return Errors.RECORD_LIST_TOO_LARGE;
    }
}
