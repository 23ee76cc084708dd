package io.krill.broker.security.authorizer;

/**
 * Selects entries: a null principal or host matches any, ANY operation or permission matches any,
 * anything else must be equal (no wildcard expansion: the filter "User:*" selects the entries that name
 * "User:*"). Immutable.
 */
public record AccessControlEntryFilter(String principal, String host, AclOperation operation,
                                       AclPermissionType permission) {

    public boolean matches(AccessControlEntry entry) {
        return (principal == null || principal.equals(entry.principal()))
                && (host == null || host.equals(entry.host()))
                && (operation == AclOperation.ANY || operation == entry.operation())
                && (permission == AclPermissionType.ANY || permission == entry.permission());
    }

    public boolean isUnknown() {
        return operation == AclOperation.UNKNOWN || permission == AclPermissionType.UNKNOWN;
    }
}
