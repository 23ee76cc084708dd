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

    /**
     * Runs {@code task} on the thread that handles the connection's requests, after what it is doing: how
     * a handler resumes work that needs a request thread (appends to the log) once another thread (a
     * verification with another broker) answered it.
     */
    void execute(Runnable task);

    /**
     * Runs {@code action} once the connection is closed (at once if it is): how state kept per connection
     * (a client telemetry instance, as Kafka forgets it) goes with it. Each call adds an action; callers
     * register once per connection.
     */
    void whenClosed(Runnable action);
}
