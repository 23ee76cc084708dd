package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.krill.controller.metadata.BrokerInfo;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The crash probe against real sockets on loopback. */
@Timeout(60)
class CrashProbeTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static BrokerInfo broker(int id, int port) {
        return new BrokerInfo(id, null, Map.of("INTERNAL", new BrokerInfo.Endpoint("INTERNAL", "127.0.0.1", port)));
    }

    private static ServerSocket listen(int port) throws Exception {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return socket;
    }

    @Test
    void aBrokerThatStopsListeningIsCrashedUntilItListensAgain() throws Exception {
        AtomicInteger changes = new AtomicInteger();
        ServerSocket listener = listen(0);
        int port = listener.getLocalPort();
        try (CrashProbe probe = new CrashProbe(1, "INTERNAL", changes::incrementAndGet)) {
            probe.update(List.of(broker(1, 1), broker(2, port)));
            // the probe connects; then the process "dies": its connections and its listener close
            Socket accepted = accept(listener);
            accepted.close();
            listener.close();
            await().atMost(PATIENCE).until(() -> probe.crashed(2));
            assertEquals(Set.of(2), probe.crashed());
            await().atMost(PATIENCE).until(() -> changes.get() == 1); // the listener runs just after

            // it restarts on the same address: alive again
            try (ServerSocket again = listen(port)) {
                await().atMost(PATIENCE).until(() -> !probe.crashed(2) && changes.get() == 2);
            }
        } finally {
            listener.close();
        }
    }

    @Test
    void anAddressNeverReachedIsNeverSuspected() throws Exception {
        int port;
        try (ServerSocket unused = listen(0)) {
            port = unused.getLocalPort(); // free once closed: connections to it are refused
        }
        AtomicInteger changes = new AtomicInteger();
        try (CrashProbe probe = new CrashProbe(1, "INTERNAL", changes::incrementAndGet)) {
            probe.update(List.of(broker(2, port)));
            // refused again and again (every RETRY_MS) for two seconds, and still not suspected
            await().during(Duration.ofSeconds(2)).atMost(PATIENCE).until(() -> !probe.crashed(2));
            assertEquals(0, changes.get());
        }
    }

    @Test
    void aBrokerThatLeavesTheLiveSetIsForgotten() throws Exception {
        AtomicInteger changes = new AtomicInteger();
        ServerSocket listener = listen(0);
        try (CrashProbe probe = new CrashProbe(1, "INTERNAL", changes::incrementAndGet)) {
            probe.update(List.of(broker(2, listener.getLocalPort())));
            accept(listener).close();
            listener.close();
            await().atMost(PATIENCE).until(() -> probe.crashed(2));
            probe.update(List.of()); // its session expired
            await().atMost(PATIENCE).until(() -> !probe.crashed(2) && changes.get() == 2);
        } finally {
            listener.close();
        }
    }

    @Test
    void aBrokerWithoutTheListenerIsNotProbed() throws Exception {
        try (CrashProbe probe = new CrashProbe(1, "INTERNAL", () -> { })) {
            probe.update(List.of(new BrokerInfo(2, null, Map.of())));
            assertFalse(probe.crashed(2));
        }
    }

    /** The probe's connection. */
    private static Socket accept(ServerSocket listener) throws Exception {
        listener.setSoTimeout((int) PATIENCE.toMillis());
        return listener.accept();
    }
}
