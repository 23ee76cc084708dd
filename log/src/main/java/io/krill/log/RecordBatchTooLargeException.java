package io.krill.log;

/** A batch larger than {@code segment.bytes} can never be stored. Maps to {@code RECORD_BATCH_TOO_LARGE}. */
public final class RecordBatchTooLargeException extends LogException {
    private static final long serialVersionUID = 1L;

    public RecordBatchTooLargeException(String message) {
        super(message);
    }

    @Override
    public String errorName() {
        return "RECORD_BATCH_TOO_LARGE";
    }
}
