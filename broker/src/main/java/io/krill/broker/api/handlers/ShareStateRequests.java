package io.krill.broker.api.handlers;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.protocol.ApiMessage;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * What the five share-group state RPCs (InitializeShareGroupState, ReadShareGroupState,
 * WriteShareGroupState, DeleteShareGroupState, ReadShareGroupStateSummary) have in common, as Kafka's
 * share coordinator serves them: they are inter-broker APIs (CLUSTER_ACTION on the cluster); a request
 * with an empty group id, or a topic without partitions, is answered with no results at all; each
 * share-partition gets its own error; the answer goes once every share-partition's operation is done
 * (committed, for those that write). Stateless; thread-safe.
 */
final class ShareStateRequests {
    private ShareStateRequests() {
    }

    /** Throws CLUSTER_AUTHORIZATION_FAILED (for every share-partition) unless the caller may act as a broker. */
    static void authorize(Authorization authorization, Request request) {
        authorization.requireCluster(request, AclOperation.CLUSTER_ACTION);
    }

    /** Whether Kafka answers this request with no results: an empty group id or a topic with no partitions. */
    static boolean answeredEmpty(String groupId, Collection<? extends Collection<?>> partitionsByTopic) {
        if (groupId == null || groupId.isEmpty()) {
            return true;
        }
        for (Collection<?> partitions : partitionsByTopic) {
            if (partitions.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The stage that records {@code operation}'s outcome in its share-partition's result: on success
     * {@code onSuccess}, on failure {@code onError} with the error code and message.
     */
    static <T> CompletableFuture<Void> outcome(CompletableFuture<T> operation, java.util.function.Consumer<T> onSuccess,
                                              BiConsumer<Errors, String> onError) {
        return operation.handle((result, failure) -> {
            if (failure == null) {
                onSuccess.accept(result);
            } else {
                ApiException error = PendingAnswer.error(failure, "share state");
                onError.accept(error.error(), error.getMessage());
            }
            return null;
        });
    }

    /** Answers once every share-partition's outcome is recorded. */
    static void respondWhenDone(Request request, ApiHandler handler, List<CompletableFuture<Void>> outcomes,
                                Supplier<ApiMessage> response) {
        PendingAnswer.respondWhenDone(request, handler, outcomes, response);
    }
}
