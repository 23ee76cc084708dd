package io.krill.log;

import io.krill.wire.error.Errors;

/**
 * A follower append whose first offset is below the log end offset: the follower's log diverged or the
 * fetch raced a truncation. The replica fetcher decides (usually truncate and refetch). Maps to
 * {@code UNKNOWN_SERVER_ERROR} if it ever reaches a client.
 */
public final class UnexpectedAppendOffsetException extends LogException {
    private static final long serialVersionUID = 1L;

    private final long firstOffset;
    private final long logEndOffset;

    public UnexpectedAppendOffsetException(long firstOffset, long logEndOffset) {
        super("follower append starts at offset " + firstOffset + " below the log end offset " + logEndOffset);
        this.firstOffset = firstOffset;
        this.logEndOffset = logEndOffset;
    }

    public long firstOffset() {
        return firstOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    @Override
    public Errors error() {
        return Errors.UNKNOWN_SERVER_ERROR;
    }
}
