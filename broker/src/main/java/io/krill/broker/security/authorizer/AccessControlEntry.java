package io.krill.broker.security.authorizer;

import java.util.Objects;

/**
 * Who may (or may not) do what from where: principal ({@code type:name}, or {@code User:*} for everyone),
 * host (an IP address or "*"), operation and permission. Immutable.
 */
public record AccessControlEntry(String principal, String host, AclOperation operation, AclPermissionType permission) {
    public static final String WILDCARD_PRINCIPAL = "User:*";
    public static final String WILDCARD_HOST = "*";

    public AccessControlEntry {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(permission, "permission");
    }
}
