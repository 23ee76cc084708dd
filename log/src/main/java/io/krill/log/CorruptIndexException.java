package io.krill.log;

/** An index file that fails its sanity check; the segment rebuilds it from the log and retries. */
final class CorruptIndexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CorruptIndexException(String message) {
        super(message, null, false, false);
    }
}
