package io.krill.log.checkpoint;

import java.io.IOException;

/** A checkpoint or snapshot file whose content does not parse; the caller decides to rebuild or fail. */
public final class CorruptCheckpointException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptCheckpointException(String message) {
        super(message);
    }

    public CorruptCheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
