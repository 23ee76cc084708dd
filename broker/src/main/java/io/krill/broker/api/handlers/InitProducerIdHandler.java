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
 * InitProducerId for idempotent producers (no transactional id): always a fresh producer id at epoch 0,
 * as Kafka answers them, also when the producer presents its old id and epoch (KIP-360): a new id is a
 * clean sequence space, and nothing about the old one needs verifying. Transactional ids need the
 * transaction coordinator, which is not built yet: they are answered COORDINATOR_NOT_AVAILABLE.
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
        request.respond(new InitProducerIdResponse().setProducerId(producerIds.nextProducerId()).setProducerEpoch((short) 0));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new InitProducerIdResponse().setErrorCode(error.code()).setProducerId(-1).setProducerEpoch((short) -1);
    }
}
