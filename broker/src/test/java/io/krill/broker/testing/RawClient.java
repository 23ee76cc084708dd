package io.krill.broker.testing;

import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.message.ResponseHeader;
import io.krill.wire.protocol.ApiMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A bare Kafka protocol client over a plain socket, for tests that must send what no real client
 * would: any bytes, any version, any header. Not thread-safe.
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int correlationId;

    public RawClient(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    public void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends {@code body} as {@code api} at {@code version}; returns the correlation id used. */
    public int send(ApiKeys api, short version, ApiMessage body) throws IOException {
        int id = ++correlationId;
        short headerVersion = api.requestHeaderVersion(version);
        RequestHeader header = new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion(version)
                .setCorrelationId(id).setClientId("raw-test");
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeInt(0);
            header.write(buf, headerVersion);
            body.write(buf, version);
            buf.setInt(0, buf.readableBytes() - 4);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            sendBytes(bytes);
        } finally {
            buf.release();
        }
        return id;
    }

    /** Reads one response, parsed as {@code api} at {@code version}; checks the correlation id. */
    public <T extends ApiMessage> T receive(ApiKeys api, short version, int expectedCorrelationId) throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        ResponseHeader header = new ResponseHeader();
        header.read(buf, api.responseHeaderVersion(version));
        if (header.correlationId() != expectedCorrelationId) {
            throw new IOException("correlation id " + header.correlationId() + ", expected " + expectedCorrelationId);
        }
        @SuppressWarnings("unchecked")
        T body = (T) api.newResponse();
        body.read(buf, version);
        return body;
    }

    /** True if the broker closed the connection (end of stream) within the socket timeout. */
    /** Sends {@code body} and reads its answer: one request at a time. */
    public <T extends ApiMessage> T call(ApiKeys api, short version, ApiMessage body) throws IOException {
        return receive(api, version, send(api, version, body));
    }

    public boolean isClosedByPeer() throws IOException {
        return isClosedByPeer(10_000);
    }

    /** True if the broker closed the connection within {@code timeoutMs}. */
    public boolean isClosedByPeer(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        try {
            return in.read() == -1;
        } catch (EOFException | java.net.SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
