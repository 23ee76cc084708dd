package io.krill.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.krill.log.KafkaStorageException;
import io.krill.log.OffsetOutOfRangeException;
import io.krill.log.RecordBatchTooLargeException;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import org.junit.jupiter.api.Test;

/** Typed outcomes keep their code and text; a bug is UNKNOWN_SERVER_ERROR and its text stays in the log. */
class ErrorMappingTest {
    @Test
    void theLogsOutcomesMapToTheCodesKafkaAnswers() {
        assertEquals(Errors.RECORD_LIST_TOO_LARGE, ErrorMapping.toError(new RecordBatchTooLargeException("big"), "t"));
        assertEquals(Errors.KAFKA_STORAGE_ERROR, ErrorMapping.toError(new KafkaStorageException("disk", null), "t"));
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, ErrorMapping.toError(new OffsetOutOfRangeException(5, 0, 3, "fetch"), "t"));
        assertEquals(Errors.INVALID_REQUEST, ErrorMapping.toError(new ApiException(Errors.INVALID_REQUEST, "no"), "t"));
    }

    @Test
    void anUnexpectedExceptionsTextIsNotForTheClient() {
        IllegalStateException bug = new IllegalStateException("index 7 of segment /data/t-0/00000.log out of bounds");
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, ErrorMapping.toError(bug, "a test"));
        assertNull(ErrorMapping.clientMessage(bug));
        assertEquals("big", ErrorMapping.clientMessage(new RecordBatchTooLargeException("big")));
        assertEquals("no", ErrorMapping.clientMessage(new ApiException(Errors.INVALID_REQUEST, "no")));
    }
}
