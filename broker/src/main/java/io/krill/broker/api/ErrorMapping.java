package io.krill.broker.api;

import io.krill.log.LogException;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.CorruptRecordException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one table from exceptions to wire error codes: typed outcomes map to their code without a log
 * line; anything else is a bug, logged with its stack trace and answered UNKNOWN_SERVER_ERROR.
 * Stateless; thread-safe.
 */
public final class ErrorMapping {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapping.class);

    private ErrorMapping() {
    }

    public static Errors toError(Throwable error, Object context) {
        if (error instanceof ApiException api) {
            return api.error();
        }
        if (error instanceof LogException log) {
            return log.error();
        }
        if (error instanceof CorruptRecordException) {
            return Errors.CORRUPT_MESSAGE;
        }
        LOG.error("Unexpected error handling {}", context, error);
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /**
     * The text a client may be sent with {@code error}'s code: a typed outcome's message; nothing of an
     * unexpected exception's (a bug's text names internals; {@link #toError} logs it with its stack trace).
     */
    public static String clientMessage(Throwable error) {
        return error instanceof ApiException || error instanceof LogException || error instanceof CorruptRecordException
                ? error.getMessage() : null;
    }
}
