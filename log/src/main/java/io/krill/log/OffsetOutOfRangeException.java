package io.krill.log;

import io.krill.wire.error.Errors;

/**
 * A read or a log-start-offset change at an offset outside [log start offset, log end offset]. Carries
 * the bounds at the time so the broker can answer (and a follower reset). Maps to
 * {@code OFFSET_OUT_OF_RANGE}.
 */
public final class OffsetOutOfRangeException extends LogException {
    private static final long serialVersionUID = 1L;

    private final long requestedOffset;
    private final long logStartOffset;
    private final long logEndOffset;

    public OffsetOutOfRangeException(long requestedOffset, long logStartOffset, long logEndOffset, String what) {
        super(what + " offset " + requestedOffset + " is out of range [" + logStartOffset + ", " + logEndOffset + "]");
        this.requestedOffset = requestedOffset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    public long requestedOffset() {
        return requestedOffset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    @Override
    public Errors error() {
        return Errors.OFFSET_OUT_OF_RANGE;
    }
}
