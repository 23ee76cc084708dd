package io.krill.wire.record;

/**
 * A record batch that fails validation: bad length, magic, CRC or inner structure. Maps to the wire
 * error CORRUPT_MESSAGE (or INVALID_RECORD where the protocol says so). Thrown, never returned, because
 * corruption is not an expected outcome of a well-behaved peer.
 */
public final class CorruptRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptRecordException(String message) {
        super(message, null, false, false);
    }

    public CorruptRecordException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
