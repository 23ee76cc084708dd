package io.krill.controller.cluster;

/**
 * ZooKeeper could not be reached within the operation timeout (connection lost, session being
 * renewed, or the calling thread interrupted). The store turns it into REQUEST_TIMED_OUT for clients.
 * Immutable.
 */
public final class ZkUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ZkUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
