package io.krill.broker.security.authorizer;

import java.util.Objects;

/** The resources one ACL applies to: a type, a name and how the name matches (LITERAL or PREFIXED). Immutable. */
public record ResourcePattern(ResourceType resourceType, String name, PatternType patternType) {
    /** The literal name that matches every resource of a type. */
    public static final String WILDCARD = "*";

    public ResourcePattern {
        Objects.requireNonNull(resourceType, "resourceType");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(patternType, "patternType");
    }
}
