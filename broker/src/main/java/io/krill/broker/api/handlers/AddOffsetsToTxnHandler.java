package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AddOffsetsToTxnRequest;
import io.krill.wire.message.AddOffsetsToTxnResponse;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;

/**
 * AddOffsetsToTxn v0-4: adds the group's partition of {@code __consumer_offsets} to the producer's
 * transaction, so that its commit or abort marker reaches the offsets the producer then sends with
 * TxnOffsetCommit. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v2.
 *
 * <p>Thread-safe: stateless.
 */
public final class AddOffsetsToTxnHandler extends AbstractApiHandler {
    private final Authorization authorization;
    private final TransactionCoordinator coordinator;
    private final GroupCoordinator groups;

    public AddOffsetsToTxnHandler(TransactionCoordinator coordinator, GroupCoordinator groups,
                                  Authorization authorization) {
        super(ApiKeys.ADD_OFFSETS_TO_TXN, 0, 4);
        this.authorization = authorization;
        this.coordinator = coordinator;
        this.groups = groups;
    }

    @Override
    public void handle(Request request) {
        AddOffsetsToTxnRequest body = request.body();
        authorization.requireTransactionalId(request, AclOperation.WRITE, body.transactionalId());
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        if (body.groupId() == null || body.groupId().isEmpty()) {
            request.respond(errorResponse(request, Errors.INVALID_GROUP_ID));
            return;
        }
        TopicPartition offsets = new TopicPartition(GroupCoordinator.TOPIC, groups.partitionFor(body.groupId()));
        coordinator.addPartitions(body.transactionalId(), body.producerId(), body.producerEpoch(), Set.of(offsets),
                error -> request.respond(errorResponse(request, error)));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new AddOffsetsToTxnResponse().setErrorCode(TxnErrors.forVersion(error, request.version(), 2).code());
    }
}
