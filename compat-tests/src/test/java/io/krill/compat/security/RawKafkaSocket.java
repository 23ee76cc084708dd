package io.krill.compat.security;

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
import java.net.SocketException;

/** A bare Kafka-protocol socket for what no client would send (requests before authentication, raw tokens). */
final class RawKafkaSocket implements AutoCloseable {
    private final Socket socket = new Socket();
    private final DataInputStream in;
    private final OutputStream out;
    private int correlationId;

    RawKafkaSocket(int port) throws IOException {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    int send(ApiKeys api, short version, ApiMessage body) throws IOException {
        int id = ++correlationId;
        ByteBuf buf = Unpooled.buffer();
        buf.writeInt(0);
        new RequestHeader().setRequestApiKey(api.id()).setRequestApiVersion(version).setCorrelationId(id)
                .setClientId("raw").write(buf, api.requestHeaderVersion(version));
        body.write(buf, version);
        buf.setInt(0, buf.readableBytes() - 4);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        sendBytes(bytes);
        return id;
    }

    void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends a raw size-prefixed token (the legacy SASL flow). */
    void sendToken(byte[] token) throws IOException {
        byte[] framed = new byte[4 + token.length];
        framed[0] = (byte) (token.length >>> 24);
        framed[1] = (byte) (token.length >>> 16);
        framed[2] = (byte) (token.length >>> 8);
        framed[3] = (byte) token.length;
        System.arraycopy(token, 0, framed, 4, token.length);
        sendBytes(framed);
    }

    byte[] receiveFrame() throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        return bytes;
    }

    <T extends ApiMessage> T receive(ApiKeys api, short version) throws IOException {
        ByteBuf buf = Unpooled.wrappedBuffer(receiveFrame());
        ResponseHeader header = new ResponseHeader();
        header.read(buf, api.responseHeaderVersion(version));
        @SuppressWarnings("unchecked")
        T body = (T) api.newResponse();
        body.read(buf, version);
        return body;
    }

    /** True if the broker closed the connection (end of stream or reset) before sending anything more. */
    boolean closedByPeer() throws IOException {
        try {
            return in.read() < 0;
        } catch (EOFException | SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
