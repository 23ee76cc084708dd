package io.krill.broker.api;

import io.krill.wire.message.ApiKeys;

/**
 * Serves one API key. One class per key, registered once in the {@link ApiHandlerRegistry}; the
 * registry, not a switch, decides who serves what, and an API with no handler is not advertised.
 *
 * <p>{@link #handle} runs on the connection's request thread, one request of a connection at a time,
 * in arrival order, so a handler that appends does so in the order the client sent. It answers through
 * {@link Request#respond}, now or later from any thread (a delayed operation), exactly once. The
 * request's buffer is released when {@code handle} returns: anything needed later must be copied.
 *
 * <p>An {@link io.krill.wire.error.ApiException} thrown from {@code handle} is answered with
 * {@link #errorResponse}; anything else closes the connection, as Kafka does for a request it cannot
 * process.
 *
 * <p>Implementations are thread-safe: one instance serves every connection.
 */
public interface ApiHandler {

    ApiKeys apiKey();

    /** Lowest version advertised and served. */
    short minVersion();

    /** Highest version advertised and served. */
    short maxVersion();

    void handle(Request request);

    /**
     * The response to {@code request} when it fails as a whole with {@code error}: every item of the
     * request answered with that error, as Kafka's per-API error responses are built.
     */
    io.krill.wire.protocol.ApiMessage errorResponse(Request request, io.krill.wire.error.Errors error);
}
