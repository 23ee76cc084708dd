package io.krill.controller.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
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

    /**
     * Reads every path with all requests in flight at once (ZooKeeper answers a session's requests in
     * order, so N reads cost about one round trip instead of N): the data of {@code paths[i]} at index
     * i, null when there is no such node, its stat into {@code stats[i]}. Reads that fail on a lost
     * connection are sent again until the operation timeout, like {@link #call}.
     */
    byte[][] readAll(List<String> paths, Stat[] stats) {
        byte[][] data = new byte[paths.size()][];
        pipelined(paths, (handle, i, answer) -> handle.getData(paths.get(i), false, (rc, path, ctx, bytes, stat) -> {
            if (KeeperException.Code.get(rc) == KeeperException.Code.OK) {
                data[i] = bytes;
                copy(stat, stats[i]);
            }
            answer.accept(rc);
        }, null), KeeperException.Code.NONODE);
        return data;
    }

    /** Sends request {@code i} of a pipelined round; its callback must hand the result code to {@code answer}. */
    @FunctionalInterface
    private interface PipelinedRequest {
        void send(ZooKeeper handle, int i, java.util.function.IntConsumer answer);
    }

    /**
     * Sends one request per path with all of them in flight at once, and again those lost with the
     * connection, until the operation timeout. OK and {@code alsoFine} are answers; any other code is
     * thrown.
     */
    private void pipelined(List<String> paths, PipelinedRequest request, KeeperException.Code alsoFine) {
        int n = paths.size();
        List<Integer> pending = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            pending.add(i);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(operationTimeoutMs);
        while (!pending.isEmpty()) {
            ZooKeeper handle = handle();
            KeeperException.Code[] codes = new KeeperException.Code[n];
            CountDownLatch answered = new CountDownLatch(pending.size());
            for (int i : pending) {
                int index = i;
                request.send(handle, index, rc -> {
                    codes[index] = KeeperException.Code.get(rc);
                    answered.countDown();
                });
            }
            awaitAnswers(answered, deadline);
            List<Integer> retry = new ArrayList<>();
            for (int i : pending) {
                KeeperException.Code code = codes[i];
                if (code == KeeperException.Code.OK || code == alsoFine) {
                    continue;
                }
                if (!isRetriable(code)) {
                    throw unexpected(KeeperException.create(code, paths.get(i)));
                }
                retry.add(i);
            }
            if (!retry.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new ZkUnavailableException("ZooKeeper unavailable for " + operationTimeoutMs + " ms", null);
                }
                pause();
            }
            pending = retry;
        }
    }

    /**
     * Runs every multi-op with all of them in flight at once, and returns, per multi, null when it was
     * applied or the exception that failed it (its path is the op that failed).
     * A multi lost with the connection is reported as such (ConnectionLoss), not sent again: it may have
     * been applied, so the caller re-reads and decides. Only a timeout of the whole pipeline throws.
     */
    List<KeeperException> multiAll(List<List<Op>> multis) {
        List<CompletableFuture<List<OpResult>>> sent = new ArrayList<>(multis.size());
        for (List<Op> ops : multis) {
            sent.add(multiAsync(ops));
        }
        return awaitMultis(sent);
    }

    /**
     * Waits for multis sent with {@link #multiAsync}, within one operation timeout for them all.
     *
     * @return per multi, in order: null when it was applied, else the KeeperException that failed it
     * @throws ZkUnavailableException when ZooKeeper did not answer them all in time
     */
    List<KeeperException> awaitMultis(List<CompletableFuture<List<OpResult>>> sent) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(operationTimeoutMs);
        List<KeeperException> failures = new ArrayList<>(sent.size());
        for (CompletableFuture<List<OpResult>> future : sent) {
            try {
                future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                failures.add(null);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof KeeperException keeper) {
                    failures.add(keeper);
                } else {
                    throw new IllegalStateException(e.getCause());
                }
            } catch (TimeoutException e) {
                throw new ZkUnavailableException("ZooKeeper did not answer " + sent.size() + " multi-ops within "
                        + operationTimeoutMs + " ms", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ZkUnavailableException("interrupted while waiting for ZooKeeper", e);
            }
        }
        return failures;
    }

    /**
     * Sends one multi-op without waiting: the future completes on ZooKeeper's event thread (keep its
     * continuations short) with the results, or fails with the KeeperException (a lost connection
     * included: the multi may have been applied). Fails with {@link ZkUnavailableException} when closed.
     */
    CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        return sendAsync((handle, done) -> handle.multi(ops, (rc, path, ctx, results) ->
                answer(done, rc, results, failedPath(ops, results)), null));
    }

    /** A node's data and stat as one asynchronous read found them; {@code data} is null when there is no node. */
    record Versioned(byte[] data, Stat stat) {
    }

    /**
     * Reads one node without waiting: the future completes on ZooKeeper's event thread (keep its
     * continuations short) with the data and stat, null data when there is no such node, or fails with
     * the KeeperException (a lost connection included; not sent again) or {@link ZkUnavailableException}
     * when closed. A read answered after a change of the node comes after that change's watch event.
     */
    CompletableFuture<Versioned> readAsync(String path) {
        return sendAsync((handle, done) -> handle.getData(path, false, (rc, p, ctx, data, stat) -> {
            if (KeeperException.Code.get(rc) == KeeperException.Code.NONODE) {
                done.complete(new Versioned(null, null));
            } else {
                answer(done, rc, new Versioned(data, stat), path);
            }
        }, null));
    }

    /**
     * Sets a node's data if its version is still {@code version}, without waiting: completes on
     * ZooKeeper's event thread with the new stat, or fails with the KeeperException (BadVersion, NoNode, a
     * lost connection: the write may have been applied) or {@link ZkUnavailableException} when closed.
     */
    CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        return sendAsync((handle, done) -> handle.setData(path, data, version,
                (rc, p, ctx, stat) -> answer(done, rc, stat, path), null));
    }

    /**
     * Creates a persistent node without waiting: completes on ZooKeeper's event thread, or fails with the
     * KeeperException (NodeExists, NoNode for a missing parent, a lost connection: it may have been
     * created) or {@link ZkUnavailableException} when closed.
     */
    CompletableFuture<Void> createAsync(String path, byte[] data) {
        return sendAsync((handle, done) -> handle.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT, (rc, p, ctx, name) -> answer(done, rc, null, path), null));
    }

    /** Sends one asynchronous request on the current handle; a closed session fails the future at once. */
    private <T> CompletableFuture<T> sendAsync(java.util.function.BiConsumer<ZooKeeper, CompletableFuture<T>> send) {
        CompletableFuture<T> done = new CompletableFuture<>();
        try {
            send.accept(handle(), done);
        } catch (ZkUnavailableException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    /** Completes {@code done} with {@code value} when {@code rc} is OK, else with the KeeperException for {@code path}. */
    private static <T> void answer(CompletableFuture<T> done, int rc, T value, String path) {
        KeeperException.Code code = KeeperException.Code.get(rc);
        if (code == KeeperException.Code.OK) {
            done.complete(value);
        } else {
            done.completeExceptionally(KeeperException.create(code, path));
        }
    }

    /** The path of the op that failed a multi, for messages. */
    private static String failedPath(List<Op> ops, List<OpResult> results) {
        if (results != null) {
            for (int i = 0; i < results.size() && i < ops.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult error
                        && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()
                        && error.getErr() != KeeperException.Code.OK.intValue()) {
                    return ops.get(i).getPath();
                }
            }
        }
        return ops.isEmpty() ? null : ops.get(0).getPath();
    }

    /** Whether a multi failed only because another writer changed or removed one of its nodes. */
    static boolean isConflict(KeeperException e) {
        return e instanceof KeeperException.BadVersionException || e instanceof KeeperException.NoNodeException
                || e instanceof KeeperException.NodeExistsException || e instanceof KeeperException.NotEmptyException;
    }

    static boolean isRetriable(KeeperException.Code code) {
        return code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.SESSIONEXPIRED
                || code == KeeperException.Code.OPERATIONTIMEOUT || code == KeeperException.Code.SESSIONMOVED;
    }

    private ZooKeeper handle() {
        synchronized (lock) {
            if (closed) {
                throw new ZkUnavailableException("ZooKeeper session closed", null);
            }
            return zk;
        }
    }

    private void awaitAnswers(CountDownLatch answered, long deadline) {
        try {
            if (!answered.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new ZkUnavailableException("ZooKeeper unavailable for " + operationTimeoutMs + " ms", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkUnavailableException("interrupted while waiting for ZooKeeper", e);
        }
    }

    private static void copy(Stat from, Stat to) {
        if (to != null && from != null) {
            to.setCzxid(from.getCzxid());
            to.setMzxid(from.getMzxid());
            to.setCtime(from.getCtime());
            to.setMtime(from.getMtime());
            to.setVersion(from.getVersion());
            to.setCversion(from.getCversion());
            to.setAversion(from.getAversion());
            to.setEphemeralOwner(from.getEphemeralOwner());
            to.setDataLength(from.getDataLength());
            to.setNumChildren(from.getNumChildren());
            to.setPzxid(from.getPzxid());
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

    /**
     * Adds persistent (not recursive) watches on {@code paths}, all in flight at once: each tells of
     * its node's data changes, creation and deletion, and of changes to its list of children, but not of
     * its children's data. Idempotent; a node need not exist.
     */
    void watchAll(List<String> paths) {
        pipelined(paths, (handle, i, answer) -> handle.addWatch(paths.get(i), AddWatchMode.PERSISTENT,
                (rc, path, ctx) -> answer.accept(rc), null), KeeperException.Code.OK);
    }

    /**
     * Removes this session's persistent watch on {@code path} without waiting (a deleted topic's); one
     * that is already gone, or a lost connection (after which everything is watched and read again), is
     * fine.
     */
    void unwatchLater(String path) {
        try {
            handle().removeAllWatches(path, Watcher.WatcherType.Persistent, false, (rc, p, ctx) -> { }, null);
        } catch (RuntimeException e) {
            // not connected: the watch goes with the session or is re-added on the resync that follows
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
