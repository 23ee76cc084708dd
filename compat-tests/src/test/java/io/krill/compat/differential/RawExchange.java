package io.krill.compat.differential;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * Bytes written as they are to a fresh connection, and what a client then observes: an answer (its
 * frame), the connection closed (end of stream or reset) with no answer, or nothing within {@code wait}
 * (still open). For malformed and oversize requests, which Krill's codecs cannot write and kafka-clients
 * cannot send.
 *
 * <p>Stateless; thread-safe.
 */
final class RawExchange {
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    /** What the client observed. */
    enum Kind { ANSWERED, CLOSED, OPEN }

    /** The observation; {@code answer} is the answer's frame (without its length) when ANSWERED. */
    record Outcome(Kind kind, byte[] answer) {
        /** The correlation id an answer starts with. */
        int correlationId() {
            return ByteBuffer.wrap(answer).getInt();
        }

        @Override
        public String toString() {
            return kind == Kind.ANSWERED ? "answered (" + answer.length + " bytes, correlation id " + correlationId() + ")"
                    : kind.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private RawExchange() {
    }

    static Outcome exchange(String host, int port, byte[] bytes, Duration wait) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            socket.setSoTimeout((int) wait.toMillis());
            try {
                OutputStream out = socket.getOutputStream();
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                return new Outcome(Kind.CLOSED, null); // the broker closed while the bytes were still going
            }
            InputStream in = socket.getInputStream();
            try {
                DataInputStream data = new DataInputStream(in);
                int length = data.readInt();
                byte[] answer = new byte[length];
                data.readFully(answer);
                return new Outcome(Kind.ANSWERED, answer);
            } catch (SocketTimeoutException e) {
                return new Outcome(Kind.OPEN, null);
            } catch (EOFException e) {
                return new Outcome(Kind.CLOSED, null);
            } catch (IOException e) {
                return new Outcome(Kind.CLOSED, null); // reset
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot connect to " + host + ":" + port, e);
        }
    }
}
