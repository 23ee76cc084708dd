package io.krill.broker.group;

import java.util.function.Predicate;

/**
 * Who sent a group request: the client id and host recorded with members (DescribeGroups shows them),
 * the API version, where semantics depend on it, and the topics the sender may describe (a KIP-848
 * member's regex matches only those, as Kafka filters them). Immutable.
 *
 * @param describableTopics the topics the sender may DESCRIBE; equal predicates for the same principal and
 *                          address (see {@code Authorization.topicPredicate})
 */
public record RequestContext(String clientId, String clientHost, short apiVersion, Predicate<String> describableTopics) {
    /** Every topic: a request without authorization. */
    public static final Predicate<String> ALL_TOPICS = topic -> true;

    public RequestContext {
        clientId = clientId == null ? "" : clientId;
        clientHost = clientHost == null ? "" : clientHost;
        describableTopics = describableTopics == null ? ALL_TOPICS : describableTopics;
    }

    /** A context that may describe every topic. */
    public RequestContext(String clientId, String clientHost, short apiVersion) {
        this(clientId, clientHost, apiVersion, ALL_TOPICS);
    }
}
