package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.ProducerIdManager;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * InitProducerId v0-5. Idempotent producers (no transactional id) always get a fresh producer id at
 * epoch 0, as Kafka answers them, also when they present their old id and epoch (KIP-360): a new id is a
 * clean sequence space. Transactional ids go to the {@link TransactionCoordinator} (epoch bump, fencing,
 * abort of an open transaction, KIP-360 checks). PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH
 * below v4, which does not know it.
 *
 * <p>Thread-safe.
 */
public final class InitProducerIdHandler extends AbstractApiHandler {
    private final Authorization authorization;
    private final ProducerIdManager producerIds;
    private final TransactionCoordinator coordinator;

    public InitProducerIdHandler(ProducerIdManager producerIds, TransactionCoordinator coordinator,
                                 Authorization authorization) {
        super(ApiKeys.INIT_PRODUCER_ID, 0, 5);
        this.authorization = authorization;
        this.producerIds = producerIds;
        this.coordinator = coordinator;
    }

    @Override
    public void handle(Request request) {
        InitProducerIdRequest body = request.body();
        if (body.transactionalId() != null) {
            authorization.requireTransactionalId(request, AclOperation.WRITE, body.transactionalId());
        } else if (!authorization.idempotentWrite(request)) {
            throw new ApiException(Errors.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
        }
        if (body.transactionalId() == null) {
            request.respond(new InitProducerIdResponse().setProducerId(producerIds.nextProducerId())
                    .setProducerEpoch((short) 0));
            return;
        }
        long expectedProducerId = request.version() >= 3 ? body.producerId() : -1;
        short expectedEpoch = request.version() >= 3 ? body.producerEpoch() : -1;
        coordinator.initProducerId(body.transactionalId(), body.transactionTimeoutMs(), expectedProducerId,
                expectedEpoch, result -> {
                    if (result.error() != Errors.NONE) {
                        request.respond(errorResponse(request, result.error()));
                    } else {
                        request.respond(new InitProducerIdResponse().setProducerId(result.producerId())
                                .setProducerEpoch(result.producerEpoch()));
                    }
                });
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        Errors answered = error == Errors.PRODUCER_FENCED && request.version() < 4 ? Errors.INVALID_PRODUCER_EPOCH : error;
        return new InitProducerIdResponse().setErrorCode(answered.code()).setProducerId(-1).setProducerEpoch((short) -1);
    }
}
