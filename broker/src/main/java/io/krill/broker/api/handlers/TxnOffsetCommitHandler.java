package io.krill.broker.api.handlers;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.protocol.ApiMessage;

/**
 * TxnOffsetCommit v0-4 at the group coordinator: the offsets are written as a transactional batch of the
 * producer and become the group's committed offsets only when the transaction's commit marker reaches
 * the group's partition. v5 (TV2: implies AddOffsetsToTxn) and v6 (topic ids) are not served: clients
 * on transaction version 1 do not send them.
 *
 * <p>Thread-safe: stateless.
 */
public final class TxnOffsetCommitHandler implements ApiHandler {
    private final GroupCoordinator coordinator;

    public TxnOffsetCommitHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.TXN_OFFSET_COMMIT;
    }

    @Override
    public short minVersion() {
        return 0;
    }

    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    public void handle(Request request) {
        TxnOffsetCommitRequest body = request.body();
        coordinator.commitTransactionalOffsets(body, request::respond);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        TxnOffsetCommitRequest body = request.body();
        return GroupCoordinator.txnCommitError(body, error);
    }
}
