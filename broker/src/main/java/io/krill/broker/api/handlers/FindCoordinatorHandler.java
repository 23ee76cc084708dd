package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.group.OffsetsTopic;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.ShareGroupStateTopic;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.broker.txn.TransactionStateTopic;
import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FindCoordinator: the broker leading a group's partition of {@code __consumer_offsets} (key type 0),
 * a transactional id's partition of {@code __transaction_state} (key type 1) or a share-partition's
 * partition of {@code __share_group_state} (key type 2, from v6: {@code groupId:topicId:partition}, asked
 * by brokers, so CLUSTER_ACTION on the cluster; a key Kafka cannot parse is INVALID_REQUEST), at its
 * endpoint on the listener the request came in by. Each topic is created on first use, without the request thread
 * waiting for the store (two brokers, or two racing requests, may both try: the loser's
 * TOPIC_ALREADY_EXISTS is success). COORDINATOR_NOT_AVAILABLE
 * while there is no leader (or no such topic yet); other key types and an empty transactional id are
 * INVALID_REQUEST. Batched keys from v4.
 *
 * <p>Thread-safe: the one state, the creations in flight, is a concurrent map; a creation completes on a
 * store thread.
 */
public final class FindCoordinatorHandler extends AbstractApiHandler {
    private static final Logger LOG = LoggerFactory.getLogger(FindCoordinatorHandler.class);
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;
    private static final byte SHARE = 2;
    /** The first version that knows the share key type (KIP-932). */
    private static final short SHARE_VERSION = 6;

    private final BrokerContext context;
    private final GroupCoordinator coordinator;
    private final TransactionCoordinator transactions;
    private final ShareCoordinator shares;
    /** The creation of each coordinator topic in flight, by name. */
    private final Map<String, CompletableFuture<List<TopicCreation>>> creating = new ConcurrentHashMap<>();

    public FindCoordinatorHandler(BrokerContext context, GroupCoordinator coordinator,
                                  TransactionCoordinator transactions) {
        this(context, coordinator, transactions, null);
    }

    /** @param shares the share coordinator, or null when this broker has none (key type 2 is then INVALID_REQUEST) */
    public FindCoordinatorHandler(BrokerContext context, GroupCoordinator coordinator,
                                  TransactionCoordinator transactions, ShareCoordinator shares) {
        super(ApiKeys.FIND_COORDINATOR, 0, 6);
        this.context = context;
        this.coordinator = coordinator;
        this.transactions = transactions;
        this.shares = shares;
    }

    @Override
    public void handle(Request request) {
        FindCoordinatorRequest body = request.body();
        String listener = request.connection().listenerName();
        if (body.keyType() == SHARE && request.version() >= SHARE_VERSION) {
            // Kafka checks this before any key: an unauthorized caller gets the error for every key.
            context.authorization().requireCluster(request, AclOperation.CLUSTER_ACTION);
        }
        if (request.version() < 4) {
            FindCoordinatorResponse.Coordinator found = lookUp(request, body.key(), body.keyType(), listener);
            request.respond(new FindCoordinatorResponse()
                    .setErrorCode(found.errorCode())
                    .setErrorMessage(found.errorMessage())
                    .setNodeId(found.nodeId())
                    .setHost(found.host())
                    .setPort(found.port()));
            return;
        }
        List<FindCoordinatorResponse.Coordinator> coordinators = new ArrayList<>();
        for (String key : body.coordinatorKeys()) {
            coordinators.add(lookUp(request, key, body.keyType(), listener));
        }
        request.respond(new FindCoordinatorResponse().setCoordinators(coordinators));
    }

    private FindCoordinatorResponse.Coordinator lookUp(Request request, String key, byte keyType, String listener) {
        String id = key == null ? "" : key;
        Authorization authorization = context.authorization();
        if (keyType == GROUP && !authorization.group(request, AclOperation.DESCRIBE, id)) {
            return error(key, Errors.GROUP_AUTHORIZATION_FAILED, null);
        }
        if (keyType == TRANSACTION && !authorization.transactionalId(request, AclOperation.DESCRIBE, id)) {
            return error(key, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null);
        }
        if (keyType == GROUP) {
            return leaderOf(key, GroupCoordinator.TOPIC, () -> OffsetsTopic.spec(context.metadata(), coordinator.config()),
                    () -> coordinator.partitionFor(id), listener);
        }
        if (keyType == TRANSACTION) {
            if (id.isEmpty()) {
                return error(key, Errors.INVALID_REQUEST, "The transactional id must not be empty");
            }
            return leaderOf(key, TransactionStateTopic.NAME,
                    () -> TransactionStateTopic.spec(context.metadata(), transactions.config()),
                    () -> transactions.partitionFor(id), listener);
        }
        if (keyType == SHARE && request.version() >= SHARE_VERSION && shares != null) {
            SharePartitionKey shareKey;
            try {
                shareKey = ShareGroupStateTopic.parseKey(id);
            } catch (IllegalArgumentException e) {
                return error(key, Errors.INVALID_REQUEST, e.getMessage());
            }
            return leaderOf(key, ShareGroupStateTopic.NAME,
                    () -> ShareGroupStateTopic.spec(context.metadata(), shares.config()),
                    () -> shares.partitionFor(shareKey), listener);
        }
        return error(key, Errors.INVALID_REQUEST, "Unsupported coordinator key type " + keyType);
    }

    /**
     * The leader of {@code key}'s partition of the coordinator topic, which is created on first use:
     * asynchronously, answered COORDINATOR_NOT_AVAILABLE (retriable) until the image shows it, as Kafka
     * answers while it auto-creates the topic; a store that creates at once (the single node's) is
     * answered with the coordinator right away.
     */
    private FindCoordinatorResponse.Coordinator leaderOf(String key, String topicName, Supplier<NewTopic> spec,
                                                         IntSupplier partitionFor, String listener) {
        MetadataImage image = context.metadata().image();
        TopicImage topic = image.topic(topicName);
        if (topic == null) {
            CompletableFuture<List<TopicCreation>> creation = create(topicName, spec);
            if (!creation.isDone()) {
                return error(key, Errors.COORDINATOR_NOT_AVAILABLE, "The topic " + topicName + " is being created");
            }
            ApiError failed = outcome(creation);
            if (failed != null) {
                return error(key, Errors.COORDINATOR_NOT_AVAILABLE, failed.message());
            }
            image = context.metadata().image();
            topic = image.topic(topicName);
            if (topic == null) {
                return error(key, Errors.COORDINATOR_NOT_AVAILABLE, "The topic " + topicName + " is being created");
            }
        }
        PartitionState state = topic.partition(partitionFor.getAsInt());
        if (state == null || !state.hasLeader()) {
            return error(key, Errors.COORDINATOR_NOT_AVAILABLE, "The coordinator is not available");
        }
        BrokerInfo broker = image.broker(state.leader());
        BrokerInfo.Endpoint endpoint = broker == null ? null : broker.endpoint(listener);
        if (endpoint == null) {
            return error(key, Errors.COORDINATOR_NOT_AVAILABLE, "The coordinator is not available");
        }
        return new FindCoordinatorResponse.Coordinator()
                .setKey(key)
                .setNodeId(broker.nodeId())
                .setHost(endpoint.host())
                .setPort(endpoint.port());
    }

    /** The creation of {@code topicName} in flight, or a new one: one at a time per topic, however many ask. */
    private CompletableFuture<List<TopicCreation>> create(String topicName, Supplier<NewTopic> spec) {
        CompletableFuture<List<TopicCreation>> running = creating.get(topicName);
        if (running != null && !running.isDone()) {
            return running;
        }
        CompletableFuture<List<TopicCreation>> started = start(spec);
        creating.put(topicName, started);
        started.whenComplete((outcomes, failure) -> {
            creating.remove(topicName, started);
            ApiError error = outcome(started);
            if (error != null) {
                LOG.warn("Could not create {} on first use: {}", topicName, error.message());
            }
        });
        return started;
    }

    private CompletableFuture<List<TopicCreation>> start(Supplier<NewTopic> spec) {
        try {
            return context.metadata().createTopics(List.of(spec.get()));
        } catch (ApiException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Why a completed creation did not create the topic, or null (created, or created by another broker first). */
    private static ApiError outcome(CompletableFuture<List<TopicCreation>> creation) {
        try {
            ApiError error = creation.join().get(0).error();
            return error.isSuccess() || error.error() == Errors.TOPIC_ALREADY_EXISTS ? null : error;
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            Throwable cause = PendingAnswer.unwrap(e);
            if (cause instanceof ApiException api) {
                return api.error() == Errors.TOPIC_ALREADY_EXISTS ? null : new ApiError(api.error(), api.getMessage());
            }
            return new ApiError(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
        }
    }

    private static FindCoordinatorResponse.Coordinator error(String key, Errors error, String message) {
        return new FindCoordinatorResponse.Coordinator()
                .setKey(key)
                .setErrorCode(error.code())
                .setErrorMessage(message)
                .setNodeId(-1)
                .setHost("")
                .setPort(-1);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        FindCoordinatorRequest body = request.body();
        if (request.version() < 4) {
            return new FindCoordinatorResponse().setErrorCode(error.code()).setNodeId(-1).setHost("").setPort(-1);
        }
        List<FindCoordinatorResponse.Coordinator> coordinators = new ArrayList<>();
        for (String key : body.coordinatorKeys()) {
            coordinators.add(error(key, error, null));
        }
        return new FindCoordinatorResponse().setCoordinators(coordinators);
    }
}
