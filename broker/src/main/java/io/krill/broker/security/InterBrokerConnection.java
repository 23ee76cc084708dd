package io.krill.broker.security;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * One authenticated connection to another broker, from {@link InterBrokerConnector}. When the peer gave
 * the SASL session a lifetime ({@code connections.max.reauth.ms}), {@link #maybeReauthenticate()}
 * re-authenticates on the same socket once 85% of it has passed, as Kafka's clients do, so that the
 * peer never closes the connection for an expired session.
 *
 * <p>Not thread-safe: used by the one thread that owns the connection, between requests.
 */
public final class InterBrokerConnection implements AutoCloseable {
    private final InterBrokerConnector connector;
    private final Socket socket;
    private final String clientId;
    /** System.nanoTime() at which to re-authenticate; 0 for never. */
    private long reauthenticateAtNanos;

    InterBrokerConnection(InterBrokerConnector connector, Socket socket, String clientId, long lifetimeMs) {
        this.connector = connector;
        this.socket = socket;
        this.clientId = clientId;
        schedule(lifetimeMs);
    }

    public Socket socket() {
        return socket;
    }

    /** Re-authenticates if the session is near its end. Call only with no request in flight. */
    public void maybeReauthenticate() throws IOException {
        if (reauthenticateAtNanos != 0 && System.nanoTime() - reauthenticateAtNanos >= 0) {
            schedule(connector.reauthenticate(socket, clientId));
        }
    }

    private void schedule(long lifetimeMs) {
        if (lifetimeMs <= 0) {
            reauthenticateAtNanos = 0;
            return;
        }
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lifetimeMs * 85 / 100);
        reauthenticateAtNanos = at == 0 ? 1 : at;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
