package io.krill.compat.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers that a test starts in another process, where the port must be chosen before the server
 * binds it.
 *
 * <p>Why not {@code new ServerSocket(0)}: the kernel hands out a port of the ephemeral range, the same range
 * every outgoing connection's local port comes from. Between the probe closing and the broker binding (seconds,
 * with a JVM to start), a client connection on this busy machine may take it, and the broker dies with
 * "Address already in use". Ports below the ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range})
 * are never given to outgoing connections, so only another server can take them; this JVM never hands out the
 * same port twice, and the random start keeps concurrent test JVMs apart.
 *
 * <p>Thread-safe: {@link #next()} is synchronized.
 */
public final class FreePorts {

    private static final int LOWEST = 20_000;
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private FreePorts() {
    }

    /** A port no outgoing connection can take, bindable on every address now, not handed out before here. */
    public static synchronized int next() {
        int below = ephemeralRangeStart();
        int span = below - LOWEST;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            int port = LOWEST + (start + i) % span;
            if (!HANDED_OUT.contains(port) && bindable(port)) {
                HANDED_OUT.add(port);
                return port;
            }
        }
        throw new IllegalStateException("no free port in [" + LOWEST + ", " + below + ")");
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int ephemeralRangeStart() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return low > LOWEST + 1_000 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
