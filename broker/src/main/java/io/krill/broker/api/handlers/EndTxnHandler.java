package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.EndTxnRequest;
import io.krill.wire.message.EndTxnResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * EndTxn v0-4: commits or aborts the producer's transaction; answered once the coordinator has written
 * PrepareCommit/PrepareAbort (the markers follow). v5 (KIP-890 part 2, an epoch bump per transaction) is
 * not advertised: Krill serves transaction version 1. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v2.
 *
 * <p>Thread-safe: stateless.
 */
public final class EndTxnHandler extends AbstractApiHandler {
    private final Authorization authorization;
    private final TransactionCoordinator coordinator;

    public EndTxnHandler(TransactionCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.END_TXN, 0, 4);
        this.authorization = authorization;
        this.coordinator = coordinator;
    }

    @Override
    public void handle(Request request) {
        EndTxnRequest body = request.body();
        authorization.requireTransactionalId(request, AclOperation.WRITE, body.transactionalId());
        coordinator.endTransaction(body.transactionalId(), body.producerId(), body.producerEpoch(), body.committed(),
                error -> request.respond(errorResponse(request, error)));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new EndTxnResponse().setErrorCode(TxnErrors.forVersion(error, request.version(), 2).code());
    }
}
