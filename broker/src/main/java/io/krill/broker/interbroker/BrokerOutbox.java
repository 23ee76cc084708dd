package io.krill.broker.interbroker;

import io.krill.broker.security.InterBrokerChannel;
import io.krill.broker.security.InterBrokerConnector;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Items on their way to other brokers: one queue per destination broker, drained by a thread of its own
 * ({@code <name>-to-<broker>}) that hands what it found to the owner's {@link Sender} as one batch, to send
 * as one request over a blocking {@link InterBrokerChannel} and wait for the answer. The transaction
 * coordinator's markers, the leaders' transaction verifications, the calls to other brokers' share
 * coordinators and the partition leaders' high watermarks of share groups' lags go this way: request threads and the coordinators only queue, and never wait on another broker.
 *
 * <p>A destination is replaced when its broker's address changes: the new one takes the old queue, and
 * items the old thread still had or put back after that are given to the owner's {@link Sender#leftOver}
 * once it stops (to route again or to fail), as are items still queued at {@link #close}.
 *
 * <p>Thread-safety: the destinations map is concurrent; each destination's queue is concurrent and its
 * channel belongs to its thread.
 *
 * @param <T> what is sent
 */
public final class BrokerOutbox<T> implements AutoCloseable {
    /** The owner's side, called on a destination's thread. */
    public interface Sender<T> {
        /**
         * Sends {@code batch} to {@code destination} (its {@link Destination#channel()} connects on first use;
         * on an I/O failure, {@link Destination#disconnect()} and answer the batch as failed); items that
         * cannot go in this request go back with {@link Destination#putBack}.
         */
        void send(Destination<T> destination, List<T> batch);

        /** Items a stopped destination did not send, or {@link #close} found queued. */
        void leftOver(List<T> items);
    }

    private final String name;
    private final InterBrokerConnector connector;
    private final int timeoutMs;
    private final int maxResponseBytes;
    private final int maxPerBatch;
    private final Sender<T> sender;
    private final Map<Integer, Destination<T>> destinations = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param name      the threads' and connections' name, e.g. {@code txn-verifier-1}
     * @param timeoutMs connect timeout and the longest wait for an answer
     */
    public BrokerOutbox(String name, InterBrokerConnector connector, int timeoutMs, int maxResponseBytes, int maxPerBatch,
                 Sender<T> sender) {
        this.name = name;
        this.connector = connector;
        this.timeoutMs = timeoutMs;
        this.maxResponseBytes = maxResponseBytes;
        this.maxPerBatch = maxPerBatch;
        this.sender = sender;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Queues {@code item} for the broker {@code brokerId} at {@code address}. */
    public void add(int brokerId, InetSocketAddress address, T item) {
        if (closed) {
            sender.leftOver(List.of(item));
            return;
        }
        destinations.compute(brokerId, (id, existing) -> {
            Destination<T> d = existing == null || !existing.address.equals(address) ? replace(existing, id, address)
                    : existing;
            d.queue.add(item);
            return d;
        });
        if (closed) {
            // close() may have drained the queues before this item reached one.
            List<T> left = new ArrayList<>();
            destinations.values().forEach(d -> d.queue.drainTo(left));
            if (!left.isEmpty()) {
                sender.leftOver(left);
            }
        }
    }

    private Destination<T> replace(Destination<T> old, int brokerId, InetSocketAddress address) {
        if (old != null) {
            old.stop();
        }
        Destination<T> d = new Destination<>(this, brokerId, address);
        if (old != null) {
            old.queue.drainTo(d.queue);
        }
        d.thread.start();
        return d;
    }

    /** Stops every destination's thread (waiting up to 5 s each); what is still queued goes to leftOver. */
    @Override
    public void close() {
        closed = true;
        List<Destination<T>> all = new ArrayList<>(destinations.values());
        destinations.clear();
        for (Destination<T> d : all) {
            d.stop();
        }
        for (Destination<T> d : all) {
            try {
                d.thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One broker's queue, its thread and its connection. */
    public static final class Destination<T> implements Runnable {
        private final BrokerOutbox<T> outbox;
        public final int brokerId;
        public final InetSocketAddress address;
        private final LinkedBlockingQueue<T> queue = new LinkedBlockingQueue<>();
        private final Thread thread;
        private volatile boolean running = true;
        private volatile InterBrokerChannel channel;

        private Destination(BrokerOutbox<T> outbox, int brokerId, InetSocketAddress address) {
            this.outbox = outbox;
            this.brokerId = brokerId;
            this.address = address;
            this.thread = new Thread(this, outbox.name + "-to-" + brokerId);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            while (running && !outbox.closed) {
                List<T> batch = new ArrayList<>();
                try {
                    T first = queue.poll(500, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, outbox.maxPerBatch - 1);
                } catch (InterruptedException e) {
                    break;
                }
                outbox.sender.send(this, batch);
            }
            disconnect();
            List<T> left = new ArrayList<>();
            queue.drainTo(left);
            if (!left.isEmpty()) {
                outbox.sender.leftOver(left);
            }
        }

        /** Items that wait for the next request. */
        public void putBack(Collection<T> items) {
            queue.addAll(items);
        }

        /** The connection to the broker, opened on first use. */
        public InterBrokerChannel channel() throws IOException {
            InterBrokerChannel current = channel;
            if (current == null) {
                current = InterBrokerChannel.connect(outbox.connector, address, outbox.timeoutMs, 0, outbox.name,
                        outbox.maxResponseBytes);
                channel = current;
                if (!running || outbox.closed) {
                    current.close();
                    throw new IOException(outbox.name + " stopped");
                }
            }
            return current;
        }

        public void disconnect() {
            InterBrokerChannel current = channel;
            channel = null;
            if (current != null) {
                current.close();
            }
        }

        private void stop() {
            running = false;
            disconnect();
            thread.interrupt();
        }
    }
}
