package io.krill.broker.group;

/**
 * Who sent a group request: the client id and host recorded with members (DescribeGroups shows them)
 * and the API version, where semantics depend on it. Immutable.
 */
public record RequestContext(String clientId, String clientHost, short apiVersion) {
    public RequestContext {
        clientId = clientId == null ? "" : clientId;
        clientHost = clientHost == null ? "" : clientHost;
    }
}
