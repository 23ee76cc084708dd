package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclBinding;
import io.krill.broker.security.authorizer.AclBindingFilter;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteAclsRequest;
import io.krill.wire.message.DeleteAclsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteAcls v1-3 (kafka-acls --remove): needs ALTER on the cluster; per filter, the ACLs it matched and
 * deleted. A filter with an UNKNOWN element is INVALID_REQUEST on its own; SECURITY_DISABLED for every
 * filter without an authorizer. The request is answered when the authorizer's futures (one per filter)
 * have all completed ({@link PendingAnswer}), so the request thread never waits for ZooKeeper; a failed
 * store write is that filter's error (REQUEST_TIMED_OUT when ZooKeeper is unavailable).
 *
 * <p>Thread-safe: stateless (a request's state lives in its callbacks).
 */
public final class DeleteAclsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public DeleteAclsHandler(BrokerContext context) {
        super(ApiKeys.DELETE_ACLS, 1, 3);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        Authorization authorization = context.authorization();
        authorization.requireCluster(request, AclOperation.ALTER);
        DeleteAclsRequest body = request.body();
        if (!authorization.enabled()) {
            request.respond(uniform(body, Errors.SECURITY_DISABLED, AclRequests.NO_AUTHORIZER));
            return;
        }
        List<AclBindingFilter> valid = new ArrayList<>();
        List<DeleteAclsResponse.DeleteAclsFilterResult> validResults = new ArrayList<>();
        DeleteAclsResponse response = new DeleteAclsResponse();
        for (DeleteAclsRequest.DeleteAclsFilter filter : body.filters()) {
            DeleteAclsResponse.DeleteAclsFilterResult result = new DeleteAclsResponse.DeleteAclsFilterResult();
            try {
                valid.add(AclRequests.filter(filter.resourceTypeFilter(), filter.resourceNameFilter(),
                        filter.patternTypeFilter(), filter.principalFilter(), filter.hostFilter(), filter.operation(),
                        filter.permissionType()));
                validResults.add(result);
            } catch (ApiException e) {
                result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
            }
            response.filterResults().add(result);
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        if (!valid.isEmpty()) {
            List<CompletableFuture<List<AclBinding>>> deleted = authorization.authorizer().deleteAcls(valid);
            for (int i = 0; i < valid.size(); i++) {
                DeleteAclsResponse.DeleteAclsFilterResult result = validResults.get(i);
                CompletableFuture<Void> listed = deleted.get(i).thenAccept(bindings -> matched(result, bindings));
                writes.add(PendingAnswer.onFailure(listed, valid.get(i),
                        (error, message) -> result.setErrorCode(error.code()).setErrorMessage(message)));
            }
        }
        PendingAnswer.respondWhenDone(request, this, writes, () -> response);
    }

    private static void matched(DeleteAclsResponse.DeleteAclsFilterResult result, List<AclBinding> bindings) {
        for (AclBinding binding : bindings) {
            result.matchingAcls().add(new DeleteAclsResponse.DeleteAclsMatchingAcl()
                    .setResourceType(binding.pattern().resourceType().code())
                    .setResourceName(binding.pattern().name())
                    .setPatternType(binding.pattern().patternType().code())
                    .setPrincipal(binding.entry().principal()).setHost(binding.entry().host())
                    .setOperation(binding.entry().operation().code())
                    .setPermissionType(binding.entry().permission().code()));
        }
    }

    private static DeleteAclsResponse uniform(DeleteAclsRequest body, Errors error, String message) {
        DeleteAclsResponse response = new DeleteAclsResponse();
        for (int i = 0; i < body.filters().size(); i++) {
            response.filterResults().add(new DeleteAclsResponse.DeleteAclsFilterResult().setErrorCode(error.code())
                    .setErrorMessage(message));
        }
        return response;
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return uniform(request.body(), error, error.message());
    }
}
