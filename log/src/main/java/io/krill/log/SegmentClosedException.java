package io.krill.log;

/** A segment was deleted or closed while an operation looked at it; readers retry on the current segments. */
final class SegmentClosedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SegmentClosedException(String what) {
        super(what + " is closed", null, false, false);
    }
}
