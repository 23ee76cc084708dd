package io.krill.broker.api.handlers;

import io.krill.broker.BrokerContext;
import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclBinding;
import io.krill.broker.security.authorizer.AclBindingFilter;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.security.authorizer.ResourcePattern;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeAclsRequest;
import io.krill.wire.message.DescribeAclsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DescribeAcls v1-3 (kafka-acls --list): needs DESCRIBE on the cluster; answers the ACLs the filter
 * matches, grouped by resource pattern. INVALID_REQUEST for a filter with an UNKNOWN element,
 * SECURITY_DISABLED without an authorizer.
 *
 * <p>Thread-safe: stateless.
 */
public final class DescribeAclsHandler extends AbstractApiHandler {
    private final BrokerContext context;

    public DescribeAclsHandler(BrokerContext context) {
        super(ApiKeys.DESCRIBE_ACLS, 1, 3);
        this.context = context;
    }

    @Override
    public void handle(Request request) {
        Authorization authorization = context.authorization();
        authorization.requireCluster(request, AclOperation.DESCRIBE);
        if (!authorization.enabled()) {
            throw new ApiException(Errors.SECURITY_DISABLED, AclRequests.NO_AUTHORIZER);
        }
        DescribeAclsRequest body = request.body();
        AclBindingFilter filter = AclRequests.filter(body.resourceTypeFilter(), body.resourceNameFilter(),
                body.patternTypeFilter(), body.principalFilter(), body.hostFilter(), body.operation(),
                body.permissionType());
        Map<ResourcePattern, DescribeAclsResponse.DescribeAclsResource> resources = new LinkedHashMap<>();
        for (AclBinding binding : authorization.authorizer().acls(filter)) {
            ResourcePattern pattern = binding.pattern();
            resources.computeIfAbsent(pattern, p -> new DescribeAclsResponse.DescribeAclsResource()
                    .setResourceType(p.resourceType().code()).setResourceName(p.name())
                    .setPatternType(p.patternType().code()))
                    .acls().add(new DescribeAclsResponse.AclDescription()
                            .setPrincipal(binding.entry().principal()).setHost(binding.entry().host())
                            .setOperation(binding.entry().operation().code())
                            .setPermissionType(binding.entry().permission().code()));
        }
        DescribeAclsResponse response = new DescribeAclsResponse();
        response.resources().addAll(resources.values());
        request.respond(response);
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new DescribeAclsResponse().setErrorCode(error.code()).setErrorMessage(error.message());
    }
}
