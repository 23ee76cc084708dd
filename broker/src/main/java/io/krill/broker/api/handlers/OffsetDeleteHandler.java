package io.krill.broker.api.handlers;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.protocol.ApiMessage;

/**
 * OffsetDelete (KIP-496): removes a group's committed offsets of topics its members do not subscribe
 * to (GROUP_SUBSCRIBED_TO_TOPIC for those they do).
 *
 * <p>Thread-safe: stateless.
 */
public final class OffsetDeleteHandler implements ApiHandler {
    private final GroupCoordinator coordinator;

    public OffsetDeleteHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_DELETE;
    }

    @Override
    public short minVersion() {
        return 0;
    }

    @Override
    public short maxVersion() {
        return 0;
    }

    @Override
    public void handle(Request request) {
        OffsetDeleteRequest body = request.body();
        coordinator.deleteOffsets(body, request::respond);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new OffsetDeleteResponse().setErrorCode(error.code());
    }
}
