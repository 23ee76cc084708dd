package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.group.RequestContext;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.Authorization;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** What the group API handlers share: the {@link RequestContext} of a request. Stateless. */
final class GroupRequests {
    private GroupRequests() {
    }

    static RequestContext context(Request request) {
        return new RequestContext(request.clientId(), clientHost(request.connection().remoteAddress()), request.version());
    }

    /** As {@link #context(Request)}, with the topics the request's principal may describe. */
    static RequestContext context(Request request, Authorization authorization) {
        return new RequestContext(request.clientId(), clientHost(request.connection().remoteAddress()), request.version(),
                authorization.topicPredicate(request, AclOperation.DESCRIBE));
    }

    /** As Kafka shows it: "/" and the peer's IP address. */
    static String clientHost(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return "/" + inet.getAddress().getHostAddress();
        }
        return address == null ? "" : address.toString();
    }
}
