package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclBinding;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.CreateAclsRequest;
import io.krill.wire.message.CreateAclsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * CreateAcls v1-3 (kafka-acls --add): needs ALTER on the cluster. Each creation is validated on its own
 * (INVALID_REQUEST with the reason); the valid ones are stored together, and the request is answered
 * when the authorizer's futures (one per binding) have all completed ({@link PendingAnswer}), so the
 * request thread never waits for ZooKeeper; a failed store write is that creation's error
 * (REQUEST_TIMED_OUT when ZooKeeper is unavailable). SECURITY_DISABLED for every creation when no
 * authorizer is configured, as Kafka answers.
 *
 * <p>Thread-safe: stateless (a request's state lives in its callbacks).
 */
public final class CreateAclsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public CreateAclsHandler(BrokerContext context) {
        super(ApiKeys.CREATE_ACLS, 1, 3);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        Authorization authorization = context.authorization();
        authorization.requireCluster(request, AclOperation.ALTER);
        CreateAclsRequest body = request.body();
        CreateAclsResponse response = new CreateAclsResponse();
        if (!authorization.enabled()) {
            for (int i = 0; i < body.creations().size(); i++) {
                response.results().add(result(Errors.SECURITY_DISABLED, AclRequests.NO_AUTHORIZER));
            }
            request.respond(response);
            return;
        }
        List<AclBinding> valid = new ArrayList<>();
        List<CreateAclsResponse.AclCreationResult> validResults = new ArrayList<>();
        for (CreateAclsRequest.AclCreation creation : body.creations()) {
            try {
                valid.add(AclRequests.binding(creation.resourceType(), creation.resourceName(),
                        creation.resourcePatternType(), creation.principal(), creation.host(), creation.operation(),
                        creation.permissionType()));
                CreateAclsResponse.AclCreationResult result = result(Errors.NONE, null);
                validResults.add(result);
                response.results().add(result);
            } catch (ApiException e) {
                response.results().add(result(e.error(), e.getMessage()));
            }
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        if (!valid.isEmpty()) {
            List<CompletableFuture<Void>> created = authorization.authorizer().createAcls(valid);
            for (int i = 0; i < valid.size(); i++) {
                CreateAclsResponse.AclCreationResult result = validResults.get(i);
                writes.add(PendingAnswer.onFailure(created.get(i), valid.get(i),
                        (error, message) -> result.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        PendingAnswer.respondWhenDone(request, this, writes, () -> response);
    }

    private static CreateAclsResponse.AclCreationResult result(Errors error, String message) {
        return new CreateAclsResponse.AclCreationResult().setErrorCode(error.code()).setErrorMessage(message);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        CreateAclsRequest body = request.body();
        CreateAclsResponse response = new CreateAclsResponse();
        for (int i = 0; i < body.creations().size(); i++) {
            response.results().add(result(error, error.message()));
        }
        return response;
    }
}
