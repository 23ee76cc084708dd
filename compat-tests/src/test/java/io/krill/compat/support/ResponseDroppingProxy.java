package io.krill.compat.support;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A loopback TCP proxy in front of a broker that loses answers, not requests: it forwards Kafka frames
 * both ways and, for the produce responses {@code drop} picks (by their running number, from 1), closes
 * the connection instead of forwarding the response. The broker has appended the batch; the client sees
 * a dead connection and sends it again, which is what idempotence must absorb.
 *
 * <p>The broker must advertise the proxy's port, so that clients come back through it after bootstrap.
 * Threads: one acceptor and two pumps per connection, all daemons, stopped by {@link #close()}.
 */
public final class ResponseDroppingProxy implements AutoCloseable {
    private static final short PRODUCE = 0;

    private final ServerSocket server;
    private final IntPredicate drop;
    private final AtomicInteger produceResponses = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile int targetPort = -1;
    private volatile boolean closed;

    private ResponseDroppingProxy(IntPredicate drop) throws IOException {
        this.drop = drop;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "response-dropping-proxy");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    /** Listens on a free loopback port at once; connections are refused until {@link #target} is set. */
    public static ResponseDroppingProxy start(IntPredicate drop) {
        try {
            return new ResponseDroppingProxy(drop);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The broker's port on loopback. */
    public void target(int port) {
        this.targetPort = port;
    }

    /** Produce responses dropped so far. */
    public int dropped() {
        return dropped.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (targetPort < 0) {
                closeQuietly(client);
                continue;
            }
            Socket broker = new Socket();
            try {
                broker.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(broker);
                continue;
            }
            sockets.add(client);
            sockets.add(broker);
            Set<Integer> produceCorrelations = ConcurrentHashMap.newKeySet();
            start(() -> pumpRequests(client, broker, produceCorrelations));
            start(() -> pumpResponses(broker, client, produceCorrelations));
        }
    }

    private static void start(Runnable pump) {
        Thread thread = new Thread(pump, "response-dropping-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private void pumpRequests(Socket client, Socket broker, Set<Integer> produceCorrelations) {
        try {
            DataInputStream in = new DataInputStream(client.getInputStream());
            DataOutputStream out = new DataOutputStream(broker.getOutputStream());
            while (true) {
                byte[] frame = readFrame(in);
                if (frame.length >= 8) {
                    ByteBuffer header = ByteBuffer.wrap(frame);
                    if (header.getShort(0) == PRODUCE) {
                        produceCorrelations.add(header.getInt(4));
                    }
                }
                writeFrame(out, frame);
            }
        } catch (IOException e) {
            closePair(client, broker);
        }
    }

    private void pumpResponses(Socket broker, Socket client, Set<Integer> produceCorrelations) {
        try {
            DataInputStream in = new DataInputStream(broker.getInputStream());
            DataOutputStream out = new DataOutputStream(client.getOutputStream());
            while (true) {
                byte[] frame = readFrame(in);
                if (frame.length >= 4 && produceCorrelations.remove(ByteBuffer.wrap(frame).getInt(0))
                        && drop.test(produceResponses.incrementAndGet())) {
                    dropped.incrementAndGet();
                    closePair(client, broker);
                    return;
                }
                writeFrame(out, frame);
            }
        } catch (IOException e) {
            closePair(client, broker);
        }
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        int size = in.readInt();
        if (size < 0 || size > 64 * 1024 * 1024) {
            throw new IOException("frame of " + size + " bytes");
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        return frame;
    }

    private static void writeFrame(DataOutputStream out, byte[] frame) throws IOException {
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
    }

    private void closePair(Socket a, Socket b) {
        closeQuietly(a);
        closeQuietly(b);
        sockets.remove(a);
        sockets.remove(b);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the connection is being dropped anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // stopping
        }
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
