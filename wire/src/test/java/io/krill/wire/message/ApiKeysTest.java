package io.krill.wire.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.message.ApiMessageType;
import org.junit.jupiter.api.Test;

/** Krill's generated ApiKeys table against kafka-clients' ApiKeys, key by key. */
class ApiKeysTest {

    @Test
    void everyKafkaKeyHasTheSameFacts() {
        org.apache.kafka.common.protocol.ApiKeys[] kafkaKeys = org.apache.kafka.common.protocol.ApiKeys.values();
        assertEquals(kafkaKeys.length, ApiKeys.values().length);
        for (org.apache.kafka.common.protocol.ApiKeys k : kafkaKeys) {
            ApiKeys krill = ApiKeys.forId(k.id);
            assertNotNull(krill, k.name());
            String what = k.name();
            assertEquals(k.name(), krill.name(), what);
            assertEquals(k.name, krill.apiName(), what);
            assertEquals(k.oldestVersion(), krill.lowestVersion(), what);
            assertEquals(k.latestVersion(true), krill.highestVersion(), what);
            assertEquals(k.messageType.latestVersionUnstable(), krill.latestVersionUnstable(), what);
            assertEquals(k.messageType.listeners().contains(ApiMessageType.ListenerType.BROKER), krill.forBroker(), what);
            assertEquals(k.messageType.listeners().contains(ApiMessageType.ListenerType.CONTROLLER),
                krill.forController(), what);
            if (k.oldestVersion() > k.latestVersion(true)) {
                assertTrue(krill.isRemoved(), what);
                assertThrows(RuntimeException.class, () -> k.requestHeaderVersion((short) 0));
                assertThrows(IllegalStateException.class, () -> krill.requestHeaderVersion((short) 0));
                assertThrows(IllegalStateException.class, krill::newRequest);
                continue;
            }
            for (short v = k.oldestVersion(); v <= k.latestVersion(true); v++) {
                assertTrue(krill.hasVersion(v));
                assertEquals(k.requestHeaderVersion(v), krill.requestHeaderVersion(v), what + " v" + v);
                assertEquals(k.responseHeaderVersion(v), krill.responseHeaderVersion(v), what + " v" + v);
            }
            assertEquals(k.id, krill.newRequest().apiKey(), what);
            assertEquals(k.id, krill.newResponse().apiKey(), what);
            assertEquals(k.messageType.newRequest().getClass().getSimpleName(),
                krill.newRequest().getClass().getSimpleName() + "Data", what);
            assertEquals(k.messageType.newResponse().getClass().getSimpleName(),
                krill.newResponse().getClass().getSimpleName() + "Data", what);
        }
    }

    @Test
    void unknownIdsAreNull() {
        assertNull(ApiKeys.forId(-1));
        assertNull(ApiKeys.forId(ApiKeys.values().length + 1000));
        assertNull(ApiKeys.forId(Short.MAX_VALUE));
        assertEquals(ApiKeys.PRODUCE, ApiKeys.forId(0));
    }
}
