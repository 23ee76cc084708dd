package io.krill.broker.security.authorizer;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * How ACLs are stored as entity configs (MetadataStore.updateEntityConfigsAsync, in ZooKeeper): one entity per
 * resource pattern, {@code acls/<RESOURCE_TYPE>/<PATTERN_TYPE>/<resource name>} (enum names, e.g.
 * {@code acls/TOPIC/PREFIXED/orders-}; the name is the rest of the entity name, so it may hold any
 * character, '/' included: the stores URL-encode entity names), and one config key per ACL,
 * {@code <principal>|<host>|<OPERATION>|<PERMISSION>} with principal and host URL-encoded (so '|' and
 * spaces cannot appear in them), value {@value #VALUE} (ignored; not empty because the local store's
 * file cannot hold empty values). Stateless.
 */
final class AclEntities {
    static final String TYPE = "acls";
    static final String VALUE = "1";

    private AclEntities() {
    }

    static String entity(ResourcePattern pattern) {
        return TYPE + "/" + pattern.resourceType().name() + "/" + pattern.patternType().name() + "/" + pattern.name();
    }

    /** The pattern of an entity name without the "acls/" type; null if it is not one. */
    static ResourcePattern pattern(String entityWithoutType) {
        int first = entityWithoutType.indexOf('/');
        int second = first < 0 ? -1 : entityWithoutType.indexOf('/', first + 1);
        if (second < 0) {
            return null;
        }
        try {
            ResourceType type = ResourceType.valueOf(entityWithoutType.substring(0, first));
            PatternType patternType = PatternType.valueOf(entityWithoutType.substring(first + 1, second));
            return new ResourcePattern(type, entityWithoutType.substring(second + 1), patternType);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static String key(AccessControlEntry entry) {
        return URLEncoder.encode(entry.principal(), StandardCharsets.UTF_8) + "|"
                + URLEncoder.encode(entry.host(), StandardCharsets.UTF_8) + "|" + entry.operation().name() + "|"
                + entry.permission().name();
    }

    /** The entry of a config key; null if it is not one. */
    static AccessControlEntry entry(String key) {
        String[] parts = key.split("\\|", -1);
        if (parts.length != 4) {
            return null;
        }
        try {
            return new AccessControlEntry(URLDecoder.decode(parts[0], StandardCharsets.UTF_8),
                    URLDecoder.decode(parts[1], StandardCharsets.UTF_8), AclOperation.valueOf(parts[2]),
                    AclPermissionType.valueOf(parts[3]));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
