package io.krill.broker.security;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.message.ResponseHeader;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.MalformedMessageException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A blocking Kafka-protocol connection from this broker to another, one request at a time, over the
 * inter-broker listener's security ({@link InterBrokerConnector}): what a replica fetcher and the
 * transaction marker sender need, since each waits for an answer before asking again. The response
 * buffer is reused, so a response (and the record slices it holds) is valid only until the next
 * {@link #call}: fetched batches go from it straight into the log, with no copy per record.
 *
 * <p>Not thread-safe: owned by one thread ({@link #close} may come from another to unblock it).
 */
public final class InterBrokerChannel implements AutoCloseable {
    private final InterBrokerConnection connection;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String clientId;
    private final int maxResponseBytes;
    private final ByteBuf request = Unpooled.buffer(1024);
    private byte[] response = new byte[64 * 1024];
    private int correlationId;

    private InterBrokerChannel(InterBrokerConnection connection, String clientId, int maxResponseBytes)
            throws IOException {
        this.connection = connection;
        this.socket = connection.socket();
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream(), 8192);
        this.clientId = clientId;
        this.maxResponseBytes = maxResponseBytes;
    }

    /**
     * @param connector        opens the socket with the inter-broker listener's security (TLS, SASL)
     * @param timeoutMs        connect timeout and the longest wait for any response
     * @param maxResponseBytes a larger response is a protocol error (the connection is dropped)
     */
    public static InterBrokerChannel connect(InterBrokerConnector connector, InetSocketAddress address, int timeoutMs,
                                 int receiveBufferBytes, String clientId, int maxResponseBytes) throws IOException {
        InterBrokerConnection connection = connector.connect(address, timeoutMs, receiveBufferBytes, clientId);
        try {
            return new InterBrokerChannel(connection, clientId, maxResponseBytes);
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** Sends {@code body} and waits for its response. */
    public <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage body) throws IOException {
        connection.maybeReauthenticate();
        int id = ++correlationId;
        request.clear();
        writeRequest(request, api, version, id, clientId, body);
        out.write(request.array(), request.arrayOffset(), request.readableBytes());
        out.flush();

        int size = in.readInt();
        if (size < 0 || size > maxResponseBytes) {
            throw new IOException("response of " + size + " bytes from " + socket.getRemoteSocketAddress()
                    + " (limit " + maxResponseBytes + ")");
        }
        if (response.length < size) {
            response = new byte[Math.max(size, Math.min(maxResponseBytes, response.length * 2))];
        }
        in.readFully(response, 0, size);
        ByteBuf buf = Unpooled.wrappedBuffer(response, 0, size);
        try {
            ResponseHeader header = new ResponseHeader();
            header.read(buf, api.responseHeaderVersion(version));
            if (header.correlationId() != id) {
                throw new IOException("correlation id " + header.correlationId() + " from "
                        + socket.getRemoteSocketAddress() + ", expected " + id);
            }
            @SuppressWarnings("unchecked")
            T answer = (T) api.newResponse();
            answer.read(buf, version);
            return answer;
        } catch (MalformedMessageException e) {
            throw new IOException("malformed " + api + " response from " + socket.getRemoteSocketAddress(), e);
        }
    }

    /** Appends {@code body} to {@code buf} as one request frame: the size, the request header, the body. */
    static void writeRequest(ByteBuf buf, ApiKeys api, short version, int correlationId, String clientId,
                             ApiMessage body) {
        int start = buf.writerIndex();
        buf.writeInt(0);
        new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion(version).setCorrelationId(correlationId)
                .setClientId(clientId).write(buf, api.requestHeaderVersion(version));
        body.write(buf, version);
        buf.setInt(start, buf.writerIndex() - start - 4);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing left to do with this socket
        }
    }
}
