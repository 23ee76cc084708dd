package io.krill.broker.api.handlers;

import io.krill.broker.api.AbstractApiHandler;
import io.krill.broker.api.Request;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import java.util.function.BooleanSupplier;

/**
 * A handler of a share group API (KIP-932): answered only while the cluster's {@code share.version} is 1 or
 * more; with 0 every one of them answers UNSUPPORTED_VERSION, as Kafka's do, before anything is read.
 *
 * <p>Thread-safety: stateless apart from what subclasses keep.
 */
abstract class ShareGroupApiHandler extends AbstractApiHandler {
    private final BooleanSupplier shareGroupsEnabled;

    /** @param shareGroupsEnabled whether share groups are on ({@code share.version} 1 or more) */
    ShareGroupApiHandler(ApiKeys apiKey, int minVersion, int maxVersion, BooleanSupplier shareGroupsEnabled) {
        super(apiKey, minVersion, maxVersion);
        this.shareGroupsEnabled = shareGroupsEnabled;
    }

    @Override
    public final void handle(Request request) {
        if (!shareGroupsEnabled.getAsBoolean()) {
            request.respond(errorResponse(request, Errors.UNSUPPORTED_VERSION));
            return;
        }
        handleEnabled(request);
    }

    /**
     * What a ShareFetch or ShareAcknowledge of {@code groupId} and {@code memberId} is refused with before
     * anything else, as Kafka: GROUP_AUTHORIZATION_FAILED without READ on the group, INVALID_REQUEST without
     * a group or member id; null when it may go on.
     */
    static Errors memberRefusal(Authorization authorization, Request request, String groupId, String memberId) {
        if (!authorization.group(request, AclOperation.READ, groupId == null ? "" : groupId)) {
            return Errors.GROUP_AUTHORIZATION_FAILED;
        }
        if (groupId == null || groupId.isEmpty() || memberId == null || memberId.isEmpty()) {
            return Errors.INVALID_REQUEST;
        }
        return null;
    }

    /** Handles {@code request} with share groups on. */
    protected abstract void handleEnabled(Request request);
}
