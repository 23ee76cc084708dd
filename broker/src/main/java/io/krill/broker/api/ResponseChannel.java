package io.krill.broker.api;

import io.krill.wire.protocol.ApiMessage;

/** Where a {@link Request}'s answer goes: the connection it came from. Implementations are thread-safe. */
public interface ResponseChannel {

    /** Sends {@code response} (or nothing, when null) for {@code request}, in request order. */
    void send(Request request, ApiMessage response);

    /**
     * Answers {@code request} by closing the connection once the responses before it are out: how Kafka
     * tells an acks=0 producer that a write failed (it has no response to read the error from).
     */
    void close(Request request, String reason);
}
