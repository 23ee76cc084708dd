package io.krill.broker.security.authorizer;

/** One ACL: an entry bound to a resource pattern. Immutable. */
public record AclBinding(ResourcePattern pattern, AccessControlEntry entry) {
}
