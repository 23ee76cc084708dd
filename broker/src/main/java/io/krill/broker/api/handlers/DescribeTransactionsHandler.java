package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeTransactionsRequest;
import io.krill.wire.message.DescribeTransactionsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.Set;

/**
 * DescribeTransactions v0: state, producer id and epoch, timeout, start time and partitions of each
 * transactional id this broker coordinates (NOT_COORDINATOR for others, TRANSACTIONAL_ID_NOT_FOUND for
 * unknown ones).
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeTransactionsHandler extends AbstractApiHandler {
    private final Authorization authorization;
    private final TransactionCoordinator coordinator;

    public DescribeTransactionsHandler(TransactionCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.DESCRIBE_TRANSACTIONS, 0, 0);
        this.authorization = authorization;
        this.coordinator = coordinator;
    }

    @Override
    public void handle(Request request) {
        DescribeTransactionsRequest body = request.body();
        DescribeTransactionsResponse response = new DescribeTransactionsResponse();
        for (String transactionalId : body.transactionalIds()) {
            if (!authorization.transactionalId(request, AclOperation.DESCRIBE, transactionalId)) {
                response.transactionStates().add(new DescribeTransactionsResponse.TransactionState()
                        .setTransactionalId(transactionalId)
                        .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
                continue;
            }
            DescribeTransactionsResponse.TransactionState state = coordinator.describe(transactionalId);
            // Kafka leaves out the partitions of topics the principal may not DESCRIBE.
            Set<String> hidden = authorization.deniedTopics(request, AclOperation.DESCRIBE, state.topics(),
                    DescribeTransactionsResponse.TopicData::topic);
            state.topics().removeIf(topic -> hidden.contains(topic.topic()));
            response.transactionStates().add(state);
        }
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        DescribeTransactionsRequest body = request.body();
        DescribeTransactionsResponse response = new DescribeTransactionsResponse();
        for (String transactionalId : body.transactionalIds()) {
            response.transactionStates().add(new DescribeTransactionsResponse.TransactionState()
                    .setTransactionalId(transactionalId).setErrorCode(error.code()).setTransactionState(""));
        }
        return response;
    }
}
