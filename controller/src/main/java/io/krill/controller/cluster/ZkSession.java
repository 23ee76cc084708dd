package io.krill.controller.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Krill's own ZooKeeper session, for its metadata reads, writes and watches (Helix keeps a separate
 * session for liveness and leadership). A plain ZooKeeper handle rather than Helix's ZkClient,
 * because Helix's client blocks until reconnected while Krill wants an operation to fail after a
 * bounded time, and because persistent recursive watches (ZooKeeper 3.6+) cover a whole subtree.
 *
 * <p>Renews an expired session with a new handle. Operations that fail on a lost connection are
 * retried until the operation timeout, then fail with {@link ZkUnavailableException}; a write that
 * was retried may have been applied the first time, so callers of non-idempotent writes check the
 * outcome (see the store).
 *
 * <p>Thread-safe: the handle is swapped under {@link #lock}; operations run on any thread. The
 * {@link Listener} is called on ZooKeeper's event thread.
 */
final class ZkSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ZkSession.class);
    private static final long RETRY_PAUSE_MS = 50;

    /** Told of the session's events on ZooKeeper's event thread: must be quick. */
    interface Listener {
        /** Connected; {@code newSession} when this is a new session (the first, or after an expiry). */
        void onConnected(boolean newSession);

        void onDisconnected();

        void onExpired();

        /** A change under a watched path. */
        void onNodeEvent(WatchedEvent event);
    }

    /** One ZooKeeper call. */
    @FunctionalInterface
    interface Operation<T> {
        T apply(ZooKeeper zk) throws KeeperException, InterruptedException;
    }

    private final String connectString;
    private final int sessionTimeoutMs;
    private final long operationTimeoutMs;
    private final Listener listener;
    private final Object lock = new Object();
    private ZooKeeper zk;
    private int generation;
    private boolean closed;
    private volatile boolean connected;
    /** Notified when {@link #connected} turns true, for {@link #awaitConnected}. */
    private final Object connectedSignal = new Object();

    ZkSession(String connectString, int sessionTimeoutMs, long operationTimeoutMs, Listener listener) {
        this.connectString = connectString;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.operationTimeoutMs = operationTimeoutMs;
        this.listener = listener;
        synchronized (lock) {
            zk = newHandle(++generation);
        }
    }

    private ZooKeeper newHandle(int handleGeneration) {
        try {
            return new ZooKeeper(connectString, sessionTimeoutMs, new HandleWatcher(handleGeneration));
        } catch (IOException e) {
            throw new IllegalArgumentException("bad ZooKeeper connect string " + connectString, e);
        }
    }

    /** Waits until the session is connected. */
    void awaitConnected(long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (connectedSignal) {
            while (!connected) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new ZkUnavailableException("could not connect to ZooKeeper at " + connectString + " within "
                            + timeoutMs + " ms", null);
                }
                try {
                    connectedSignal.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ZkUnavailableException("interrupted while waiting for ZooKeeper", e);
                }
            }
        }
    }

    boolean isConnected() {
        return connected;
    }

    long sessionId() {
        synchronized (lock) {
            return zk.getSessionId();
        }
    }

    /**
     * Runs {@code operation}, retrying it while the connection is lost or the session is being
     * renewed, until the operation timeout. Other ZooKeeper errors are thrown to the caller.
     */
    <T> T call(Operation<T> operation) throws KeeperException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(operationTimeoutMs);
        while (true) {
            ZooKeeper handle;
            synchronized (lock) {
                if (closed) {
                    throw new ZkUnavailableException("ZooKeeper session closed", null);
                }
                handle = zk;
            }
            try {
                return operation.apply(handle);
            } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException
                     | KeeperException.OperationTimeoutException | KeeperException.SessionMovedException e) {
                if (System.nanoTime() > deadline) {
                    throw new ZkUnavailableException("ZooKeeper unavailable for " + operationTimeoutMs + " ms", e);
                }
                pause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ZkUnavailableException("interrupted while waiting for ZooKeeper", e);
            }
        }
    }

    /** The data of {@code path} (and its stat into {@code stat}), or null when there is no such node. */
    byte[] readOrNull(String path, Stat stat) {
        try {
            return call(zk -> zk.getData(path, false, stat));
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (KeeperException e) {
            throw unexpected(e);
        }
    }

    /** The children of {@code path}, empty when there is no such node. */
    List<String> childrenOrEmpty(String path) {
        try {
            return call(zk -> zk.getChildren(path, false));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (KeeperException e) {
            throw unexpected(e);
        }
    }

    /** Creates {@code path} and any missing parents as empty persistent nodes. */
    void createPath(String path) {
        int next = 1;
        while (next > 0) {
            next = path.indexOf('/', next + 1);
            String prefix = next < 0 ? path : path.substring(0, next);
            try {
                call(zk -> zk.create(prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            } catch (KeeperException.NodeExistsException e) {
                // there already: fine
            } catch (KeeperException e) {
                throw unexpected(e);
            }
        }
    }

    /**
     * (Re-)adds persistent recursive watches on {@code paths} (idempotent). Called before every full
     * read of the tree: a watch added first and a read after it miss no change in between.
     */
    void watchRecursively(List<String> paths) {
        for (String path : paths) {
            try {
                call(zk -> {
                    zk.addWatch(path, AddWatchMode.PERSISTENT_RECURSIVE);
                    return null;
                });
            } catch (KeeperException e) {
                throw unexpected(e);
            }
        }
    }

    static IllegalStateException unexpected(KeeperException e) {
        return new IllegalStateException("unexpected ZooKeeper error on " + e.getPath() + ": " + e.code(), e);
    }

    @Override
    public void close() {
        ZooKeeper handle;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            connected = false;
            handle = zk;
        }
        try {
            handle.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void renew(int expiredGeneration) {
        ZooKeeper old;
        synchronized (lock) {
            if (closed || expiredGeneration != generation) {
                return;
            }
            old = zk;
            zk = newHandle(++generation);
        }
        LOG.info("ZooKeeper session 0x{} expired; opened a new session", Long.toHexString(old.getSessionId()));
        try {
            old.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean isCurrent(int handleGeneration) {
        synchronized (lock) {
            return !closed && handleGeneration == generation;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(RETRY_PAUSE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted while waiting for ZooKeeper", e);
        }
    }

    /**
     * Creates the chroot of {@code connectString} ({@code host:port,.../chroot}) if there is one:
     * ZooKeeper does not create it for a client.
     */
    static void ensureChroot(String connectString, long timeoutMs) {
        int slash = connectString.indexOf('/');
        if (slash < 0 || slash == connectString.length() - 1) {
            return;
        }
        String servers = connectString.substring(0, slash);
        String chroot = connectString.substring(slash);
        CountDownLatch connectedLatch = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(servers, (int) Math.max(timeoutMs, 1000), event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connectedLatch.countDown();
                }
            });
        } catch (IOException e) {
            throw new IllegalArgumentException("bad ZooKeeper connect string " + connectString, e);
        }
        try {
            if (!connectedLatch.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new ZkUnavailableException("could not connect to ZooKeeper at " + servers, null);
            }
            List<String> prefixes = new ArrayList<>();
            for (int next = chroot.indexOf('/', 1); ; next = chroot.indexOf('/', next + 1)) {
                prefixes.add(next < 0 ? chroot : chroot.substring(0, next));
                if (next < 0) {
                    break;
                }
            }
            for (String prefix : prefixes) {
                try {
                    zk.create(prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                } catch (KeeperException.NodeExistsException e) {
                    // there already: fine
                }
            }
        } catch (KeeperException e) {
            throw new ZkUnavailableException("cannot create ZooKeeper chroot " + chroot + ": " + e.code(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted while creating ZooKeeper chroot " + chroot, e);
        } finally {
            BackgroundClose.close("zookeeper-chroot", zk::close);
        }
    }

    /** Receives the events of one handle; those of a replaced handle are ignored. */
    private final class HandleWatcher implements Watcher {
        private final int handleGeneration;
        private boolean everConnected;

        HandleWatcher(int handleGeneration) {
            this.handleGeneration = handleGeneration;
        }

        @Override
        public void process(WatchedEvent event) {
            if (!isCurrent(handleGeneration)) {
                return;
            }
            if (event.getType() != Event.EventType.None) {
                listener.onNodeEvent(event);
                return;
            }
            switch (event.getState()) {
                case SyncConnected -> {
                    boolean newSession = !everConnected;
                    everConnected = true;
                    connected = true;
                    synchronized (connectedSignal) {
                        connectedSignal.notifyAll();
                    }
                    listener.onConnected(newSession);
                }
                case Disconnected -> {
                    connected = false;
                    listener.onDisconnected();
                }
                case Expired -> {
                    connected = false;
                    listener.onExpired();
                    renew(handleGeneration);
                }
                default -> LOG.debug("ZooKeeper state {}", event.getState());
            }
        }
    }
}
