package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.InitProducerIdRequest;
import io.krill.wire.message.InitProducerIdResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * InitProducerId for idempotent producers (no transactional id): a fresh producer id at epoch 0, or,
 * when the producer presents its id and epoch (KIP-360, v3+), the same id with the epoch bumped (a new
 * id once the epoch would overflow). Transactional ids need the transaction coordinator, which is not
 * built yet: they are answered COORDINATOR_NOT_AVAILABLE.
 *
 * <p>Thread-safe.
 */
public final class InitProducerIdHandler implements ApiHandler {
    private final ProducerIdManager producerIds;

    public InitProducerIdHandler(BrokerContext context) {
        this.producerIds = new ProducerIdManager(context.metadata());
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INIT_PRODUCER_ID;
    }

    @Override
    public short minVersion() {
        return 0;
    }

    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public void handle(Request request) {
        InitProducerIdRequest body = request.body();
        if (body.transactionalId() != null) {
            request.respond(errorResponse(request, Errors.COORDINATOR_NOT_AVAILABLE));
            return;
        }
        long producerId;
        short epoch;
        if (body.producerId() >= 0 && body.producerEpoch() >= 0 && body.producerEpoch() < Short.MAX_VALUE - 1) {
            producerId = body.producerId();
            epoch = (short) (body.producerEpoch() + 1);
        } else {
            producerId = producerIds.nextProducerId();
            epoch = 0;
        }
        request.respond(new InitProducerIdResponse().setProducerId(producerId).setProducerEpoch(epoch));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new InitProducerIdResponse().setErrorCode(error.code()).setProducerId(-1).setProducerEpoch((short) -1);
    }
}
