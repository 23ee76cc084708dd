package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.group.OffsetsTopic;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.broker.txn.TransactionStateTopic;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.FindCoordinatorRequest;
import io.krill.wire.message.FindCoordinatorResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * FindCoordinator: the broker leading a group's partition of {@code __consumer_offsets} (key type 0)
 * or a transactional id's partition of {@code __transaction_state} (key type 1), at its endpoint on the
 * listener the request came in by. Either topic is created on first use. COORDINATOR_NOT_AVAILABLE
 * while there is no leader (or no such topic yet); other key types and an empty transactional id are
 * INVALID_REQUEST. Batched keys from v4.
 *
 * <p>Thread-safe: stateless.
 */
public final class FindCoordinatorHandler extends AbstractApiHandler {
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;

    private final BrokerContext context;
    private final GroupCoordinator coordinator;
    private final TransactionCoordinator transactions;

    public FindCoordinatorHandler(BrokerContext context, GroupCoordinator coordinator,
                                  TransactionCoordinator transactions) {
        super(ApiKeys.FIND_COORDINATOR, 0, 6);
        this.context = context;
        this.coordinator = coordinator;
        this.transactions = transactions;
    }

    @Override
    public void handle(Request request) {
        FindCoordinatorRequest body = request.body();
        String listener = request.connection().listenerName();
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
            return leaderOf(key, GroupCoordinator.TOPIC, () -> OffsetsTopic.create(context.metadata(), coordinator.config()),
                    () -> coordinator.partitionFor(id), listener);
        }
        if (keyType == TRANSACTION) {
            if (id.isEmpty()) {
                return error(key, Errors.INVALID_REQUEST, "The transactional id must not be empty");
            }
            return leaderOf(key, TransactionStateTopic.NAME,
                    () -> TransactionStateTopic.create(context.metadata(), transactions.config()),
                    () -> transactions.partitionFor(id), listener);
        }
        return error(key, Errors.INVALID_REQUEST, "Unsupported coordinator key type " + keyType);
    }

    /** The leader of {@code key}'s partition of the coordinator topic, which is created on first use. */
    private FindCoordinatorResponse.Coordinator leaderOf(String key, String topicName, Runnable createTopic,
                                                         IntSupplier partitionFor, String listener) {
        MetadataImage image = context.metadata().image();
        TopicImage topic = image.topic(topicName);
        if (topic == null) {
            try {
                createTopic.run();
            } catch (ApiException e) {
                if (e.error() != Errors.TOPIC_ALREADY_EXISTS) {
                    return error(key, Errors.COORDINATOR_NOT_AVAILABLE, e.getMessage());
                }
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
