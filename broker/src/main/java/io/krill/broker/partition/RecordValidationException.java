package io.krill.broker.partition;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.List;

/**
 * A produced batch refused because of some of its records (KIP-467): the partition's error and message,
 * and per refused record its index in the batch and why, so that a client fails exactly those records
 * (the Java producer fails the others of the batch with a retriable-looking "part of a batch which had
 * invalid records" error).
 *
 * <p>Immutable.
 */
public final class RecordValidationException extends ApiException {
    /** How many record errors the partition's message quotes, as Kafka's. */
    private static final int QUOTED = 3;

    /** One refused record: its index in the batch and the reason. */
    public record RecordError(int batchIndex, String message) {
        @Override
        public String toString() {
            return "RecordError(batchIndex=" + batchIndex + ", message='" + message + "')";
        }
    }

    private final List<RecordError> recordErrors;

    RecordValidationException(Errors error, String message, List<RecordError> recordErrors) {
        super(error, message);
        this.recordErrors = List.copyOf(recordErrors);
    }

    /** INVALID_RECORD with Kafka's summary of the errors. */
    static RecordValidationException invalidRecords(List<RecordError> errors) {
        return new RecordValidationException(Errors.INVALID_RECORD, "One or more records have been rejected due to "
                + errors.size() + " record errors in total, and only showing the first three errors at most: "
                + errors.subList(0, Math.min(QUOTED, errors.size())), errors);
    }

    /** INVALID_TIMESTAMP, with Kafka's message. */
    static RecordValidationException invalidTimestamps(List<RecordError> errors) {
        return new RecordValidationException(Errors.INVALID_TIMESTAMP,
                "One or more records have been rejected due to invalid timestamp", errors);
    }

    public List<RecordError> recordErrors() {
        return recordErrors;
    }
}
