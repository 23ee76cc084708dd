package io.krill.compat.differential;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One broker under comparison, spoken to one request at a time: the request (header and body) is
 * encoded by Krill's generated codecs, sent framed (int32 length) on a fresh plain socket, and the
 * answer is decoded by kafka-clients ({@link AbstractResponse#parseResponse(ByteBuffer,
 * org.apache.kafka.common.requests.RequestHeader)}, which also checks the correlation id).
 *
 * <p>Why this split: the bytes both brokers receive are exactly the same, and the judge of what comes
 * back is Kafka's own parser, so an answer Krill encodes in a way kafka-clients reads differently shows up
 * as a difference (or a parse failure) rather than being hidden by a codec shared on both ends. A fresh
 * connection per request keeps one request's effect on a connection (a broker closing it on bad input)
 * out of the next.
 *
 * <p>On a SASL listener each connection can first log in ({@link Login}): a client that must authenticate
 * before every request, as a fresh connection of the stock client does.
 *
 * <p>Thread-safe: no state but the correlation counter.
 */
final class ConformanceClient {
    private static final String CLIENT_ID = "krill-differential";
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final int READ_TIMEOUT_MS = 15_000;

    /**
     * What a connection does before the request: a SaslHandshake for {@code mechanism}, then, when
     * {@code user} is set, a SASL PLAIN login (SaslAuthenticate) that must succeed.
     */
    record Login(String mechanism, String user, String password) {
        static Login plain(String user, String password) {
            return new Login("PLAIN", user, password);
        }

        static Login handshakeOnly(String mechanism) {
            return new Login(mechanism, null, null);
        }
    }

    private final String name;
    private final String host;
    private final int port;
    private final Login login;
    private final AtomicInteger correlationIds = new AtomicInteger();

    ConformanceClient(String name, String host, int port) {
        this(name, host, port, null);
    }

    /** A client whose every connection first does {@code login} (null: none). */
    ConformanceClient(String name, String host, int port, Login login) {
        this.name = name;
        this.host = host;
        this.port = port;
        this.login = login;
    }

    /** The same broker, each connection logged in with {@code other} (null: none), named {@code otherName}. */
    ConformanceClient as(String otherName, Login other) {
        return new ConformanceClient(otherName, host, port, other);
    }

    String name() {
        return name;
    }

    /** Sends {@code body} as {@code api} at {@code version} (header and body) and returns the parsed answer. */
    AbstractResponse send(ApiKeys api, short version, ApiMessage body) {
        return send(api, version, version, body);
    }

    /**
     * Sends {@code body} written at {@code bodyVersion} under a header that names {@code headerVersion}:
     * different only to ask for a version the codecs cannot write (ApiVersions at v127, whose body a
     * broker does not read).
     */
    AbstractResponse send(ApiKeys api, short headerVersion, short bodyVersion, ApiMessage body) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            if (login != null) {
                logIn(socket);
            }
            return exchange(socket, api, headerVersion, bodyVersion, body);
        } catch (IOException e) {
            throw new UncheckedIOException(api.name() + " v" + headerVersion + " to " + name + " (" + host + ":"
                    + port + ") failed", e);
        }
    }

    private void logIn(Socket socket) throws IOException {
        short handshakeVersion = 1;
        SaslHandshakeResponseData handshake = (SaslHandshakeResponseData) exchange(socket, ApiKeys.SASL_HANDSHAKE,
                handshakeVersion, handshakeVersion, ClientRequests.saslHandshake(login.mechanism())).data();
        if (login.user() == null) {
            return;
        }
        if (handshake.errorCode() != 0) {
            throw new IllegalStateException(name + ": SaslHandshake " + login.mechanism() + " answered "
                    + handshake.errorCode());
        }
        short authenticateVersion = 2;
        SaslAuthenticateResponseData authenticated = (SaslAuthenticateResponseData) exchange(socket,
                ApiKeys.SASL_AUTHENTICATE, authenticateVersion, authenticateVersion,
                ClientRequests.saslPlain(login.user(), login.password())).data();
        if (authenticated.errorCode() != 0) {
            throw new IllegalStateException(name + ": SASL PLAIN login of " + login.user() + " answered "
                    + authenticated.errorCode() + " " + authenticated.errorMessage());
        }
    }

    /** One request and its answer on an open connection. */
    private AbstractResponse exchange(Socket socket, ApiKeys api, short headerVersion, short bodyVersion,
                                      ApiMessage body) throws IOException {
        int correlationId = correlationIds.incrementAndGet();
        byte[] frame = encode(api, headerVersion, bodyVersion, body, correlationId);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.write(frame);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        org.apache.kafka.common.requests.RequestHeader judgeHeader = new org.apache.kafka.common.requests.RequestHeader(
                org.apache.kafka.common.protocol.ApiKeys.forId(api.id()), headerVersion, CLIENT_ID, correlationId);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), judgeHeader);
    }

    /** Writes {@code bytes} as they are on a fresh connection and reports what came back within {@code wait}. */
    RawExchange.Outcome sendRaw(byte[] bytes, java.time.Duration wait) {
        return RawExchange.exchange(host, port, bytes, wait);
    }

    private static byte[] encode(ApiKeys api, short headerVersion, short bodyVersion, ApiMessage body,
                                 int correlationId) {
        RequestHeader header = new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion(headerVersion)
                .setCorrelationId(correlationId).setClientId(CLIENT_ID);
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeInt(0);
            header.write(buf, api.requestHeaderVersion(headerVersion));
            body.write(buf, bodyVersion);
            buf.setInt(0, buf.readableBytes() - 4);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    @Override
    public String toString() {
        return name + " (" + host + ":" + port + ")";
    }
}
