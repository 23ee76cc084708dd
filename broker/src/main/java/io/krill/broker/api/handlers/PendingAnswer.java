package io.krill.broker.api.handlers;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.ErrorMapping;
import io.krill.broker.api.Request;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.protocol.ApiMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a handler answers a request whose items (config resources, quota entries, users, ACL bindings)
 * each wait for a metadata-store future: each item's own continuation records its outcome in the
 * response, and the response goes out once every item is done, from the thread that completed the last
 * one (a store thread; the request thread itself when every future was complete already, as the
 * single-node store's are), so no request thread waits for ZooKeeper. Building the response must not
 * fail; if it does, the request is still answered (UNKNOWN_SERVER_ERROR for every item, logged).
 *
 * <p>Stateless; thread-safe.
 */
final class PendingAnswer {
    private static final Logger LOG = LoggerFactory.getLogger(PendingAnswer.class);

    private PendingAnswer() {
    }

    /**
     * Answers {@code request} with {@code response.get()} once every future of {@code items} has completed
     * (normally or not: each item's own continuation is expected to have recorded its failure).
     */
    static void respondWhenDone(Request request, ApiHandler handler, List<? extends CompletableFuture<?>> items,
                                Supplier<ApiMessage> response) {
        CompletableFuture.allOf(items.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> {
            try {
                request.respond(response.get());
            } catch (RuntimeException e) {
                LOG.error("{}: building the answer failed; every item answered UNKNOWN_SERVER_ERROR", request.api(), e);
                if (!request.isAnswered()) {
                    request.respond(handler.errorResponse(request, Errors.UNKNOWN_SERVER_ERROR));
                }
            }
        });
    }

    /**
     * Answers {@code request} with {@code response} applied to {@code outcome}'s result once it completes,
     * or, if it fails, with the handler's error response for its error ({@link #error}) for the whole
     * request: for requests the store answers in one piece (elections, reassignments).
     */
    static <T> void respondWhenDone(Request request, ApiHandler handler, CompletableFuture<T> outcome,
                                    Function<T, ApiMessage> response) {
        outcome.whenComplete((result, failure) -> {
            ApiMessage answer;
            try {
                answer = failure == null ? response.apply(result)
                        : handler.errorResponse(request, error(failure, request.api()).error());
            } catch (RuntimeException e) {
                LOG.error("{}: building the answer failed; answered UNKNOWN_SERVER_ERROR", request.api(), e);
                answer = handler.errorResponse(request, Errors.UNKNOWN_SERVER_ERROR);
            }
            request.respond(answer);
        });
    }

    /**
     * The stage to wait for before answering an item whose outcome is {@code write}: on failure it hands
     * the item's error code and message ({@link #error}) to {@code onError}, which puts them in the
     * item's part of the response; on success the item's part stays as it is.
     */
    static CompletableFuture<Void> onFailure(CompletableFuture<?> write, Object item, BiConsumer<Errors, String> onError) {
        return write.handle((ignored, failure) -> {
            if (failure != null) {
                ApiException error = error(failure, item);
                onError.accept(error.error(), error.getMessage());
            }
            return null;
        });
    }

    /**
     * The error an item whose future failed is answered with: an {@link ApiException} as it is (its code
     * and message; REQUEST_TIMED_OUT when the store could not reach ZooKeeper), anything else as
     * {@link ErrorMapping} says (unexpected ones are logged there with their stack trace).
     */
    static ApiException error(Throwable failure, Object context) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ApiException api) {
            return api;
        }
        Errors error = ErrorMapping.toError(cause, context);
        return new ApiException(error, error.message());
    }

    /** The cause inside a future's CompletionException or ExecutionException. */
    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
