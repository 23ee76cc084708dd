package io.krill.broker;

import io.krill.controller.cluster.CoordinationWarmup;
import io.netty.channel.epoll.Epoll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up work taken off the main thread: on a daemon thread, loads what a start would otherwise
 * load in sequence on the critical path ({@link CoordinationWarmup}, then Netty's native epoll
 * transport, which unpacks and links a shared library). Main meanwhile parses the configuration and
 * starts ZooKeeper; it waits for a class only when it reaches one still being initialised here.
 * Started after logging is configured, so that nothing logged here is queued by SLF4J's
 * initialisation. Stateless.
 */
final class StartupWarmup {
    private static final Logger LOG = LoggerFactory.getLogger(StartupWarmup.class);

    private StartupWarmup() {
    }

    static void start() {
        Thread thread = new Thread(StartupWarmup::run, "krill-warmup");
        thread.setDaemon(true);
        thread.start();
    }

    private static void run() {
        try {
            CoordinationWarmup.run();
            Epoll.isAvailable();
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("start-up warm-up stopped early (the broker loads the rest when it needs it)", e);
        }
    }
}
