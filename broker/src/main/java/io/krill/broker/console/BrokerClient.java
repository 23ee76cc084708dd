package io.krill.broker.console;

import io.krill.broker.security.InterBrokerChannel;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The console's Kafka client: sends one request to one broker (this one included, through its own
 * inter-broker listener, as the dead-letter writer does) and reads the answer, on a small pool of
 * {@code console-client-<node>-<i>} threads, over blocking {@link InterBrokerChannel}s kept per broker
 * (at most {@value #IDLE_PER_BROKER} idle ones each). The console's HTTP threads only wait on the
 * futures, each bounded by its deadline, so a slow or dead broker costs a partial answer, never a hung
 * HTTP thread; the client threads themselves are bounded by the channels' socket timeout.
 *
 * <p>An {@link InterBrokerChannel} reuses its response buffer, so the caller's {@link Reader} runs on the
 * client thread while the channel is still held: what it returns must not refer to the response's record
 * slices.
 *
 * <p>Thread-safety: thread-safe; the idle channels sit in concurrent deques, and a channel is used by one
 * thread at a time (taken from its deque for the call).
 */
public final class BrokerClient implements AutoCloseable {
    static final int IDLE_PER_BROKER = 2;
    private static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
    private static final int QUEUE = 256;

    /** Reads what the caller needs from a response, while its buffer is valid. */
    @FunctionalInterface
    public interface Reader<T extends ApiMessage, R> {
        R read(T response);
    }

    private record Idle(InetSocketAddress address, InterBrokerChannel channel) {
    }

    private final int nodeId;
    private final Supplier<MetadataImage> image;
    private final String listenerName;
    private final InterBrokerConnector connector;
    private final int timeoutMs;
    private final ThreadPoolExecutor executor;
    private final Map<Integer, Deque<Idle>> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param listenerName the inter-broker listener (where every broker is reached)
     * @param timeoutMs    connect timeout and the longest wait for one answer
     * @param threads      the most requests in flight at once
     */
    public BrokerClient(int nodeId, Supplier<MetadataImage> image, String listenerName, InterBrokerConnector connector,
                        int timeoutMs, int threads) {
        this.nodeId = nodeId;
        this.image = image;
        this.listenerName = listenerName;
        this.connector = connector;
        this.timeoutMs = timeoutMs;
        AtomicInteger count = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                runnable -> {
                    Thread thread = new Thread(runnable, "console-client-" + nodeId + "-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        this.executor.allowCoreThreadTimeOut(true);
    }

    public int timeoutMs() {
        return timeoutMs;
    }

    public int nodeId() {
        return nodeId;
    }

    /**
     * Sends {@code body} to {@code brokerId} and reads the answer with {@code reader}. The future fails with
     * an {@link IOException} (connection, timeout, unknown broker) or what the reader threw; never blocks.
     */
    public <T extends ApiMessage, R> CompletableFuture<R> call(int brokerId, ApiKeys api, short version,
                                                               ApiMessage body, Reader<T, R> reader) {
        CompletableFuture<R> future = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    future.complete(callNow(brokerId, api, version, body, reader));
                } catch (IOException | RuntimeException e) {
                    future.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(new IOException("the console's client is busy or stopped"));
        }
        return future;
    }

    private <T extends ApiMessage, R> R callNow(int brokerId, ApiKeys api, short version, ApiMessage body,
                                                Reader<T, R> reader) throws IOException {
        if (closed) {
            throw new IOException("the console's client is stopped");
        }
        InetSocketAddress address = address(brokerId);
        Deque<Idle> deque = idle.computeIfAbsent(brokerId, id -> new ConcurrentLinkedDeque<>());
        Idle held = deque.pollFirst();
        while (held != null && !held.address().equals(address)) {
            held.channel().close();
            held = deque.pollFirst();
        }
        InterBrokerChannel channel = held != null ? held.channel()
                : InterBrokerChannel.connect(connector, address, timeoutMs, 0, "krill-console-" + nodeId,
                        MAX_RESPONSE_BYTES);
        boolean reusable = false;
        try {
            T response = channel.call(api, version, body);
            R result = reader.read(response);
            reusable = true;
            return result;
        } finally {
            if (reusable && !closed && deque.size() < IDLE_PER_BROKER) {
                deque.addFirst(new Idle(address, channel));
            } else {
                channel.close();
            }
        }
    }

    private InetSocketAddress address(int brokerId) throws IOException {
        MetadataImage current = image.get();
        BrokerInfo broker = current == null ? null : current.broker(brokerId);
        if (broker == null) {
            throw new IOException("broker " + brokerId + " is not alive");
        }
        BrokerInfo.Endpoint endpoint = broker.endpoint(listenerName);
        if (endpoint == null) {
            throw new IOException("broker " + brokerId + " has no endpoint on " + listenerName);
        }
        return new InetSocketAddress(endpoint.host(), endpoint.port());
    }

    /** Stops the threads (a call in progress ends with its socket) and closes the idle channels. */
    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        idle.values().forEach(deque -> {
            for (Idle i = deque.pollFirst(); i != null; i = deque.pollFirst()) {
                i.channel().close();
            }
        });
    }
}
