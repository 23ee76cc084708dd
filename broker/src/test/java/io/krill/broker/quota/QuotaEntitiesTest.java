package io.krill.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaEntitiesTest {

    private static Map<String, String> entity(String... typeAndName) {
        Map<String, String> entity = new LinkedHashMap<>();
        for (int i = 0; i < typeAndName.length; i += 2) {
            entity.put(typeAndName[i], typeAndName[i + 1]);
        }
        return entity;
    }

    @Test
    void namesLikeKafkasConfigZnodes() {
        assertEquals("users/alice", QuotaEntities.entityName(entity("user", "alice")));
        assertEquals("users/<default>", QuotaEntities.entityName(entity("user", null)));
        assertEquals("clients/app", QuotaEntities.entityName(entity("client-id", "app")));
        assertEquals("users/alice/clients/<default>", QuotaEntities.entityName(entity("user", "alice", "client-id", null)));
        assertEquals("ips/10.0.0.1", QuotaEntities.entityName(entity("ip", "10.0.0.1")));
        assertEquals("users/bob@example.com", QuotaEntities.entityName(entity("user", "bob@example.com")));
    }

    @Test
    void ambiguousCharactersAreEscapedAndComeBack() {
        for (String name : new String[] {"a/b", "100%", "<default>", "x/clients/y", "%2F"}) {
            Map<String, String> user = entity("user", name, "client-id", name);
            String entityName = QuotaEntities.entityName(user);
            assertEquals(4, entityName.split("/").length, entityName);
            assertEquals(user, QuotaEntities.parse(entityName), entityName);
        }
        Map<String, String> defaults = new HashMap<>();
        defaults.put("user", null);
        assertEquals(defaults, QuotaEntities.parse("users/<default>"));
    }

    @Test
    void otherEntitiesAreNoQuotaEntities() {
        assertNull(QuotaEntities.parse(""));
        assertNull(QuotaEntities.parse("1"));
        assertNull(QuotaEntities.parse("acls/topic/x"));
        assertNull(QuotaEntities.parse("users/a/b"));
    }
}
