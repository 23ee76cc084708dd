package io.krill.broker.security.authorizer;

/** Selects ACLs by pattern and entry (DescribeAcls, DeleteAcls). Immutable. */
public record AclBindingFilter(ResourcePatternFilter patternFilter, AccessControlEntryFilter entryFilter) {

    public boolean matches(AclBinding binding) {
        return patternFilter.matches(binding.pattern()) && entryFilter.matches(binding.entry());
    }

    public boolean isUnknown() {
        return patternFilter.isUnknown() || entryFilter.isUnknown();
    }
}
