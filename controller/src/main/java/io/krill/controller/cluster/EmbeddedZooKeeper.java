package io.krill.controller.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.jmx.MBeanRegistry;
import org.apache.zookeeper.jmx.ZKMBeanInfo;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone ZooKeeper server inside the broker's JVM, bound to loopback only, with its snapshots
 * and transaction log in one folder: for a single-machine cluster and for tests, not for production
 * clusters (which run a ZooKeeper ensemble).
 *
 * <p>On start it closes the sessions of the previous run before it accepts connections: their
 * ephemeral nodes (a dead broker's live instance) would otherwise hold every participant back for a
 * session timeout plus 5 s. This is safe only because every client of an embedded server lives in
 * this JVM, so none of those sessions can still be in use; brokers in other processes must use a real
 * ensemble (or pass {@code closeStaleSessions = false}).
 *
 * <p>Durability: by default every transaction is fsynced before it is acknowledged, as a ZooKeeper
 * ensemble does. A broker that owns its single-node ZooKeeper may start it with {@code fsync = false}
 * (ZooKeeper's {@code forceSync=no}): writes then reach the operating system's page cache, not the disk,
 * before they are acknowledged. A crash of the process loses nothing (the kernel still writes the log
 * out); a power cut or kernel crash can lose the last seconds of metadata changes (topics created,
 * configs altered, leader epochs, the producer-id counter), the same window in which the partition logs,
 * which are not fsynced per write either, lose their newest records.
 *
 * <p>It registers no JMX beans (ZooKeeper's registry is process-wide; {@link #start} replaces it with one
 * that keeps nothing): the server's beans and one per client connection took tens of milliseconds of
 * every broker start, for an internal server nobody manages through JMX. Krill's own metrics, the
 * metadata store's included, are on {@code /metrics}.
 *
 * <p>Short session timeouts need a short tick: ZooKeeper grants between {@code minSessionTimeoutMs}
 * and {@code maxSessionTimeoutMs} and checks expiry once per tick.
 *
 * <p>Thread-safe: start and close once; the server runs on ZooKeeper's own threads.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    public static final int DEFAULT_TICK_MS = 200;
    private static final int MAX_SESSION_TIMEOUT_MS = 60_000;
    private static final long STALE_SESSION_WAIT_MS = 10_000;
    private static final String FORCE_SYNC_PROPERTY = "zookeeper.forceSync";
    private static final Object FORCE_SYNC_LOCK = new Object();

    private final FileTxnSnapLog txnLog;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory connections;
    private final int closedSessions;

    private EmbeddedZooKeeper(FileTxnSnapLog txnLog, ZooKeeperServer server, ServerCnxnFactory connections,
                              int closedSessions) {
        this.txnLog = txnLog;
        this.server = server;
        this.connections = connections;
        this.closedSessions = closedSessions;
    }

    /** Starts a server on {@code 127.0.0.1:port} (0 for any free port) with data in {@code dataDir}. */
    public static EmbeddedZooKeeper start(Path dataDir, int port) {
        return start(dataDir, port, DEFAULT_TICK_MS, true);
    }

    public static EmbeddedZooKeeper start(Path dataDir, int port, int tickTimeMs, boolean closeStaleSessions) {
        return start(dataDir, port, tickTimeMs, closeStaleSessions, true);
    }

    /** As {@link #start(Path, int, int, boolean)}; {@code fsync = false} acknowledges writes before they are on disk. */
    public static EmbeddedZooKeeper start(Path dataDir, int port, int tickTimeMs, boolean closeStaleSessions,
                                          boolean fsync) {
        long started = System.nanoTime();
        MBeanRegistry.setInstance(NoBeans.INSTANCE);
        FileTxnSnapLog txnLog = null;
        ZooKeeperServer server = null;
        try {
            Files.createDirectories(dataDir);
            txnLog = openTxnLog(dataDir, fsync);
            server = new ZooKeeperServer(txnLog, tickTimeMs, "");
            server.setMinSessionTimeout(2 * tickTimeMs);
            server.setMaxSessionTimeout(MAX_SESSION_TIMEOUT_MS);
            server.startdata();
            server.startup();
            int closed = closeStaleSessions ? closeStaleSessions(server) : 0;
            ServerCnxnFactory connections = ServerCnxnFactory.createFactory(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            connections.startup(server, false);
            EmbeddedZooKeeper zk = new EmbeddedZooKeeper(txnLog, server, connections, closed);
            LOG.info("embedded ZooKeeper on {} with data in {}{} ready in {} ms ({} stale session(s) closed)",
                    zk.connectString(), dataDir, fsync ? "" : " (no fsync)", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), closed);
            return zk;
        } catch (IOException e) {
            shutDown(server, txnLog);
            throw new UncheckedIOException("cannot start embedded ZooKeeper in " + dataDir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutDown(server, txnLog);
            throw new IllegalStateException("interrupted while starting embedded ZooKeeper", e);
        } catch (RuntimeException e) {
            shutDown(server, txnLog);
            throw e;
        }
    }

    /**
     * ZooKeeper's transaction log reads {@value #FORCE_SYNC_PROPERTY} once, when it is made, from a JVM-wide
     * property: set it for that moment only (serialised, so concurrent starts each get their own setting).
     */
    private static FileTxnSnapLog openTxnLog(Path dataDir, boolean fsync) throws IOException {
        synchronized (FORCE_SYNC_LOCK) {
            String previous = System.getProperty(FORCE_SYNC_PROPERTY);
            System.setProperty(FORCE_SYNC_PROPERTY, fsync ? "yes" : "no");
            try {
                return new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
            } finally {
                if (previous == null) {
                    System.clearProperty(FORCE_SYNC_PROPERTY);
                } else {
                    System.setProperty(FORCE_SYNC_PROPERTY, previous);
                }
            }
        }
    }

    /** Closes every session restored from disk (no client can connect yet) and waits until they are gone. */
    private static int closeStaleSessions(ZooKeeperServer server) throws InterruptedException {
        Set<Long> stale = new HashSet<>(server.getZKDatabase().getSessions());
        for (long sessionId : stale) {
            server.closeSession(sessionId);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STALE_SESSION_WAIT_MS);
        while (stale.stream().anyMatch(server.getZKDatabase().getSessionWithTimeOuts()::containsKey)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("stale ZooKeeper sessions still open after " + STALE_SESSION_WAIT_MS
                        + " ms");
            }
            Thread.sleep(10);
        }
        return stale.size();
    }

    /** {@code 127.0.0.1:<port>}, to which a chroot may be appended. */
    public String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    public int port() {
        return connections.getLocalPort();
    }

    /** How many sessions of a previous run were closed at start. */
    public int closedStaleSessions() {
        return closedSessions;
    }

    @Override
    public void close() {
        connections.shutdown();
        shutDown(server, txnLog);
    }

    private static void shutDown(ZooKeeperServer server, FileTxnSnapLog txnLog) {
        if (server != null) {
            server.shutdown(true);
        }
        if (txnLog != null) {
            try {
                txnLog.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close ZooKeeper transaction log", e);
            }
        }
    }

    /** ZooKeeper's JMX registry, keeping nothing (see the class comment). */
    private static final class NoBeans extends MBeanRegistry {
        static final NoBeans INSTANCE = new NoBeans();

        @Override
        public void register(ZKMBeanInfo bean, ZKMBeanInfo parent) {
            // no JMX beans for the embedded server
        }

        @Override
        public void unregister(ZKMBeanInfo bean) {
            // nothing was registered
        }
    }
}
