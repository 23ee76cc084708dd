package io.krill.broker.security.authorizer;

import io.krill.broker.security.KafkaPrincipal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ACLs of one metadata image, indexed for lookups: literal patterns by resource type and name (the
 * wildcard "*" is a name like any other), prefixed patterns by resource type in an array scanned with
 * {@code startsWith}. Principals and hosts are parsed once here, so a lookup compares records and
 * addresses and allocates nothing. Built only when the image's {@code acls/...} entities change.
 *
 * <p>Immutable; thread-safe.
 */
final class AclCache {
    private static final Logger LOG = LoggerFactory.getLogger(AclCache.class);
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    static final Rule[] NONE = new Rule[0];
    private static final Prefix[] NO_PREFIXES = new Prefix[0];
    static final AclCache EMPTY = new AclCache(Map.of(), Map.of());

    /** One entry, parsed for matching. {@code principal} null means any principal; {@code host} null any host. */
    record Rule(KafkaPrincipal principal, InetAddress host, boolean hostNeverMatches, AclOperation operation,
                boolean deny) {

        boolean appliesTo(KafkaPrincipal who, InetAddress from) {
            if (principal != null && !principal.equals(who)) {
                return false;
            }
            if (hostNeverMatches) {
                return false;
            }
            return host == null || host.equals(from);
        }
    }

    record Prefix(String prefix, Rule[] rules) {
    }

    /** The image's entity map this cache was checked against (identity), and the acls entities it holds. */
    final Map<String, Map<String, String>> source;
    private final Map<String, Map<String, String>> aclEntities;
    private final Map<ResourceType, Map<String, Rule[]>> literal = new EnumMap<>(ResourceType.class);
    private final Map<ResourceType, Prefix[]> prefixed = new EnumMap<>(ResourceType.class);
    private final Map<ResourceType, List<AclBinding>> bindingsByType = new EnumMap<>(ResourceType.class);
    private final List<AclBinding> bindings;

    private AclCache(Map<String, Map<String, String>> source, Map<String, Map<String, String>> aclEntities) {
        this.source = source;
        this.aclEntities = aclEntities;
        List<AclBinding> all = new ArrayList<>();
        Map<ResourceType, List<Prefix>> prefixes = new EnumMap<>(ResourceType.class);
        aclEntities.forEach((entity, configs) -> {
            ResourcePattern pattern = AclEntities.pattern(entity.substring(AclEntities.TYPE.length() + 1));
            if (pattern == null) {
                LOG.warn("Ignoring ACL entity {}: not acls/<resource type>/<pattern type>/<name>", entity);
                return;
            }
            List<Rule> rules = new ArrayList<>();
            for (String key : configs.keySet()) {
                AccessControlEntry entry = AclEntities.entry(key);
                Rule rule = entry == null ? null : rule(entry);
                if (rule == null) {
                    LOG.warn("Ignoring ACL {} of {}: not principal|host|operation|permission", key, entity);
                    continue;
                }
                rules.add(rule);
                AclBinding binding = new AclBinding(pattern, entry);
                all.add(binding);
                bindingsByType.computeIfAbsent(pattern.resourceType(), t -> new ArrayList<>()).add(binding);
            }
            Rule[] array = rules.toArray(NONE);
            if (pattern.patternType() == PatternType.LITERAL) {
                literal.computeIfAbsent(pattern.resourceType(), t -> new HashMap<>()).put(pattern.name(), array);
            } else if (pattern.patternType() == PatternType.PREFIXED) {
                prefixes.computeIfAbsent(pattern.resourceType(), t -> new ArrayList<>())
                        .add(new Prefix(pattern.name(), array));
            }
        });
        prefixes.forEach((type, list) -> prefixed.put(type, list.toArray(NO_PREFIXES)));
        this.bindings = Collections.unmodifiableList(all);
    }

    /** The cache of {@code entityConfigs} (a MetadataImage's), reusing {@code previous} if its ACLs are the same. */
    static AclCache of(Map<String, Map<String, String>> entityConfigs, AclCache previous) {
        Map<String, Map<String, String>> acls = new HashMap<>();
        String prefix = AclEntities.TYPE + "/";
        entityConfigs.forEach((entity, configs) -> {
            if (entity.startsWith(prefix)) {
                acls.put(entity, configs);
            }
        });
        if (previous != null && sameIdentities(acls, previous.aclEntities)) {
            return previous.withSource(entityConfigs);
        }
        return new AclCache(entityConfigs, acls);
    }

    private AclCache withSource(Map<String, Map<String, String>> newSource) {
        return new AclCache(newSource, this);
    }

    /** A copy pointing at a new source map, sharing the indexes. */
    private AclCache(Map<String, Map<String, String>> source, AclCache same) {
        this.source = source;
        this.aclEntities = same.aclEntities;
        this.literal.putAll(same.literal);
        this.prefixed.putAll(same.prefixed);
        this.bindingsByType.putAll(same.bindingsByType);
        this.bindings = same.bindings;
    }

    /** Image maps hold the same inner map instances until an entity changes, so identity tells what changed. */
    private static boolean sameIdentities(Map<String, Map<String, String>> a, Map<String, Map<String, String>> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, Map<String, String>> entry : a.entrySet()) {
            if (b.get(entry.getKey()) != entry.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static Rule rule(AccessControlEntry entry) {
        KafkaPrincipal principal = null;
        if (!AccessControlEntry.WILDCARD_PRINCIPAL.equals(entry.principal())) {
            try {
                principal = KafkaPrincipal.parse(entry.principal());
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        InetAddress host = null;
        boolean never = false;
        if (!AccessControlEntry.WILDCARD_HOST.equals(entry.host())) {
            host = ipLiteral(entry.host());
            // Kafka compares the client's IP address as text: a host name never matches.
            never = host == null;
        }
        return new Rule(principal, host, never, entry.operation(), entry.permission() == AclPermissionType.DENY);
    }

    /** The address of an IPv4 or IPv6 literal, null for anything else (never a DNS lookup). */
    private static InetAddress ipLiteral(String host) {
        if (!IPV4.matcher(host).matches() && host.indexOf(':') < 0) {
            return null;
        }
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    /** The rules of the literal pattern {@code type}/{@code name}. */
    Rule[] literal(ResourceType type, String name) {
        Map<String, Rule[]> byName = literal.get(type);
        if (byName == null) {
            return NONE;
        }
        Rule[] rules = byName.get(name);
        return rules == null ? NONE : rules;
    }

    Prefix[] prefixed(ResourceType type) {
        Prefix[] prefixes = prefixed.get(type);
        return prefixes == null ? NO_PREFIXES : prefixes;
    }

    List<AclBinding> bindings() {
        return bindings;
    }

    List<AclBinding> bindings(ResourceType type) {
        return bindingsByType.getOrDefault(type, List.of());
    }
}
