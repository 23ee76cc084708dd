package io.krill.broker.security.authorizer;

import io.krill.broker.security.KafkaPrincipal;
import io.krill.controller.metadata.MetadataStore;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * Kafka's ACL authorizer (the semantics of its StandardAuthorizer) over ACLs kept in the metadata store
 * (layout in {@link AclEntities}). A request is allowed if the principal is a super user; otherwise the
 * ACLs that apply to the resource are those of its literal name, of the literal "*" and of every prefix
 * of its name; among those that name the principal (or {@code User:*}) and the client's address (or
 * "*"), a DENY for the operation or ALL refuses, whatever else allows; else an ALLOW for the operation,
 * ALL, or an operation implying it ({@link AclOperation#allowImplies}) allows. When no ACL at all applies
 * to the resource, {@code allow.everyone.if.no.acl.found} decides.
 *
 * <p>Every broker answers from its own metadata image: the index ({@link AclCache}) is rebuilt when the
 * image's {@code acls/...} entities change, which is checked by map identity on each lookup (one
 * volatile read and a reference compare when nothing changed).
 *
 * <p>Writes change one entity per pattern through the store's atomic {@code updateEntityConfigsAsync}
 * (compare-and-set in ZooKeeper, the change applied to what the store holds), so concurrent changes
 * through different brokers or connections are all kept; they never block: the returned futures complete
 * once this broker's image, hence this authorizer, shows the change.
 *
 * <p>Thread-safe: the cache is an immutable index behind a volatile field; writes hold no lock.
 */
public final class AclAuthorizer implements Authorizer {
    /** Outcomes of scanning the rules of one pattern. */
    private static final int UNDECIDED = 0;
    private static final int ALLOWED = 1;
    private static final int DENIED = 2;

    private final MetadataStore metadata;
    private final Set<KafkaPrincipal> superUsers;
    private final boolean allowEveryoneIfNoAcl;
    private volatile AclCache cache = AclCache.EMPTY;

    public AclAuthorizer(MetadataStore metadata, Collection<KafkaPrincipal> superUsers, boolean allowEveryoneIfNoAcl) {
        this.metadata = metadata;
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAcl = allowEveryoneIfNoAcl;
    }

    /** Parses Kafka's {@code super.users}: principals separated by ';' (blanks ignored). */
    public static List<KafkaPrincipal> parseSuperUsers(String value) {
        List<KafkaPrincipal> users = new ArrayList<>();
        for (String part : value.split(";")) {
            String trimmed = part.trim();
            if (!trimmed.isEmpty()) {
                users.add(KafkaPrincipal.parse(trimmed));
            }
        }
        return users;
    }

    private AclCache cache() {
        AclCache current = cache;
        Map<String, Map<String, String>> entities = metadata.image().allEntityConfigs();
        if (current.source == entities) {
            return current;
        }
        AclCache next = AclCache.of(entities, current);
        cache = next;
        return next;
    }

    @Override
    public boolean authorize(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type,
                             String name) {
        if (superUsers.contains(principal)) {
            return true;
        }
        AclCache acls = cache();
        int decision = UNDECIDED;
        boolean found = false;
        AclCache.Rule[] rules = acls.literal(type, name);
        found |= rules.length > 0;
        decision = decide(rules, principal, host, operation, decision);
        if (decision == DENIED) {
            return false;
        }
        if (!ResourcePattern.WILDCARD.equals(name)) {
            rules = acls.literal(type, ResourcePattern.WILDCARD);
            found |= rules.length > 0;
            decision = decide(rules, principal, host, operation, decision);
            if (decision == DENIED) {
                return false;
            }
        }
        for (AclCache.Prefix prefix : acls.prefixed(type)) {
            if (name.startsWith(prefix.prefix())) {
                found |= prefix.rules().length > 0;
                decision = decide(prefix.rules(), principal, host, operation, decision);
                if (decision == DENIED) {
                    return false;
                }
            }
        }
        return found ? decision == ALLOWED : allowEveryoneIfNoAcl;
    }

    private static int decide(AclCache.Rule[] rules, KafkaPrincipal principal, InetAddress host, AclOperation operation,
                              int decision) {
        for (AclCache.Rule rule : rules) {
            if (!rule.appliesTo(principal, host)) {
                continue;
            }
            if (rule.deny()) {
                if (rule.operation() == AclOperation.ALL || rule.operation() == operation) {
                    return DENIED;
                }
            } else if (rule.operation().allowImplies(operation)) {
                decision = ALLOWED;
            }
        }
        return decision;
    }

    /**
     * Kafka's default resource-type authorization: allowed if the principal may act on a resource of the
     * type no ACL names (super users, allow.everyone.if.no.acl.found), else if an ALLOW (literal or
     * prefixed) for it is not cancelled by a DENY on the same literal name, a prefix of it, or the
     * literal "*".
     */
    @Override
    public boolean authorizeAny(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType type) {
        if (authorize(principal, host, operation, type, "\u0000krill-no-such-resource")) {
            return true;
        }
        AclCache acls = cache();
        Set<String> deniedLiterals = new LinkedHashSet<>();
        Set<String> deniedPrefixes = new LinkedHashSet<>();
        List<ResourcePattern> allowed = new ArrayList<>();
        for (AclBinding binding : acls.bindings(type)) {
            AccessControlEntry entry = binding.entry();
            if (!principalMatches(entry.principal(), principal) || !hostMatches(entry.host(), host)) {
                continue;
            }
            boolean deny = entry.permission() == AclPermissionType.DENY;
            if (deny && (entry.operation() == AclOperation.ALL || entry.operation() == operation)) {
                (binding.pattern().patternType() == PatternType.LITERAL ? deniedLiterals : deniedPrefixes)
                        .add(binding.pattern().name());
            } else if (!deny && entry.operation().allowImplies(operation)) {
                allowed.add(binding.pattern());
            }
        }
        if (deniedLiterals.contains(ResourcePattern.WILDCARD)) {
            return false;
        }
        for (ResourcePattern pattern : allowed) {
            boolean cancelled = pattern.patternType() == PatternType.LITERAL && deniedLiterals.contains(pattern.name());
            for (String prefix : deniedPrefixes) {
                cancelled |= pattern.name().startsWith(prefix);
            }
            if (!cancelled) {
                return true;
            }
        }
        return false;
    }

    private static boolean principalMatches(String aclPrincipal, KafkaPrincipal principal) {
        return AccessControlEntry.WILDCARD_PRINCIPAL.equals(aclPrincipal) || aclPrincipal.equals(principal.toString());
    }

    private static boolean hostMatches(String aclHost, InetAddress host) {
        return AccessControlEntry.WILDCARD_HOST.equals(aclHost) || (host != null && aclHost.equals(host.getHostAddress()));
    }

    /**
     * One atomic change of each pattern's entity, adding its entries to what the store holds (so a
     * binding that exists already changes nothing); every binding of a pattern shares its write's future.
     */
    @Override
    public List<CompletableFuture<Void>> createAcls(List<AclBinding> bindings) {
        Map<ResourcePattern, List<AccessControlEntry>> byPattern = new LinkedHashMap<>();
        for (AclBinding binding : bindings) {
            byPattern.computeIfAbsent(binding.pattern(), p -> new ArrayList<>()).add(binding.entry());
        }
        Map<ResourcePattern, CompletableFuture<Void>> writes = new HashMap<>();
        byPattern.forEach((pattern, entries) -> writes.put(pattern, update(pattern, current -> {
            Map<String, String> next = new HashMap<>(current);
            for (AccessControlEntry entry : entries) {
                next.put(AclEntities.key(entry), AclEntities.VALUE);
            }
            return next;
        })));
        List<CompletableFuture<Void>> results = new ArrayList<>(bindings.size());
        for (AclBinding binding : bindings) {
            results.add(writes.get(binding.pattern()));
        }
        return results;
    }

    @Override
    public List<AclBinding> acls(AclBindingFilter filter) {
        List<AclBinding> matching = new ArrayList<>();
        for (AclBinding binding : cache().bindings()) {
            if (filter.matches(binding)) {
                matching.add(binding);
            }
        }
        return matching;
    }

    /**
     * The filters match against this broker's ACLs; the matches are removed with one atomic change per
     * pattern's entity (removing only the matched entries from what the store holds, so ACLs another
     * broker added meanwhile stay). A filter's future completes when the writes of all its patterns have.
     */
    @Override
    public List<CompletableFuture<List<AclBinding>>> deleteAcls(List<AclBindingFilter> filters) {
        List<List<AclBinding>> matches = new ArrayList<>(filters.size());
        Map<ResourcePattern, Set<AccessControlEntry>> toDelete = new LinkedHashMap<>();
        for (AclBindingFilter filter : filters) {
            List<AclBinding> matching = acls(filter);
            matches.add(matching);
            for (AclBinding binding : matching) {
                toDelete.computeIfAbsent(binding.pattern(), p -> new LinkedHashSet<>()).add(binding.entry());
            }
        }
        Map<ResourcePattern, CompletableFuture<Void>> writes = new HashMap<>();
        toDelete.forEach((pattern, entries) -> writes.put(pattern, update(pattern, current -> {
            Map<String, String> next = new HashMap<>(current);
            for (AccessControlEntry entry : entries) {
                next.remove(AclEntities.key(entry));
            }
            return next;
        })));
        List<CompletableFuture<List<AclBinding>>> results = new ArrayList<>(filters.size());
        for (List<AclBinding> matching : matches) {
            Set<ResourcePattern> patterns = new LinkedHashSet<>();
            matching.forEach(binding -> patterns.add(binding.pattern()));
            CompletableFuture<?>[] written = patterns.stream().map(writes::get).toArray(CompletableFuture[]::new);
            results.add(CompletableFuture.allOf(written).thenApply(ignored -> matching));
        }
        return results;
    }

    /** The store's atomic change of a pattern's entity; {@code change} runs on a store thread: map edits only. */
    private CompletableFuture<Void> update(ResourcePattern pattern, UnaryOperator<Map<String, String>> change) {
        return metadata.updateEntityConfigsAsync(AclEntities.entity(pattern), change).thenApply(written -> null);
    }
}
