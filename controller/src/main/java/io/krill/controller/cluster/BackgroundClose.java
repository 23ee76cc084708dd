package io.krill.controller.cluster;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a ZooKeeper client whose work is done on a short-lived daemon thread. Closing a session waits
 * for the server to end it (and Helix's clients for their event threads), 50-100 ms each on a busy
 * machine; start-up closes three such throw-away clients (the chroot's, and Helix admin clients) and
 * need not wait for any of them: nothing later depends on those sessions being gone.
 *
 * <p>Stateless; thread-safe.
 */
final class BackgroundClose {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundClose.class);

    /** Something to close that may be interrupted. */
    @FunctionalInterface
    interface Closing {
        void close() throws Exception;
    }

    private BackgroundClose() {
    }

    static void close(String what, Closing closing) {
        Thread thread = new Thread(() -> {
            try {
                closing.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed", what, e);
            }
        }, "krill-close-" + what);
        thread.setDaemon(true);
        thread.start();
    }
}
