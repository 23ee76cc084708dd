package io.krill.broker.api;

import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.Session;
import io.krill.broker.security.authentication.SaslServerAuthenticator;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One decoded request and the means to answer it. Built by the network layer, handed to one
 * {@link ApiHandler}.
 *
 * <p>Thread-safe for {@link #respond}/{@link #noResponse} (the first call wins, later ones are a bug
 * and throw); the body belongs to the handler.
 */
public final class Request {
    private final RequestHeader header;
    private final ApiKeys api;
    private final ApiMessage body;
    private final Connection connection;
    private final ResponseChannel channel;
    private final long sequence;
    private final long receivedNanos;
    private final AtomicBoolean answered = new AtomicBoolean();
    private volatile int throttleTimeMs;

    /**
     * Who sent a request: the peer's address, the listener it connected to, and the connection's
     * security {@link Session} (principal), and on SASL listeners the connection's SASL state (null
     * elsewhere). The record is immutable; the session's principal may change
     * on re-authentication.
     */
    public record Connection(SocketAddress remoteAddress, String listenerName, String connectionId, Session session,
                             SaslServerAuthenticator sasl) {
        /** A connection without SASL (its session's principal is set by the transport, or ANONYMOUS). */
        public Connection(SocketAddress remoteAddress, String listenerName, String connectionId, Session session) {
            this(remoteAddress, listenerName, connectionId, session, null);
        }

        /** A PLAINTEXT connection (ANONYMOUS principal). */
        public Connection(SocketAddress remoteAddress, String listenerName, String connectionId) {
            this(remoteAddress, listenerName, connectionId,
                    new Session(remoteAddress, listenerName, SecurityProtocol.PLAINTEXT));
        }
    }

    public Request(RequestHeader header, ApiKeys api, ApiMessage body, Connection connection, ResponseChannel channel,
                   long sequence, long receivedNanos) {
        this.header = header;
        this.api = api;
        this.body = body;
        this.connection = connection;
        this.channel = channel;
        this.sequence = sequence;
        this.receivedNanos = receivedNanos;
    }

    public RequestHeader header() {
        return header;
    }

    public ApiKeys api() {
        return api;
    }

    public short version() {
        return header.requestApiVersion();
    }

    public String clientId() {
        return header.clientId();
    }

    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> T body() {
        return (T) body;
    }

    public Connection connection() {
        return connection;
    }

    public Session session() {
        return connection.session();
    }

    /** The principal the connection authenticated as (ANONYMOUS on PLAINTEXT). */
    public KafkaPrincipal principal() {
        return connection.session().principal();
    }

    /** Position of this request among its connection's requests; the order responses go out in. */
    public long sequence() {
        return sequence;
    }

    public long receivedNanos() {
        return receivedNanos;
    }

    /**
     * Throttles the client for {@code ms} after this request is answered (a quota was exceeded): the
     * response carries the time in {@code throttle_time_ms} and the connection is not read meanwhile.
     * The longest of several throttles wins. Call before answering.
     */
    public synchronized void throttle(int ms) {
        if (ms > throttleTimeMs) {
            throttleTimeMs = ms;
        }
    }

    /** The throttle time set by {@link #throttle}, 0 if none. */
    public int throttleTimeMs() {
        return throttleTimeMs;
    }

    /** Answers the request. Any thread; exactly once. */
    public void respond(ApiMessage response) {
        if (response == null) {
            throw new IllegalArgumentException("use noResponse() to answer with nothing");
        }
        answer(response);
    }

    /**
     * Runs {@code task} on this connection's request thread, after what it is doing (see
     * {@link ResponseChannel#execute}): for handlers that resume on another thread's answer.
     */
    public void execute(Runnable task) {
        channel.execute(task);
    }

    /** Runs {@code action} once this request's connection is closed (see {@link ResponseChannel#whenClosed}). */
    public void whenConnectionClosed(Runnable action) {
        channel.whenClosed(action);
    }

    /** Completes the request without a response (Produce with acks=0). */
    public void noResponse() {
        answer(null);
    }

    /** Completes the request by closing its connection (after earlier responses are written). */
    public void closeConnection(String reason) {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException(api + " request " + header.correlationId() + " answered twice");
        }
        channel.close(this, reason);
    }

    public boolean isAnswered() {
        return answered.get();
    }

    private void answer(ApiMessage response) {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException(api + " request " + header.correlationId() + " answered twice");
        }
        channel.send(this, response);
    }

    @Override
    public String toString() {
        return api.apiName() + " v" + version() + " correlationId=" + header.correlationId() + " clientId="
                + header.clientId() + " from " + connection.remoteAddress();
    }
}
