package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListGroupsRequest;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * ListGroups v0-5: the groups this broker coordinates, filtered by state (v4+) and type (v5+: classic,
 * consumer, share). COORDINATOR_LOAD_IN_PROGRESS with the groups found when a partition is still loading.
 *
 * <p>Thread-safe: stateless.
 */
public final class ListGroupsHandler extends AbstractApiHandler {
    private final GroupCoordinator coordinator;
    private final Authorization authorization;

    public ListGroupsHandler(GroupCoordinator coordinator, Authorization authorization) {
        super(ApiKeys.LIST_GROUPS, 0, 5);
        this.coordinator = coordinator;
        this.authorization = authorization;
    }

    @Override
    public void handle(Request request) {
        ListGroupsRequest body = request.body();
        GroupCoordinator.ListedGroups listed = coordinator.listGroups(new HashSet<>(body.statesFilter()),
                new HashSet<>(body.typesFilter()));
        List<ListGroupsResponse.ListedGroup> groups = listed.groups();
        // Kafka: DESCRIBE on the cluster lists every group, else only the groups one may DESCRIBE.
        if (authorization.enabled() && !authorization.cluster(request, AclOperation.DESCRIBE)) {
            groups = new ArrayList<>(groups);
            groups.removeIf(group -> !authorization.group(request, AclOperation.DESCRIBE, group.groupId()));
        }
        request.respond(new ListGroupsResponse().setErrorCode(listed.error().code()).setGroups(groups));
    }

    @Override
    public ApiMessage errorResponse(Request request, Errors error) {
        return new ListGroupsResponse().setErrorCode(error.code());
    }
}
