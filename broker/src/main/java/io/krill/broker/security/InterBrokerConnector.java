package io.krill.broker.security;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ConfigException;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.broker.security.sasl.SaslClientMechanism;
import io.krill.broker.security.sasl.SaslMechanisms;
import io.krill.broker.security.ssl.SslFactory;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ResponseHeader;
import io.krill.wire.message.SaslAuthenticateRequest;
import io.krill.wire.message.SaslAuthenticateResponse;
import io.krill.wire.message.SaslHandshakeRequest;
import io.krill.wire.message.SaslHandshakeResponse;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.MalformedMessageException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.function.Supplier;

/**
 * Opens this broker's connections to other brokers (replica fetchers, transaction marker senders) on
 * their inter-broker listener, with that listener's security protocol: TLS from the listener's key and
 * trust stores (host name verification with {@code ssl.endpoint.identification.algorithm=https}), then
 * for SASL_* a SaslHandshake v1 and SaslAuthenticate exchange with
 * {@code sasl.mechanism.inter.broker.protocol} and the listener's JAAS credentials. The socket returned
 * is authenticated and ready for Kafka requests.
 *
 * <p>Thread-safe: connections share only the (thread-safe) TLS factory.
 */
public final class InterBrokerConnector {
    private static final int MAX_SASL_RESPONSE_BYTES = 1024 * 1024;

    private final SecurityProtocol protocol;
    private final SslFactory ssl;
    private final Supplier<SaslClientMechanism> sasl;

    private InterBrokerConnector(SecurityProtocol protocol, SslFactory ssl, Supplier<SaslClientMechanism> sasl) {
        this.protocol = protocol;
        this.ssl = ssl;
        this.sasl = sasl;
    }

    /** Plain TCP (tests, PLAINTEXT clusters). */
    public static InterBrokerConnector plaintext() {
        return new InterBrokerConnector(SecurityProtocol.PLAINTEXT, null, null);
    }

    /** @throws ConfigException when the inter-broker listener's TLS stores or SASL credentials are unusable */
    public static InterBrokerConnector of(BrokerConfig config, SaslMechanisms mechanisms) {
        String listener = config.listeners().interBrokerListenerName();
        SecurityProtocol protocol = config.listeners().interBrokerSecurityProtocol();
        boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        boolean saslUsed = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        SslFactory ssl = tls ? new SslFactory(new ListenerSecurityConfig(config, listener)) : null;
        Supplier<SaslClientMechanism> sasl = null;
        if (saslUsed) {
            mechanisms.interBrokerClient(listener); // fail at start, not at the first fetch
            sasl = () -> mechanisms.interBrokerClient(listener);
        }
        return new InterBrokerConnector(protocol, ssl, sasl);
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    /**
     * Connects, secures and authenticates.
     *
     * @return the connection; call {@link InterBrokerConnection#maybeReauthenticate()} before each request
     *     so that a session with a lifetime ({@code connections.max.reauth.ms} on the peer) is renewed in time
     *
     * @param timeoutMs          connect timeout and the read timeout of the socket returned
     * @param receiveBufferBytes SO_RCVBUF, or &lt;= 0 for the system default
     * @throws IOException on a network, TLS or authentication failure (the socket is closed)
     */
    public InterBrokerConnection connect(InetSocketAddress address, int timeoutMs, int receiveBufferBytes,
                                         String clientId) throws IOException {
        Socket socket = new Socket();
        Socket secured = socket;
        try {
            if (receiveBufferBytes > 0) {
                socket.setReceiveBufferSize(receiveBufferBytes);
            }
            socket.setTcpNoDelay(true);
            socket.connect(address, timeoutMs);
            socket.setSoTimeout(timeoutMs);
            if (ssl != null) {
                secured = ssl.clientSocket(socket, address.getHostString(), address.getPort());
            }
            long lifetimeMs = sasl == null ? 0 : authenticate(secured, sasl.get(), clientId);
            return new InterBrokerConnection(this, secured, clientId, lifetimeMs);
        } catch (IOException | RuntimeException e) {
            secured.close();
            socket.close();
            throw e;
        }
    }

    /** Runs the SASL exchange again on an authenticated connection (KIP-368); returns the new lifetime. */
    long reauthenticate(Socket socket, String clientId) throws IOException {
        return authenticate(socket, sasl.get(), clientId);
    }

    /** @return the session lifetime the server granted in ms, 0 for none */
    private static long authenticate(Socket socket, SaslClientMechanism mechanism, String clientId)
            throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        DataInputStream in = new DataInputStream(socket.getInputStream());
        SaslHandshakeResponse handshake = call(out, in, ApiKeys.SASL_HANDSHAKE, (short) 1, 1, clientId,
                new SaslHandshakeRequest().setMechanism(mechanism.mechanismName()), new SaslHandshakeResponse());
        if (handshake.errorCode() != Errors.NONE.code()) {
            throw new IOException("SASL handshake with " + socket.getRemoteSocketAddress() + " failed: "
                    + Errors.forCode(handshake.errorCode()) + " (enabled: " + handshake.mechanisms() + ")");
        }
        try {
            byte[] token = mechanism.initialResponse();
            int correlationId = 2;
            while (true) {
                SaslAuthenticateResponse response = call(out, in, ApiKeys.SASL_AUTHENTICATE, (short) 1,
                        correlationId++, clientId, new SaslAuthenticateRequest().setAuthBytes(token),
                        new SaslAuthenticateResponse());
                if (response.errorCode() != Errors.NONE.code()) {
                    throw new IOException("SASL authentication with " + socket.getRemoteSocketAddress() + " failed: "
                            + Errors.forCode(response.errorCode()) + ": " + response.errorMessage());
                }
                if (mechanism.isComplete()) {
                    return response.sessionLifetimeMs();
                }
                token = mechanism.evaluateChallenge(response.authBytes());
                if (token == null) {
                    if (!mechanism.isComplete()) {
                        throw new IOException("SASL exchange with " + socket.getRemoteSocketAddress() + " ended early");
                    }
                    return response.sessionLifetimeMs();
                }
            }
        } catch (SaslAuthenticationException e) {
            throw new IOException("SASL authentication with " + socket.getRemoteSocketAddress() + " failed: "
                    + e.getMessage(), e);
        }
    }

    private static <T extends ApiMessage> T call(DataOutputStream out, DataInputStream in, ApiKeys api, short version,
                                                 int correlationId, String clientId, ApiMessage body, T response)
            throws IOException {
        ByteBuf request = Unpooled.buffer(256);
        InterBrokerChannel.writeRequest(request, api, version, correlationId, clientId, body);
        out.write(request.array(), request.arrayOffset(), request.readableBytes());
        out.flush();
        int size = in.readInt();
        if (size < 0 || size > MAX_SASL_RESPONSE_BYTES) {
            throw new IOException(api.apiName() + " response of " + size + " bytes");
        }
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        try {
            ResponseHeader header = new ResponseHeader();
            header.read(buf, api.responseHeaderVersion(version));
            if (header.correlationId() != correlationId) {
                throw new IOException("correlation id " + header.correlationId() + ", expected " + correlationId);
            }
            response.read(buf, version);
            return response;
        } catch (MalformedMessageException e) {
            throw new IOException("malformed " + api.apiName() + " response", e);
        }
    }
}
