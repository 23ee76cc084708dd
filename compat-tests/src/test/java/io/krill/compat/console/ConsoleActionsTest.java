package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's actions (docs/console.md) on one broker with {@code krill.console.read.only=false}, each
 * checked with the stock Admin client: topics created (partitions, configs), deleted, grown, reconfigured,
 * records deleted (log start offset), a group's offsets reset to earliest, latest, an offset and a time
 * (a dry run changing nothing), a reset refused while the group has a member (NON_EMPTY_GROUP, as
 * kafka-consumer-groups refuses it), groups and a topic's offsets deleted; and the CSRF guard (no
 * X-Krill-Console header, or no JSON content type: 403, nothing done).
 */
class ConsoleActionsTest {
    private static final int HTTP_PORT = FreePorts.next();
    private static final String EVENTS = "actions-events";
    private static final long T0 = System.currentTimeMillis() - 3_600_000L;

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("krill.http.port", Integer.toString(HTTP_PORT))
            .with("krill.console.read.only", "false");

    private static final ConsoleHttp HTTP = new ConsoleHttp(HTTP_PORT);
    private static Admin admin;

    @BeforeAll
    static void topicWithRecords() throws Exception {
        admin = Admin.create(Clients.base(KRILL.bootstrapServers()));
        admin.createTopics(List.of(new NewTopic(EVENTS, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int p = 0; p < 2; p++) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(EVENTS, p, T0 + i * 1000L, "k" + i, "v" + i));
                }
            }
            producer.flush();
        }
    }

    @AfterAll
    static void closeAdmin() {
        if (admin != null) {
            admin.close();
        }
    }

    @Test
    void meSaysTheConsoleActs() throws Exception {
        assertFalse(HTTP.json("/console/api/me").path("readOnly").asBoolean(true));
    }

    @Test
    void createsATopicWithItsConfigsAsKafkaTopicsDoes() throws Exception {
        ConsoleHttp.Answer created = HTTP.post("/console/api/topics", "{\"name\":\"actions-created\",\"partitions\":3,"
                + "\"replicationFactor\":1,\"configs\":{\"retention.ms\":\"3600000\",\"cleanup.policy\":\"delete\"}}");
        assertEquals(201, created.status(), created.body());
        assertEquals(3, created.json().path("partitions").asInt());
        TopicDescription description = admin.describeTopics(List.of("actions-created")).allTopicNames()
                .get(30, TimeUnit.SECONDS).get("actions-created");
        assertEquals(3, description.partitions().size());
        assertEquals("3600000", topicConfig("actions-created").get("retention.ms").value());

        ConsoleHttp.Answer again = HTTP.post("/console/api/topics", "{\"name\":\"actions-created\"}");
        assertEquals(409, again.status());
        assertEquals("TOPIC_ALREADY_EXISTS", again.json().path("error").asText());
        ConsoleHttp.Answer tooMany = HTTP.post("/console/api/topics", "{\"name\":\"actions-rf\",\"replicationFactor\":3}");
        assertEquals(400, tooMany.status());
        assertEquals("INVALID_REPLICATION_FACTOR", tooMany.json().path("error").asText());
        ConsoleHttp.Answer badJson = HTTP.post("/console/api/topics", "{\"name\":");
        assertEquals(400, badJson.status());
        assertEquals("BAD_REQUEST", badJson.json().path("error").asText());
        assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("actions-rf"));
    }

    @Test
    void addsPartitionsAndAltersConfigs() throws Exception {
        admin.createTopics(List.of(new NewTopic("actions-grow", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        ConsoleHttp.Answer grown = HTTP.post("/console/api/topics/actions-grow/partitions", "{\"count\":4}");
        assertEquals(200, grown.status(), grown.body());
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> admin.describeTopics(List.of("actions-grow"))
                .allTopicNames().get(30, TimeUnit.SECONDS).get("actions-grow").partitions().size() == 4);
        ConsoleHttp.Answer fewer = HTTP.post("/console/api/topics/actions-grow/partitions", "{\"count\":2}");
        assertEquals("INVALID_PARTITIONS", fewer.json().path("error").asText());

        ConsoleHttp.Answer set = HTTP.post("/console/api/topics/actions-grow/configs",
                "{\"set\":{\"retention.ms\":\"1234567\",\"max.message.bytes\":\"200000\"}}");
        assertEquals(200, set.status(), set.body());
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> "1234567".equals(topicConfig("actions-grow").get("retention.ms").value()));
        assertEquals("200000", topicConfig("actions-grow").get("max.message.bytes").value());
        ConsoleHttp.Answer deleted = HTTP.post("/console/api/topics/actions-grow/configs", "{\"delete\":[\"retention.ms\"]}");
        assertEquals(200, deleted.status(), deleted.body());
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                topicConfig("actions-grow").get("retention.ms").source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertEquals("200000", topicConfig("actions-grow").get("max.message.bytes").value());
        ConsoleHttp.Answer unknown = HTTP.post("/console/api/topics/actions-grow/configs", "{\"set\":{\"no.such\":\"1\"}}");
        assertEquals("INVALID_CONFIG", unknown.json().path("error").asText(), unknown.body());
    }

    @Test
    void deletesRecordsBeforeAnOffset() throws Exception {
        admin.createTopics(List.of(new NewTopic("actions-trim", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Clients.produce(KRILL.bootstrapServers(), "actions-trim", 0, List.of("a", "b", "c", "d", "e", "f"));
        ConsoleHttp.Answer trimmed = HTTP.post("/console/api/topics/actions-trim/delete-records",
                "{\"partitions\":[{\"partition\":0,\"offset\":4}]}");
        assertEquals(200, trimmed.status(), trimmed.body());
        assertEquals(4, trimmed.json().path("partitions").get(0).path("lowWatermark").asLong());
        TopicPartition tp = new TopicPartition("actions-trim", 0);
        assertEquals(4, admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset());
        ConsoleHttp.Answer past = HTTP.post("/console/api/topics/actions-trim/delete-records",
                "{\"partitions\":[{\"partition\":0,\"offset\":99}]}");
        assertEquals("OFFSET_OUT_OF_RANGE", past.json().path("error").asText(), past.body());
        assertEquals(404, HTTP.post("/console/api/topics/actions-trim/delete-records",
                "{\"partitions\":[{\"partition\":7,\"offset\":1}]}").status());
    }

    @Test
    void deletesATopic() throws Exception {
        admin.createTopics(List.of(new NewTopic("actions-doomed", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        ConsoleHttp.Answer deleted = HTTP.delete("/console/api/topics/actions-doomed");
        assertEquals(200, deleted.status(), deleted.body());
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("actions-doomed"));
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", HTTP.delete("/console/api/topics/actions-doomed").json()
                .path("error").asText());
    }

    @Test
    void resetsAGroupsOffsetsAsKafkaConsumerGroupsDoes() throws Exception {
        String group = "actions-reset";
        commit(group, 5, 5);
        JsonNode preview = reset(group, "{\"strategy\":\"earliest\",\"dryRun\":true}");
        assertTrue(preview.path("dryRun").asBoolean());
        assertEquals(2, preview.path("partitions").size());
        JsonNode p0 = preview.path("partitions").get(0);
        assertEquals(5, p0.path("currentOffset").asLong());
        assertEquals(0, p0.path("newOffset").asLong());
        assertEquals(10, p0.path("lag").asLong());
        assertEquals(Map.of(0, 5L, 1, 5L), committed(group), "a dry run commits nothing");

        reset(group, "{\"strategy\":\"earliest\"}");
        assertEquals(Map.of(0, 0L, 1, 0L), committed(group));
        reset(group, "{\"strategy\":\"latest\",\"topic\":\"" + EVENTS + "\"}");
        assertEquals(Map.of(0, 10L, 1, 10L), committed(group));
        reset(group, "{\"strategy\":\"offset\",\"offset\":7}");
        assertEquals(Map.of(0, 7L, 1, 7L), committed(group));
        reset(group, "{\"strategy\":\"offset\",\"offset\":1000}");
        assertEquals(Map.of(0, 10L, 1, 10L), committed(group), "past the end: the end, as the tool clamps it");
        reset(group, "{\"strategy\":\"timestamp\",\"timestamp\":" + (T0 + 3000) + "}");
        assertEquals(Map.of(0, 3L, 1, 3L), committed(group));

        ConsoleHttp.Answer bad = HTTP.post("/console/api/groups/" + group + "/offsets/reset", "{\"strategy\":\"sideways\"}");
        assertEquals(400, bad.status());
    }

    @Test
    void aGroupWithAMemberIsNeitherResetNorDeleted() throws Exception {
        String group = "actions-busy";
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put("group.id", group);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> member = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            member.subscribe(List.of(EVENTS));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                member.poll(Duration.ofMillis(200));
                return !member.assignment().isEmpty();
            });
            member.commitSync(Map.of(new TopicPartition(EVENTS, 0), new OffsetAndMetadata(2),
                    new TopicPartition(EVENTS, 1), new OffsetAndMetadata(2)));
            ConsoleHttp.Answer refused = HTTP.post("/console/api/groups/" + group + "/offsets/reset",
                    "{\"strategy\":\"earliest\"}");
            assertEquals(409, refused.status(), refused.body());
            assertEquals("NON_EMPTY_GROUP", refused.json().path("error").asText());
            assertTrue(refused.json().path("message").asText().startsWith("Assignments can only be reset if the group '"
                    + group + "' is inactive, but the current state is Stable"), refused.body());
            assertEquals(Map.of(0, 2L, 1, 2L), committed(group));
            ConsoleHttp.Answer notDeleted = HTTP.delete("/console/api/groups/" + group);
            assertEquals("NON_EMPTY_GROUP", notDeleted.json().path("error").asText(), notDeleted.body());
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                HTTP.delete("/console/api/groups/" + group).status() == 200);
        assertFalse(admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .anyMatch(g -> g.groupId().equals(group)));
        assertEquals("GROUP_ID_NOT_FOUND", HTTP.delete("/console/api/groups/" + group).json().path("error").asText());
    }

    @Test
    void deletesAGroupsOffsetsForATopic() throws Exception {
        String group = "actions-forget";
        commit(group, 4, 6);
        ConsoleHttp.Answer deleted = HTTP.delete("/console/api/groups/" + group + "/offsets/" + EVENTS);
        assertEquals(200, deleted.status(), deleted.body());
        assertEquals(Map.of(), committed(group));
    }

    @Test
    void anActionNeedsTheCsrfHeaderAndJson() throws Exception {
        String create = "{\"name\":\"actions-csrf\"}";
        ConsoleHttp.Answer noHeader = HTTP.send("POST", "/console/api/topics", create, "application/json", false);
        assertEquals(403, noHeader.status());
        assertEquals("CSRF_CHECK_FAILED", noHeader.json().path("error").asText());
        ConsoleHttp.Answer form = HTTP.send("POST", "/console/api/topics", create, "text/plain", true);
        assertEquals(403, form.status());
        ConsoleHttp.Answer none = HTTP.send("DELETE", "/console/api/topics/" + EVENTS, "", null, true);
        assertEquals(403, none.status());
        // Refused before it is read whole: the answer must still reach the client (the body is drained first).
        for (int i = 0; i < 20; i++) {
            ConsoleHttp.Answer huge = HTTP.post("/console/api/topics", "{\"name\":\"" + "x".repeat(70_000) + "\"}");
            assertEquals(413, huge.status());
        }
        assertEquals(405, HTTP.send("PUT", "/console/api/topics", create, "application/json", true).status());
        assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("actions-csrf"));
        assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(EVENTS));
    }

    private static JsonNode reset(String group, String body) throws Exception {
        ConsoleHttp.Answer answer = HTTP.post("/console/api/groups/" + group + "/offsets/reset", body);
        assertEquals(200, answer.status(), answer.body());
        return answer.json();
    }

    private static void commit(String group, long partition0, long partition1) throws Exception {
        admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(EVENTS, 0), new OffsetAndMetadata(partition0),
                new TopicPartition(EVENTS, 1), new OffsetAndMetadata(partition1))).all().get(30, TimeUnit.SECONDS);
    }

    private static Map<Integer, Long> committed(String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .entrySet().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(e -> e.getKey().partition(), e -> e.getValue().offset()));
    }

    private static Map<String, ConfigEntry> topicConfig(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
        return config.entries().stream().collect(Collectors.toMap(ConfigEntry::name, e -> e));
    }
}
