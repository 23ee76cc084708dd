package io.krill.broker.txn;

import io.krill.broker.security.InterBrokerConnection;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.message.ResponseHeader;
import io.krill.wire.message.WriteTxnMarkersRequest;
import io.krill.wire.message.WriteTxnMarkersResponse;
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
 * A blocking connection from the transaction coordinator to one broker (possibly this one: markers go
 * over the network to every leader, as in Kafka, so one code path appends them) that carries
 * WriteTxnMarkers requests one at a time. It mirrors the replica fetchers' channel, which is private to
 * replication; responses here are small and decoded into their own objects.
 *
 * <p>Not thread-safe: owned by one sender thread ({@link #close} may come from another to unblock it).
 */
final class MarkerChannel implements AutoCloseable {
    static final short VERSION = 1;
    private static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

    private final InterBrokerConnection connection;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String clientId;
    private int correlationId;

    private MarkerChannel(InterBrokerConnection connection, String clientId) throws IOException {
        this.connection = connection;
        this.socket = connection.socket();
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream(), 8192);
        this.clientId = clientId;
    }

    /** @param timeoutMs connect timeout and the longest wait for a response */
    static MarkerChannel connect(InterBrokerConnector connector, InetSocketAddress address, int timeoutMs,
                                 String clientId) throws IOException {
        InterBrokerConnection connection = connector.connect(address, timeoutMs, 0, clientId);
        try {
            return new MarkerChannel(connection, clientId);
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    WriteTxnMarkersResponse send(WriteTxnMarkersRequest body) throws IOException {
        connection.maybeReauthenticate();
        ApiKeys api = ApiKeys.WRITE_TXN_MARKERS;
        int id = ++correlationId;
        ByteBuf request = Unpooled.buffer(256);
        request.writeInt(0);
        new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion(VERSION).setCorrelationId(id)
                .setClientId(clientId).write(request, api.requestHeaderVersion(VERSION));
        body.write(request, VERSION);
        request.setInt(0, request.readableBytes() - 4);
        out.write(request.array(), request.arrayOffset(), request.readableBytes());
        out.flush();

        int size = in.readInt();
        if (size < 0 || size > MAX_RESPONSE_BYTES) {
            throw new IOException("WriteTxnMarkers response of " + size + " bytes from " + socket.getRemoteSocketAddress());
        }
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        try {
            ResponseHeader header = new ResponseHeader();
            header.read(buf, api.responseHeaderVersion(VERSION));
            if (header.correlationId() != id) {
                throw new IOException("correlation id " + header.correlationId() + " from "
                        + socket.getRemoteSocketAddress() + ", expected " + id);
            }
            WriteTxnMarkersResponse response = new WriteTxnMarkersResponse();
            response.read(buf, VERSION);
            return response;
        } catch (MalformedMessageException e) {
            throw new IOException("malformed WriteTxnMarkers response from " + socket.getRemoteSocketAddress(), e);
        }
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
