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

/**
 * EndTxn v0-5: commits or aborts the producer's transaction; answered once the coordinator has written
 * PrepareCommit/PrepareAbort (the markers follow). v5 is transaction version 2 (KIP-890 part 2): the
 * coordinator ends the transaction at the next producer epoch and the answer carries the producer id and
 * epoch the producer goes on with. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH below v2.
 *
 * <p>Thread-safe: stateless.
 */
public final class EndTxnHandler extends AbstractApiHandler {
    /** The first version that ends a transaction with an epoch bump (transaction version 2). */
    static final short BUMPING_VERSION = 5;

    private final Authorization authorization;
    private final TransactionCoordinator coordinator;

    public EndTxnHandler(TransactionCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.END_TXN, 0, 5);
        this.authorization = authorization;
        this.coordinator = coordinator;
    }

    @Override
    public void handle(Request request) {
        EndTxnRequest body = request.body();
        authorization.requireTransactionalId(request, AclOperation.WRITE, body.transactionalId());
        boolean bumpEpoch = request.version() >= BUMPING_VERSION;
        coordinator.endTransaction(body.transactionalId(), body.producerId(), body.producerEpoch(), body.committed(),
                bumpEpoch, result -> request.respond(errorResponse(request, result.error())
                        .setProducerId(result.producerId()).setProducerEpoch(result.producerEpoch())));
    }

    @Override
    public EndTxnResponse errorResponse(Request request, Errors error) {
        return new EndTxnResponse().setErrorCode(TxnErrors.forVersion(error, request.version(), 2).code());
    }
}
