package io.krill.broker.security.authorizer;

/**
 * Selects resource patterns, with Kafka's rules: type ANY matches every type; a null name every name;
 * pattern type ANY matches patterns of any type with exactly the name, MATCH the patterns that would
 * apply to a resource of that name (the literal name, the literal "*", prefixes of it), LITERAL and
 * PREFIXED the patterns of that type with exactly the name. Immutable.
 */
public record ResourcePatternFilter(ResourceType resourceType, String name, PatternType patternType) {

    public boolean matches(ResourcePattern pattern) {
        if (resourceType != ResourceType.ANY && resourceType != pattern.resourceType()) {
            return false;
        }
        if (patternType != PatternType.ANY && patternType != PatternType.MATCH && patternType != pattern.patternType()) {
            return false;
        }
        if (name == null) {
            return true;
        }
        if (patternType == PatternType.ANY || patternType == pattern.patternType()) {
            return name.equals(pattern.name());
        }
        return switch (pattern.patternType()) {
            case LITERAL -> name.equals(pattern.name()) || pattern.name().equals(ResourcePattern.WILDCARD);
            case PREFIXED -> name.startsWith(pattern.name());
            default -> false;
        };
    }

    /** True if a field is UNKNOWN: such a filter is refused (INVALID_REQUEST). */
    public boolean isUnknown() {
        return resourceType == ResourceType.UNKNOWN || patternType == PatternType.UNKNOWN;
    }
}
