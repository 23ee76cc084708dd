package io.krill.broker.share.state;

import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.coordinator.ExecutorCoordinatorTimer;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link ShareStatePersister}: each call goes to the share coordinator of its key, the leader
 * of the key's partition of {@code __share_group_state}: this broker's own {@link ShareCoordinator} when it
 * is that leader, else the RPC to that broker ({@link RemoteShareStateSender}, which batches the calls
 * queued for one broker into few requests). NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
 * COORDINATOR_LOAD_IN_PROGRESS and NETWORK_EXCEPTION are retried (every {@value #RETRY_BACKOFF_MS} ms, on
 * the {@code share-state-persister} thread, with the metadata of the time) until
 * {@code request.timeout.ms} has passed, then the call fails with COORDINATOR_NOT_AVAILABLE. The topic is
 * created on first need (one creation at a time), as FindCoordinator creates it.
 *
 * <p>Thread-safety: the creation in flight is an atomic reference, the unanswered calls a concurrent set;
 * the sender and the retry timer have their own threads. Futures complete on the coordinator's, the
 * sender's, the retry or the closing thread.
 */
public final class DefaultShareStatePersister implements ShareStatePersister, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DefaultShareStatePersister.class);
    static final long RETRY_BACKOFF_MS = 100;

    private final int nodeId;
    private final ShareCoordinator coordinator;
    private final MetadataStore metadata;
    private final String listenerName;
    private final RemoteShareStateSender remote;
    private final CoordinatorTimer timer;
    private final ExecutorCoordinatorTimer ownTimer;
    private final AtomicReference<CompletableFuture<List<TopicCreation>>> creating = new AtomicReference<>();
    /** The calls not answered yet, failed by {@link #close()}. */
    private final java.util.Set<CompletableFuture<?>> unanswered = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param listenerName the listener to reach other brokers on (the inter-broker one)
     * @param connector    opens the connections to other brokers
     */
    public DefaultShareStatePersister(int nodeId, ShareCoordinator coordinator, MetadataStore metadata,
                                      String listenerName, InterBrokerConnector connector) {
        this.nodeId = nodeId;
        this.coordinator = coordinator;
        this.metadata = metadata;
        this.listenerName = listenerName;
        this.remote = new RemoteShareStateSender(nodeId, connector, coordinator.config().requestTimeoutMs());
        this.ownTimer = new ExecutorCoordinatorTimer("share-state-persister");
        this.timer = ownTimer;
    }

    @Override
    public CompletableFuture<Void> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        return call(key, local -> local.initialize(key, stateEpoch, startOffset),
                () -> new RemoteShareStateSender.Call(RemoteShareStateSender.Kind.INITIALIZE, key, stateEpoch, -1,
                        startOffset, List.of(), new CompletableFuture<>()));
    }

    @Override
    public CompletableFuture<ShareState> read(SharePartitionKey key, int leaderEpoch) {
        return call(key, local -> local.read(key, leaderEpoch),
                () -> new RemoteShareStateSender.Call(RemoteShareStateSender.Kind.READ, key, -1, leaderEpoch, -1,
                        List.of(), new CompletableFuture<>()));
    }

    @Override
    public CompletableFuture<Void> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, long startOffset,
                                         List<StateBatch> batches) {
        List<StateBatch> written = List.copyOf(batches);
        return call(key, local -> local.write(key, stateEpoch, leaderEpoch, startOffset, -1, written),
                () -> new RemoteShareStateSender.Call(RemoteShareStateSender.Kind.WRITE, key, stateEpoch, leaderEpoch,
                        startOffset, written, new CompletableFuture<>()));
    }

    /** The leader epoch is not checked by the coordinator (Kafka 4.4's summary does not check it). */
    @Override
    public CompletableFuture<ShareStateSummary> readSummary(SharePartitionKey key, int leaderEpoch) {
        return call(key, local -> local.readSummary(key),
                () -> new RemoteShareStateSender.Call(RemoteShareStateSender.Kind.READ_SUMMARY, key, -1, leaderEpoch,
                        -1, List.of(), new CompletableFuture<>()));
    }

    @Override
    public CompletableFuture<Void> delete(SharePartitionKey key) {
        return call(key, local -> local.delete(key),
                () -> new RemoteShareStateSender.Call(RemoteShareStateSender.Kind.DELETE, key, -1, -1, -1, List.of(),
                        new CompletableFuture<>()));
    }

    /** One call, retried until it succeeds, fails for good, or the request timeout passes. */
    private <T> CompletableFuture<T> call(SharePartitionKey key, Function<ShareCoordinator, CompletableFuture<T>> local,
                                          java.util.function.Supplier<RemoteShareStateSender.Call> remoteCall) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (key.groupId().isEmpty()) {
            result.completeExceptionally(new ApiException(Errors.INVALID_REQUEST, "The group id must not be empty"));
            return result;
        }
        unanswered.add(result);
        result.whenComplete((ok, failure) -> unanswered.remove(result));
        if (closed) {
            result.completeExceptionally(new ApiException(Errors.COORDINATOR_NOT_AVAILABLE, "The broker is stopping"));
            return result;
        }
        attempt(key, local, remoteCall, timer.milliseconds() + coordinator.config().requestTimeoutMs(), result);
        return result;
    }

    @SuppressWarnings("unchecked")
    private <T> void attempt(SharePartitionKey key, Function<ShareCoordinator, CompletableFuture<T>> local,
                             java.util.function.Supplier<RemoteShareStateSender.Call> remoteCall, long deadline,
                             CompletableFuture<T> result) {
        CompletableFuture<T> once;
        try {
            once = route(key, local, remoteCall);
        } catch (ApiException e) {
            once = CompletableFuture.failedFuture(e);
        }
        once.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
                return;
            }
            ApiException error = apiError(failure);
            if (!retriable(error.error())) {
                result.completeExceptionally(error);
            } else if (closed || timer.milliseconds() + RETRY_BACKOFF_MS > deadline) {
                result.completeExceptionally(new ApiException(Errors.COORDINATOR_NOT_AVAILABLE, "The share coordinator "
                        + "of " + key.coordinatorKey() + " could not be reached in time: " + error.getMessage()));
            } else {
                timer.schedule(RETRY_BACKOFF_MS, () -> attempt(key, local, remoteCall, deadline, result));
            }
        });
    }

    /** This broker's coordinator, or a call queued for the broker leading the key's partition. */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> route(SharePartitionKey key, Function<ShareCoordinator, CompletableFuture<T>> local,
                                           java.util.function.Supplier<RemoteShareStateSender.Call> remoteCall) {
        MetadataImage image = metadata.image();
        TopicImage topic = image.topic(ShareGroupStateTopic.NAME);
        if (topic == null) {
            createTopic();
            throw new ApiException(Errors.COORDINATOR_NOT_AVAILABLE, ShareGroupStateTopic.NAME + " is being created");
        }
        PartitionState state = topic.partition(ShareGroupStateTopic.partitionFor(key, topic.partitionCount()));
        if (state == null || !state.hasLeader()) {
            throw new ApiException(Errors.COORDINATOR_NOT_AVAILABLE, "The share coordinator of "
                    + key.coordinatorKey() + " has no leader");
        }
        if (state.leader() == nodeId) {
            return local.apply(coordinator);
        }
        BrokerInfo broker = image.broker(state.leader());
        BrokerInfo.Endpoint endpoint = broker == null ? null : broker.endpoint(listenerName);
        if (endpoint == null) {
            throw new ApiException(Errors.COORDINATOR_NOT_AVAILABLE, "Broker " + state.leader()
                    + " has no endpoint on " + listenerName);
        }
        RemoteShareStateSender.Call call = remoteCall.get();
        remote.send(broker.nodeId(), new InetSocketAddress(endpoint.host(), endpoint.port()), call);
        return (CompletableFuture<T>) call.future();
    }

    private void createTopic() {
        CompletableFuture<List<TopicCreation>> running = creating.get();
        if (running != null && !running.isDone()) {
            return;
        }
        CompletableFuture<List<TopicCreation>> started;
        try {
            started = metadata.createTopics(List.of(ShareGroupStateTopic.spec(metadata, coordinator.config())));
        } catch (ApiException e) {
            started = CompletableFuture.failedFuture(e);
        }
        if (creating.compareAndSet(running, started)) {
            started.whenComplete((outcomes, failure) -> {
                ApiError error = failure != null ? new ApiError(apiError(failure).error(), failure.getMessage())
                        : outcomes.get(0).error();
                if (!error.isSuccess() && error.error() != Errors.TOPIC_ALREADY_EXISTS) {
                    LOG.warn("Could not create {} on first need (will retry): {}", ShareGroupStateTopic.NAME,
                            error.message());
                }
            });
        }
    }

    private static boolean retriable(Errors error) {
        return error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_NOT_AVAILABLE
                || error == Errors.COORDINATOR_LOAD_IN_PROGRESS || error == Errors.NETWORK_EXCEPTION;
    }

    private static ApiException apiError(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof ApiException api) {
            return api;
        }
        LOG.error("Unexpected failure of a share state call", cause);
        return new ApiException(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
    }

    /** Stops the sender and the retry thread; calls not answered yet fail with COORDINATOR_NOT_AVAILABLE. */
    @Override
    public void close() {
        closed = true;
        remote.close();
        ownTimer.close();
        for (CompletableFuture<?> call : List.copyOf(unanswered)) {
            call.completeExceptionally(new ApiException(Errors.COORDINATOR_NOT_AVAILABLE, "The broker is stopping"));
        }
    }
}
