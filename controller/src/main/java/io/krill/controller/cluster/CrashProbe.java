package io.krill.controller.cluster;

import io.krill.controller.metadata.BrokerInfo;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that a broker's process is gone well before its ZooKeeper session expires: the active
 * controller keeps one idle TCP connection to each live broker's inter-broker listener, and when the
 * connection closes it connects again. A broker that accepted a connection before and now
 * <em>refuses</em> one has no process listening on that address: it crashed (kill -9, OOM) or is
 * closing its listener on the way out. Such a broker counts as dead in the controller's elections
 * ({@link LeaderController}) until it accepts connections again or its session expires, so its
 * leaderships move in about a second instead of {@code zookeeper.session.timeout.ms}.
 *
 * <p>Only a refusal counts. A paused or partitioned broker (no answer, a connect timeout) or a full
 * listen backlog looks alive here and is left to its session, as before; an address never reached
 * (a wrong advertised host, a firewall) is never suspected. Counting a live broker as dead is safe
 * anyway: it is exactly what an expired session does, and the partition records' compare-and-set
 * fences the old leader (docs/coordination.md, "Fast crash detection").
 *
 * <p>Thread-safety: one daemon thread, {@code krill-crash-probe-<id>}, owns the selector and every
 * connection; {@link #update} hands it the live brokers through an atomic reference; {@link #crashed}
 * reads a concurrent set; the listener runs on the probe thread.
 */
final class CrashProbe implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CrashProbe.class);
    /** How long a connect may take before the attempt counts as no answer (not a refusal). */
    static final long CONNECT_TIMEOUT_MS = 2_000;
    /** Pause between attempts to a broker that refuses or does not answer. */
    static final long RETRY_MS = 250;
    private static final long SELECT_MS = 100;

    private final int selfId;
    private final String listenerName;
    private final Runnable onChange;
    private final Selector selector;
    private final Thread thread;
    private final AtomicReference<Collection<BrokerInfo>> pendingLive = new AtomicReference<>();
    private final Set<Integer> crashed = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Peer> peers = new HashMap<>(); // probe thread only
    private final ByteBuffer discard = ByteBuffer.allocate(512); // probe thread only
    private volatile boolean closed;

    /**
     * @param listenerName the listener whose endpoint is probed on every broker (this broker's
     *                     inter-broker listener; brokers without it are not probed)
     * @param onChange     run on the probe thread when the set of crashed brokers changes
     */
    CrashProbe(int selfId, String listenerName, Runnable onChange) throws IOException {
        this.selfId = selfId;
        this.listenerName = Objects.requireNonNull(listenerName, "listenerName");
        this.onChange = onChange;
        this.selector = Selector.open();
        this.thread = new Thread(this::loop, "krill-crash-probe-" + selfId);
        thread.setDaemon(true);
        thread.start();
    }

    /** The live brokers now (from the metadata image); the probe connects to the new, drops the gone. */
    void update(Collection<BrokerInfo> live) {
        pendingLive.set(live);
        selector.wakeup();
    }

    /** Whether {@code nodeId} refused a connection after having accepted one, and has not since. */
    boolean crashed(int nodeId) {
        return crashed.contains(nodeId);
    }

    /** The brokers that {@link #crashed}, a snapshot. */
    Set<Integer> crashed() {
        return Set.copyOf(crashed);
    }

    @Override
    public void close() {
        closed = true;
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("closing the crash probe's selector", e);
        }
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        try {
            while (!closed) {
                Collection<BrokerInfo> live = pendingLive.getAndSet(null);
                if (live != null) {
                    reconcile(live);
                }
                long now = System.nanoTime();
                for (Peer peer : peers.values()) {
                    peer.tick(now);
                }
                selector.select(SELECT_MS);
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    ((Peer) key.attachment()).ready(key);
                }
            }
        } catch (ClosedSelectorException e) {
            // closed
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.error("broker {}: the crash probe stopped; dead brokers are noticed when their sessions expire",
                        selfId, e);
            }
        } finally {
            peers.values().forEach(Peer::disconnect);
            if (!crashed.isEmpty()) {
                crashed.clear();
            }
        }
    }

    private void reconcile(Collection<BrokerInfo> live) {
        Map<Integer, InetSocketAddress> wanted = new HashMap<>();
        for (BrokerInfo broker : live) {
            BrokerInfo.Endpoint endpoint = broker.endpoint(listenerName);
            if (broker.nodeId() != selfId && endpoint != null) {
                wanted.put(broker.nodeId(), InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port()));
            }
        }
        boolean changed = false;
        for (Iterator<Map.Entry<Integer, Peer>> it = peers.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Peer> entry = it.next();
            if (!entry.getValue().address.equals(wanted.get(entry.getKey()))) {
                entry.getValue().disconnect();
                it.remove();
                changed |= crashed.remove(entry.getKey());
            }
        }
        wanted.forEach((id, address) -> peers.computeIfAbsent(id, i -> new Peer(i, address)));
        if (changed) {
            onChange.run();
        }
    }

    /** One broker's connection. Probe thread only. */
    private final class Peer {
        final int nodeId;
        final InetSocketAddress address; // unresolved: resolved at each attempt
        SocketChannel channel;
        boolean reached; // accepted a connection since this broker (at this address) went live
        long nextAttemptNanos;
        long connectDeadlineNanos;
        long connectedAtNanos;

        Peer(int nodeId, InetSocketAddress address) {
            this.nodeId = nodeId;
            this.address = address;
        }

        void tick(long now) {
            if (channel == null && now - nextAttemptNanos >= 0) {
                connect(now);
            } else if (channel != null && channel.isConnectionPending() && now - connectDeadlineNanos >= 0) {
                disconnect(); // no answer: paused, partitioned or overloaded, which only the session decides
                retryLater(now);
            }
        }

        private void connect(long now) {
            InetSocketAddress resolved = new InetSocketAddress(address.getHostString(), address.getPort());
            if (resolved.isUnresolved()) {
                retryLater(now);
                return;
            }
            try {
                channel = SocketChannel.open();
                channel.configureBlocking(false);
                connectDeadlineNanos = now + CONNECT_TIMEOUT_MS * 1_000_000;
                if (channel.connect(resolved)) {
                    connected();
                    channel.register(selector, SelectionKey.OP_READ, this);
                } else {
                    channel.register(selector, SelectionKey.OP_CONNECT, this);
                }
            } catch (IOException e) {
                failed(e, now);
            }
        }

        void ready(SelectionKey key) {
            long now = System.nanoTime();
            boolean wasConnected = channel.isConnected();
            try {
                if (key.isConnectable()) {
                    if (channel.finishConnect()) { // false: still under way, ready again later
                        connected();
                        key.interestOps(SelectionKey.OP_READ);
                    }
                } else if (key.isReadable()) {
                    discard.clear();
                    if (channel.read(discard) < 0) {
                        closedByPeer(now);
                    }
                }
            } catch (IOException e) {
                if (wasConnected) {
                    closedByPeer(now); // reset
                } else {
                    failed(e, now);
                }
            }
        }

        private void connected() {
            reached = true;
            connectedAtNanos = System.nanoTime();
            if (crashed.remove(nodeId)) {
                LOG.info("broker {}: broker {} accepts connections on {} again", selfId, nodeId, where());
                onChange.run();
            }
        }

        /**
         * The broker closed or reset the connection (its exit, or its idle timeout): connect again now,
         * unless it closes them as soon as they open (a connection limit), which is retried at leisure.
         */
        private void closedByPeer(long now) {
            disconnect();
            nextAttemptNanos = now - connectedAtNanos >= 1_000_000_000L ? now : now + RETRY_MS * 1_000_000;
        }

        /**
         * A connect that failed: only ECONNREFUSED (nothing listens there) counts; a timeout, an
         * unreachable host or anything else is no answer, which only the session decides.
         */
        private void failed(IOException e, long now) {
            disconnect();
            retryLater(now);
            boolean refused = e instanceof ConnectException && e.getMessage() != null
                    && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("refused");
            if (refused && reached && crashed.add(nodeId)) {
                LOG.info("broker {}: broker {} refuses connections on {}: counted as dead without waiting for its"
                        + " ZooKeeper session to expire", selfId, nodeId, where());
                onChange.run();
            }
        }

        private String where() {
            return address.getHostString() + ":" + address.getPort();
        }

        private void retryLater(long now) {
            nextAttemptNanos = now + RETRY_MS * 1_000_000;
        }

        void disconnect() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    LOG.debug("closing the probe connection to broker {}", nodeId, e);
                }
                channel = null;
            }
        }
    }
}
