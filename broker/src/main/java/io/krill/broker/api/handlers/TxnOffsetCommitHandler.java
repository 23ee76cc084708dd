package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * TxnOffsetCommit v0-5 at the group coordinator: the transaction is verified with its coordinator (the
 * group must have been added to it with AddOffsetsToTxn; KIP-890 part 1), or from v5 (transaction version
 * 2, KIP-890 part 2, where the producer sends no AddOffsetsToTxn) the group's partition is added to it;
 * then the offsets are written as a transactional batch of the producer and become the group's committed
 * offsets only when the transaction's commit marker reaches the group's partition. v6 (topic ids instead
 * of names, KIP-1319) is not served yet.
 *
 * <p>Thread-safe: stateless.
 */
public final class TxnOffsetCommitHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;
    private final MetadataStore metadata;

    public TxnOffsetCommitHandler(GroupCoordinator coordinator, Authorization authorization, MetadataStore metadata) {
        super(ApiKeys.TXN_OFFSET_COMMIT, 0, 5);
        this.coordinator = coordinator;
        this.authorization = authorization;
        this.metadata = metadata;
    }

    /**
     * As Kafka: topics the principal may not read (TOPIC_AUTHORIZATION_FAILED) and topics that do not exist
     * (UNKNOWN_TOPIC_OR_PARTITION) are answered partition by partition and kept out of the transaction.
     */
    @Override
    public void handle(Request request) {
        TxnOffsetCommitRequest body = request.body();
        authorization.requireTransactionalId(request, AclOperation.WRITE, body.transactionalId());
        authorization.requireGroup(request, AclOperation.READ, body.groupId());
        Set<String> denied = authorization.deniedTopics(request, AclOperation.READ, body.topics(),
                TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic::name);
        MetadataImage image = metadata.image();
        List<TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic> unauthorized = new ArrayList<>();
        List<TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic> unknown = new ArrayList<>();
        List<TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic> allowed = new ArrayList<>();
        for (TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic topic : body.topics()) {
            (denied.contains(topic.name()) ? unauthorized : image.topic(topic.name()) == null ? unknown : allowed)
                    .add(topic);
        }
        if (unauthorized.isEmpty() && unknown.isEmpty()) {
            coordinator.commitTransactionalOffsets(body, request.version(),
                    response -> request.respond(forVersion(response, request.version())));
            return;
        }
        List<TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic> refused = new ArrayList<>();
        refused.addAll(GroupCoordinator.txnCommitError(new TxnOffsetCommitRequest().setTopics(unauthorized),
                Errors.TOPIC_AUTHORIZATION_FAILED).topics());
        refused.addAll(GroupCoordinator.txnCommitError(new TxnOffsetCommitRequest().setTopics(unknown),
                Errors.UNKNOWN_TOPIC_OR_PARTITION).topics());
        if (allowed.isEmpty()) {
            request.respond(new TxnOffsetCommitResponse().setTopics(refused));
            return;
        }
        body.setTopics(allowed);
        coordinator.commitTransactionalOffsets(body, request.version(), response -> {
            response.topics().addAll(refused);
            request.respond(forVersion(response, request.version()));
        });
    }

    /**
     * As Kafka: clients below v2 may not retry COORDINATOR_LOAD_IN_PROGRESS (the fix came with v2), so they
     * are told COORDINATOR_NOT_AVAILABLE, which makes them look the coordinator up again and retry.
     */
    private static TxnOffsetCommitResponse forVersion(TxnOffsetCommitResponse response, short version) {
        if (version < 2) {
            for (TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic topic : response.topics()) {
                for (TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition partition : topic.partitions()) {
                    if (partition.errorCode() == Errors.COORDINATOR_LOAD_IN_PROGRESS.code()) {
                        partition.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
                    }
                }
            }
        }
        return response;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        TxnOffsetCommitRequest body = request.body();
        return forVersion(GroupCoordinator.txnCommitError(body, error), request.version());
    }
}
