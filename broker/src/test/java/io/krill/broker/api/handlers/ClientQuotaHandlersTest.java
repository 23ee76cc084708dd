package io.krill.broker.api.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.api.Request;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterClientQuotasRequest;
import io.krill.wire.message.AlterClientQuotasResponse;
import io.krill.wire.message.DescribeClientQuotasRequest;
import io.krill.wire.message.DescribeClientQuotasResponse;
import io.krill.wire.protocol.ApiMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** AlterClientQuotas and DescribeClientQuotas through the wire format, at both versions. */
class ClientQuotaHandlersTest {
    @TempDir
    Path dir;
    private HandlerFixture broker;

    @BeforeEach
    void start() {
        broker = HandlerFixture.start(dir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    /** An entity as "user=alice", "client-id=<default>" (null name) pairs. */
    private static List<AlterClientQuotasRequest.EntityData> entity(String... components) {
        List<AlterClientQuotasRequest.EntityData> entity = new ArrayList<>();
        for (String component : components) {
            String[] parts = component.split("=", 2);
            entity.add(new AlterClientQuotasRequest.EntityData().setEntityType(parts[0])
                    .setEntityName(parts[1].equals("<default>") ? null : parts[1]));
        }
        return entity;
    }

    private static AlterClientQuotasRequest.OpData set(String key, double value) {
        return new AlterClientQuotasRequest.OpData().setKey(key).setValue(value);
    }

    private static AlterClientQuotasRequest.OpData remove(String key) {
        return new AlterClientQuotasRequest.OpData().setKey(key).setRemove(true);
    }

    private AlterClientQuotasResponse.EntryData alter(int version, boolean validateOnly,
                                                      List<AlterClientQuotasRequest.EntityData> entity,
                                                      AlterClientQuotasRequest.OpData... ops) {
        AlterClientQuotasResponse response = broker.call(new AlterClientQuotasHandler(broker.context), version,
                new AlterClientQuotasRequest().setValidateOnly(validateOnly).setEntries(new ArrayList<>(List.of(
                        new AlterClientQuotasRequest.EntryData().setEntity(entity).setOps(new ArrayList<>(List.of(ops)))))));
        assertEquals(1, response.entries().size());
        return response.entries().get(0);
    }

    private static DescribeClientQuotasRequest.ComponentData component(String type, int matchType, String match) {
        return new DescribeClientQuotasRequest.ComponentData().setEntityType(type).setMatchType((byte) matchType)
                .setMatch(match);
    }

    private DescribeClientQuotasResponse describe(int version, boolean strict,
                                                  DescribeClientQuotasRequest.ComponentData... components) {
        return broker.call(new DescribeClientQuotasHandler(broker.context), version, new DescribeClientQuotasRequest()
                .setStrict(strict).setComponents(new ArrayList<>(List.of(components))));
    }

    /** Described entities as "user=alice,client-id=<default>" to their values. */
    private static Map<String, Map<String, Double>> entries(DescribeClientQuotasResponse response) {
        assertEquals(Errors.NONE.code(), response.errorCode(), response.errorMessage());
        Map<String, Map<String, Double>> out = new TreeMap<>();
        for (DescribeClientQuotasResponse.EntryData entry : response.entries()) {
            List<String> parts = new ArrayList<>();
            for (DescribeClientQuotasResponse.EntityData e : entry.entity()) {
                parts.add(e.entityType() + "=" + (e.entityName() == null ? "<default>" : e.entityName()));
            }
            Map<String, Double> values = new HashMap<>();
            for (DescribeClientQuotasResponse.ValueData v : entry.values()) {
                values.put(v.key(), v.value());
            }
            out.put(String.join(",", parts), values);
        }
        return out;
    }

    @Test
    void setDescribeAndRemoveAtBothVersions() {
        for (int version = 0; version <= 1; version++) {
            assertEquals(Errors.NONE.code(), alter(version, false, entity("client-id=app"),
                    set("producer_byte_rate", 1024), set("consumer_byte_rate", 2048)).errorCode());
            assertEquals(Errors.NONE.code(), alter(version, false, entity("user=alice", "client-id=<default>"),
                    set("request_percentage", 12.5)).errorCode());
            assertEquals(Map.of("client-id=app", Map.of("producer_byte_rate", 1024.0, "consumer_byte_rate", 2048.0),
                    "user=alice,client-id=<default>", Map.of("request_percentage", 12.5)), entries(describe(version, false)));
            assertEquals(Map.of("producer_byte_rate", "1024", "consumer_byte_rate", "2048"),
                    broker.metadata.image().entityConfigs("clients/app"));

            alter(version, false, entity("client-id=app"), remove("producer_byte_rate"));
            alter(version, false, entity("user=alice", "client-id=<default>"), remove("request_percentage"));
            assertEquals(Map.of("client-id=app", Map.of("consumer_byte_rate", 2048.0)), entries(describe(version, false)));
            alter(version, false, entity("client-id=app"), remove("consumer_byte_rate"));
            assertEquals(Map.of(), entries(describe(version, false)));
            assertEquals(Map.of(), broker.metadata.image().entityConfigs("clients/app"), "an empty entity is gone");
        }
    }

    @Test
    void otherKeysOfAUserEntityAreKept() {
        broker.setEntityConfigs("users/alice", Map.of("SCRAM-SHA-256", "salt=..."));
        alter(1, false, entity("user=alice"), set("producer_byte_rate", 100));
        assertEquals(Map.of("SCRAM-SHA-256", "salt=...", "producer_byte_rate", "100"),
                broker.metadata.image().entityConfigs("users/alice"));
        assertEquals(Map.of("user=alice", Map.of("producer_byte_rate", 100.0)), entries(describe(1, false)),
                "credentials are not quotas");
        alter(1, false, entity("user=alice"), remove("producer_byte_rate"));
        assertEquals(Map.of("SCRAM-SHA-256", "salt=..."), broker.metadata.image().entityConfigs("users/alice"));
        assertEquals(Errors.INVALID_REQUEST.code(), alter(1, false, entity("user=alice"), remove("SCRAM-SHA-256")).errorCode(),
                "another owner's key is not removed through quotas");
    }

    @Test
    void validateOnlyWritesNothing() {
        assertEquals(Errors.NONE.code(), alter(1, true, entity("user=<default>"), set("producer_byte_rate", 10)).errorCode());
        assertEquals(Map.of(), broker.metadata.image().entityConfigs("users/<default>"));
        assertEquals(Errors.INVALID_REQUEST.code(),
                alter(1, true, entity("user=<default>"), set("producer_byte_rate", -1)).errorCode());
    }

    @Test
    void invalidAlterationsAreRefusedAsKafkaDoes() {
        Map<String, AlterClientQuotasResponse.EntryData> cases = new TreeMap<>();
        cases.put("unknown key", alter(1, false, entity("user=a"), set("bytes_per_second", 1)));
        cases.put("zero", alter(1, false, entity("user=a"), set("producer_byte_rate", 0)));
        cases.put("negative", alter(1, false, entity("client-id=a"), set("request_percentage", -5)));
        cases.put("fractional byte rate", alter(1, false, entity("client-id=a"), set("consumer_byte_rate", 1.5)));
        cases.put("duplicate key", alter(1, false, entity("client-id=a"), set("consumer_byte_rate", 1),
                set("consumer_byte_rate", 2)));
        cases.put("ip with user", alter(1, false, entity("user=a", "ip=1.2.3.4"), set("connection_creation_rate", 1)));
        cases.put("user key on ip", alter(1, false, entity("ip=1.2.3.4"), set("producer_byte_rate", 1)));
        cases.put("duplicate type", alter(1, false, entity("user=a", "user=b"), set("producer_byte_rate", 1)));
        cases.put("unknown type", alter(1, false, entity("group=a"), set("producer_byte_rate", 1)));
        cases.put("empty name", alter(1, false, entity("user="), set("producer_byte_rate", 1)));
        cases.put("empty entity", alter(1, false, entity(), set("producer_byte_rate", 1)));
        cases.put("host name", alter(1, false, entity("ip=not-an-ip"), set("connection_creation_rate", 1)));
        cases.forEach((name, result) -> assertEquals(Errors.INVALID_REQUEST.code(), result.errorCode(),
                name + ": " + result.errorMessage()));
        assertEquals("Invalid configuration key bytes_per_second", cases.get("unknown key").errorMessage());
        assertEquals("Quota producer_byte_rate must be greater than 0", cases.get("zero").errorMessage());
        assertTrue(broker.metadata.image().allEntityConfigs().isEmpty(), "nothing written");

        // Accepted and stored: the controller mutation rate and an ip's connection rate.
        assertEquals(Errors.NONE.code(), alter(1, false, entity("user=a"), set("controller_mutation_rate", 2.5)).errorCode());
        assertEquals(Errors.NONE.code(), alter(1, false, entity("ip=<default>"), set("connection_creation_rate", 30)).errorCode());
        assertEquals(Map.of("ip=<default>", Map.of("connection_creation_rate", 30.0)),
                entries(describe(1, false, component("ip", 1, null))));
    }

    @Test
    void filtersMatchLikeKafka() {
        alter(1, false, entity("user=alice"), set("producer_byte_rate", 1));
        alter(1, false, entity("user=<default>"), set("producer_byte_rate", 2));
        alter(1, false, entity("user=alice", "client-id=app"), set("producer_byte_rate", 3));
        alter(1, false, entity("client-id=app"), set("producer_byte_rate", 4));
        alter(1, false, entity("client-id=<default>"), set("producer_byte_rate", 5));

        assertEquals(List.of("user=alice", "user=alice,client-id=app"),
                List.copyOf(entries(describe(1, false, component("user", 0, "alice"))).keySet()));
        assertEquals(List.of("user=alice"),
                List.copyOf(entries(describe(1, true, component("user", 0, "alice"))).keySet()));
        assertEquals(List.of("user=<default>"),
                List.copyOf(entries(describe(0, true, component("user", 1, null))).keySet()));
        assertEquals(List.of("user=<default>", "user=alice"),
                List.copyOf(entries(describe(1, true, component("user", 2, null))).keySet()));
        assertEquals(List.of("user=alice,client-id=app"), List.copyOf(entries(describe(1, true,
                component("user", 0, "alice"), component("client-id", 2, null))).keySet()));
        assertEquals(List.of("client-id=<default>"),
                List.copyOf(entries(describe(1, false, component("client-id", 1, null))).keySet()));
        assertEquals(5, entries(describe(1, false)).size(), "no filter, not strict: everything");
        assertEquals(0, entries(describe(1, true)).size(), "no filter, strict: nothing");

        DescribeClientQuotasResponse twice = describe(1, false, component("user", 2, null), component("user", 1, null));
        assertEquals(Errors.INVALID_REQUEST.code(), twice.errorCode());
        assertNull(twice.entries());
        assertEquals(Errors.INVALID_REQUEST.code(), describe(1, false, component("user", 7, null)).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), describe(1, false, component("user", 0, null)).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
                describe(1, false, component("ip", 2, null), component("user", 2, null)).errorCode());
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), describe(1, false, component("group", 2, null)).errorCode());
    }

    /** The request thread does not wait for the store: each entry's write is answered when it completes. */
    @Test
    void answersWhenTheStoresWritesCompleteNotBefore() {
        broker.setEntityConfigs("users/alice", Map.of("SCRAM-SHA-256", "salt=..."));
        List<HandlerFixture.Held> held = new CopyOnWriteArrayList<>();
        AlterClientQuotasHandler handler = new AlterClientQuotasHandler(broker.contextWith(
                broker.holdingStore(Set.of("updateEntityConfigsAsync"), held)));
        AlterClientQuotasRequest body = new AlterClientQuotasRequest().setEntries(new ArrayList<>(List.of(
                new AlterClientQuotasRequest.EntryData().setEntity(entity("user=alice"))
                        .setOps(new ArrayList<>(List.of(set("producer_byte_rate", 100)))),
                new AlterClientQuotasRequest.EntryData().setEntity(entity("client-id=app"))
                        .setOps(new ArrayList<>(List.of(set("consumer_byte_rate", 5)))),
                new AlterClientQuotasRequest.EntryData().setEntity(entity("client-id=bad"))
                        .setOps(new ArrayList<>(List.of(set("no_such_quota", 1)))))));
        AtomicReference<ApiMessage> answer = new AtomicReference<>();
        Request request = broker.request(handler, 1, body, KafkaPrincipal.ANONYMOUS, answer);
        handler.handle(request);
        assertFalse(request.isAnswered(), "the handler returned without waiting for the store");
        assertEquals(2, held.size(), "both valid entries' writes in flight at once");
        assertEquals(Map.of("SCRAM-SHA-256", "salt=...", "producer_byte_rate", "100", "consumer_byte_rate", "7"),
                held.get(0).apply(Map.of("SCRAM-SHA-256", "salt=...", "consumer_byte_rate", "7")),
                "the change keeps what other writers put in the entity");
        held.get(1).future().complete(Map.of("consumer_byte_rate", "5"));
        assertFalse(request.isAnswered());
        held.get(0).future().completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "ZooKeeper unavailable"));
        AlterClientQuotasResponse response = broker.decodeResponse(handler, 1, answer.get());
        assertEquals(List.of(Errors.REQUEST_TIMED_OUT, Errors.NONE, Errors.INVALID_REQUEST), response.entries().stream()
                .map(e -> Errors.forCode(e.errorCode())).toList());
        assertEquals("user", response.entries().get(0).entity().get(0).entityType());
    }
}
