package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListTransactionsRequest;
import io.krill.wire.message.ListTransactionsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.HashSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * ListTransactions v0-2: the transactional ids this broker coordinates (the admin client asks every
 * broker), filtered by state names (unknown ones are echoed back), producer ids, v1's minimum duration
 * of an open transaction and v2's transactional id regular expression (INVALID_REGULAR_EXPRESSION when
 * it does not compile). COORDINATOR_LOAD_IN_PROGRESS while a partition loads.
 *
 * <p>Thread-safe: stateless.
 */
public final class ListTransactionsHandler extends AbstractApiHandler {
    private final Authorization authorization;
    private final TransactionCoordinator coordinator;

    public ListTransactionsHandler(TransactionCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.LIST_TRANSACTIONS, 0, 2);
        this.authorization = authorization;
        this.coordinator = coordinator;
    }

    @Override
    public void handle(Request request) {
        ListTransactionsRequest body = request.body();
        long duration = request.version() >= 1 ? body.durationFilter() : -1;
        Pattern pattern = null;
        String regex = request.version() >= 2 ? body.transactionalIdPattern() : null;
        if (regex != null && !regex.isEmpty()) {
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                request.respond(errorResponse(request, Errors.INVALID_REGULAR_EXPRESSION));
                return;
            }
        }
        ListTransactionsResponse response = coordinator.list(new HashSet<>(body.stateFilters()),
                new HashSet<>(body.producerIdFilters()), duration, pattern);
        if (authorization.enabled()) {
            response.transactionStates().removeIf(state ->
                    !authorization.transactionalId(request, AclOperation.DESCRIBE, state.transactionalId()));
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ListTransactionsResponse().setErrorCode(error.code());
    }
}
