package io.krill.broker.api.handlers;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.authorizer.AccessControlEntry;
import io.krill.broker.security.authorizer.AccessControlEntryFilter;
import io.krill.broker.security.authorizer.AclBinding;
import io.krill.broker.security.authorizer.AclBindingFilter;
import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.AclPermissionType;
import io.krill.broker.security.authorizer.PatternType;
import io.krill.broker.security.authorizer.ResourcePattern;
import io.krill.broker.security.authorizer.ResourcePatternFilter;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;

/**
 * What the three ACL APIs share: Kafka's validation of a new ACL and of a filter, each failure an
 * INVALID_REQUEST naming what is wrong. Stateless.
 */
final class AclRequests {
    /** Kafka's answer to the ACL APIs when no authorizer is configured. */
    static final String NO_AUTHORIZER = "No Authorizer is configured.";

    private AclRequests() {
    }

    /** A new ACL from its wire fields; ApiException INVALID_REQUEST if it could not be stored. */
    static AclBinding binding(byte resourceType, String resourceName, byte patternType, String principal, String host,
                              byte operation, byte permission) {
        ResourceType type = ResourceType.fromCode(resourceType);
        PatternType pattern = PatternType.fromCode(patternType);
        AclOperation op = AclOperation.fromCode(operation);
        AclPermissionType perm = AclPermissionType.fromCode(permission);
        if (type == ResourceType.UNKNOWN || type == ResourceType.ANY) {
            throw invalid("Invalid resource type " + type);
        }
        if (!pattern.isSpecific()) {
            throw invalid("Invalid pattern type " + pattern + ": an ACL is LITERAL or PREFIXED");
        }
        if (op == AclOperation.UNKNOWN || op == AclOperation.ANY) {
            throw invalid("Invalid operation " + op);
        }
        if (perm == AclPermissionType.UNKNOWN || perm == AclPermissionType.ANY) {
            throw invalid("Invalid permission type " + perm);
        }
        if (resourceName == null || resourceName.isEmpty()) {
            throw invalid("Invalid empty resource name");
        }
        if (type == ResourceType.CLUSTER && !ResourceType.CLUSTER_NAME.equals(resourceName)) {
            throw invalid("The only valid name for the CLUSTER resource is " + ResourceType.CLUSTER_NAME);
        }
        if (principal == null) {
            throw invalid("Invalid null principal");
        }
        if (!AccessControlEntry.WILDCARD_PRINCIPAL.equals(principal)) {
            try {
                KafkaPrincipal.parse(principal);
            } catch (IllegalArgumentException e) {
                throw invalid("Invalid principal " + principal + ": expected type:name");
            }
        }
        if (host == null || host.isEmpty()) {
            throw invalid("Invalid empty host");
        }
        return new AclBinding(new ResourcePattern(type, resourceName, pattern),
                new AccessControlEntry(principal, host, op, perm));
    }

    /** A filter from its wire fields; ApiException INVALID_REQUEST if a field is UNKNOWN. */
    static AclBindingFilter filter(byte resourceType, String resourceName, byte patternType, String principal,
                                   String host, byte operation, byte permission) {
        AclBindingFilter filter = new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.fromCode(resourceType), resourceName,
                        PatternType.fromCode(patternType)),
                new AccessControlEntryFilter(principal, host, AclOperation.fromCode(operation),
                        AclPermissionType.fromCode(permission)));
        if (filter.isUnknown()) {
            throw invalid("The filter has an UNKNOWN element: " + filter);
        }
        return filter;
    }

    private static ApiException invalid(String message) {
        return new ApiException(Errors.INVALID_REQUEST, message);
    }
}
