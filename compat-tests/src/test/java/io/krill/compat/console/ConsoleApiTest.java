package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's JSON API (docs/console.md) of one broker, after stock Java clients made topics, records
 * (binary and oversize values, headers, timestamps), a committed, an aborted and an open transaction, a
 * classic group, a KIP-848 consumer group and a share group: each endpoint's numbers are checked against
 * what the clients did.
 */
class ConsoleApiTest {
    private static final int HTTP_PORT = FreePorts.next();
    private static final String ORDERS = "console-orders";
    private static final String BINARY = "console-binary";
    private static final String TXN = "console-txn";
    private static final String OPEN = "console-open";
    private static final String RATE = "console-rate";
    private static final long T0 = System.currentTimeMillis() - 3_600_000L;
    private static final byte[] BINARY_VALUE = {(byte) 0xff, (byte) 0xfe, 0, 1, 2, (byte) 0x80};

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("krill.http.port", Integer.toString(HTTP_PORT))
            .with("krill.console.history.interval.ms", "200");

    private static final ConsoleHttp HTTP = new ConsoleHttp(HTTP_PORT);
    private static KafkaProducer<String, String> openTransaction;
    private static KafkaConsumer<String, String> classic;
    private static KafkaConsumer<String, String> kip848;
    private static KafkaShareConsumer<String, String> share;

    @BeforeAll
    static void traffic() throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(ORDERS, 3, (short) 1), new NewTopic(BINARY, 1, (short) 1),
                    new NewTopic(TXN, 1, (short) 1), new NewTopic(OPEN, 1, (short) 1),
                    new NewTopic(RATE, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>(ORDERS, 0, T0 + i * 1000L, "k" + i, "v" + i));
            }
            producer.flush();
        }
        Properties bytes = Clients.base(KRILL.bootstrapServers());
        bytes.put("compression.type", "gzip");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(bytes, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            ProducerRecord<byte[], byte[]> binary = new ProducerRecord<>(BINARY, 0, null, BINARY_VALUE);
            binary.headers().add(new RecordHeader("h", "hv".getBytes()));
            producer.send(binary);
            producer.send(new ProducerRecord<>(BINARY, 0, "big".getBytes(), "x".repeat(70_000).getBytes()));
            producer.flush();
        }
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(),
                Map.of("transactional.id", "console-tx-done"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TXN, 0, "c", "c1"));
            producer.send(new ProducerRecord<>(TXN, 0, "c", "c2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TXN, 0, "a", "a1"));
            producer.send(new ProducerRecord<>(TXN, 0, "a", "a2"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TXN, 0, "c", "c3"));
            producer.commitTransaction();
        }
        openTransaction = Clients.producer(KRILL.bootstrapServers(), Map.of("transactional.id", "console-tx-open"));
        openTransaction.initTransactions();
        openTransaction.beginTransaction();
        openTransaction.send(new ProducerRecord<>(OPEN, 0, "o", "o1")).get(30, TimeUnit.SECONDS);

        classic = consumer("console-classic", "classic");
        kip848 = consumer("console-848", "consumer");
        pollUntilAssigned(classic);
        pollUntilAssigned(kip848);
        commit(classic, 10);
        commit(kip848, 25);

        Properties shareProps = Clients.base(KRILL.bootstrapServers());
        shareProps.put("group.id", "console-share");
        share = new KafkaShareConsumer<>(shareProps, new StringDeserializer(), new StringDeserializer());
        share.subscribe(List.of(ORDERS));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            share.poll(Duration.ofMillis(200));
            JsonNode g = HTTP.json("/console/api/groups/console-share");
            return g.path("members").size() == 1 && g.path("members").get(0).path("assignment").size() == 1
                    && g.path("offsets").size() == 3;
        });
    }

    private static KafkaConsumer<String, String> consumer(String group, String protocol) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put("group.id", group);
        props.put("group.protocol", protocol);
        props.put("enable.auto.commit", "false");
        props.put("auto.offset.reset", "earliest");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
        consumer.subscribe(List.of(ORDERS));
        return consumer;
    }

    private static void pollUntilAssigned(KafkaConsumer<String, String> consumer) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            consumer.poll(Duration.ofMillis(200));
            return consumer.assignment().size() == 3;
        });
    }

    private static void commit(KafkaConsumer<String, String> consumer, long partition0) {
        consumer.commitSync(Map.of(new TopicPartition(ORDERS, 0), new OffsetAndMetadata(partition0, "m"),
                new TopicPartition(ORDERS, 1), new OffsetAndMetadata(0),
                new TopicPartition(ORDERS, 2), new OffsetAndMetadata(0)));
    }

    @AfterAll
    static void close() {
        for (AutoCloseable c : new AutoCloseable[] {share, kip848, classic, openTransaction}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // closing clients of a finished test
            }
        }
    }

    @Test
    void clusterAndMe() throws Exception {
        JsonNode cluster = HTTP.json("/console/api/cluster");
        assertFalse(cluster.path("clusterId").asText().isEmpty());
        assertEquals(1, cluster.path("brokers").size());
        assertEquals(cluster.path("self").asInt(), cluster.path("brokers").get(0).path("id").asInt());
        assertEquals(KRILL.port(), cluster.path("brokers").get(0).path("port").asInt());
        assertTrue(cluster.path("topics").asInt() >= 4);
        assertEquals(0, cluster.path("offlinePartitions").asInt());
        JsonNode me = HTTP.json("/console/api/me");
        assertEquals("User:ANONYMOUS", me.path("principal").asText());
        assertFalse(me.path("authenticated").asBoolean());
        assertTrue(me.path("readOnly").asBoolean(), "read-only by default");
        assertEquals(200, HTTP.get("/metrics").status());
    }

    /** krill.console.read.only defaults to true: every action answers 403 CONSOLE_READ_ONLY and changes nothing. */
    @Test
    void actionsAreRefusedByDefault() throws Exception {
        List<ConsoleHttp.Answer> answers = List.of(
                HTTP.post("/console/api/topics", "{\"name\":\"console-never\"}"),
                HTTP.delete("/console/api/topics/" + ORDERS),
                HTTP.post("/console/api/topics/" + ORDERS + "/partitions", "{\"count\":9}"),
                HTTP.post("/console/api/topics/" + ORDERS + "/delete-records",
                        "{\"partitions\":[{\"partition\":0,\"offset\":-1}]}"),
                HTTP.post("/console/api/groups/console-classic/offsets/reset", "{\"strategy\":\"latest\"}"),
                HTTP.delete("/console/api/groups/console-classic"));
        for (ConsoleHttp.Answer answer : answers) {
            assertEquals(403, answer.status(), answer.body());
            assertEquals("CONSOLE_READ_ONLY", answer.json().path("error").asText());
        }
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("console-never"));
            assertEquals(3, admin.describeTopics(List.of(ORDERS)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(ORDERS).partitions().size());
        }
        assertEquals(0, HTTP.json("/console/api/topics/" + ORDERS).path("partitions").get(0).path("startOffset").asLong());
    }

    @Test
    void topicsAndTopic() throws Exception {
        JsonNode orders = ConsoleHttp.find(HTTP.json("/console/api/topics").path("topics"), "name", ORDERS);
        assertNotNull(orders);
        assertEquals(3, orders.path("partitions").asInt());
        assertEquals(1, orders.path("replicationFactor").asInt());
        assertEquals(30, orders.path("records").asLong());
        assertTrue(orders.path("sizeBytes").asLong() > 0, orders.toString());

        JsonNode topic = HTTP.json("/console/api/topics/" + ORDERS);
        assertEquals(ORDERS, topic.path("name").asText());
        assertFalse(topic.path("topicId").asText().isEmpty());
        assertNotNull(ConsoleHttp.find(topic.path("configs"), "name", "retention.ms"));
        JsonNode p0 = ConsoleHttp.find(topic.path("partitions"), "partition", "0");
        assertEquals(0, p0.path("startOffset").asLong());
        assertEquals(30, p0.path("endOffset").asLong());
        assertTrue(p0.path("sizeBytes").asLong() > 0);

        ConsoleHttp.Answer missing = HTTP.get("/console/api/topics/no-such-topic");
        assertEquals(404, missing.status());
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", missing.json().path("error").asText());
    }

    @Test
    void recordsFromOffsetTimeAndEnd() throws Exception {
        JsonNode page = HTTP.json("/console/api/topics/" + ORDERS + "/records?partition=0&offset=5&limit=3");
        assertEquals(List.of(5L, 6L, 7L), offsets(page));
        assertEquals("k5", page.path("records").get(0).path("key").asText());
        assertEquals("v5", page.path("records").get(0).path("value").asText());
        assertEquals("utf8", page.path("records").get(0).path("valueEncoding").asText());
        assertEquals(T0 + 5000, page.path("records").get(0).path("timestamp").asLong());
        assertEquals(8, page.path("nextOffset").asLong());
        assertEquals(30, page.path("endOffset").asLong());

        JsonNode fromTime = HTTP.json("/console/api/topics/" + ORDERS + "/records?partition=0&timestamp="
                + (T0 + 10_000) + "&limit=2");
        assertEquals(List.of(10L, 11L), offsets(fromTime));

        JsonNode last = HTTP.json("/console/api/topics/" + ORDERS + "/records?partition=0&limit=4");
        assertEquals(List.of(26L, 27L, 28L, 29L), offsets(last));
    }

    @Test
    void binaryTruncatedAndHeaders() throws Exception {
        JsonNode records = HTTP.json("/console/api/topics/" + BINARY + "/records?partition=0&offset=0").path("records");
        assertEquals(2, records.size());
        JsonNode binary = records.get(0);
        assertEquals("base64", binary.path("valueEncoding").asText());
        assertArrayEquals(BINARY_VALUE, Base64.getDecoder().decode(binary.path("value").asText()));
        assertTrue(binary.path("key").isNull());
        assertEquals("h", binary.path("headers").get(0).path("key").asText());
        assertEquals("hv", binary.path("headers").get(0).path("value").asText());
        JsonNode big = records.get(1);
        assertTrue(big.path("valueTruncated").asBoolean());
        assertEquals(64 * 1024, big.path("value").asText().length());
        assertEquals("big", big.path("key").asText());
    }

    @Test
    void readCommittedHidesAbortedRecords() throws Exception {
        JsonNode committed = HTTP.json("/console/api/topics/" + TXN
                + "/records?partition=0&offset=0&isolation=read_committed");
        assertEquals(List.of("c1", "c2", "c3"), values(committed));
        JsonNode uncommitted = HTTP.json("/console/api/topics/" + TXN
                + "/records?partition=0&offset=0&isolation=read_uncommitted");
        assertEquals(List.of("c1", "c2", "a1", "a2", "c3"), values(uncommitted));
    }

    @Test
    void badParametersAndUnknownPartitions() throws Exception {
        String records = "/console/api/topics/" + ORDERS + "/records?partition=0";
        for (String bad : List.of("&limit=0", "&limit=501", "&offset=abc", "&isolation=dirty", "&offset=1&timestamp=2")) {
            ConsoleHttp.Answer answer = HTTP.get(records + bad);
            assertEquals(400, answer.status(), bad);
            assertEquals("BAD_REQUEST", answer.json().path("error").asText());
        }
        assertEquals(400, HTTP.get("/console/api/topics/" + ORDERS + "/records").status());
        ConsoleHttp.Answer partition = HTTP.get("/console/api/topics/" + ORDERS + "/records?partition=9");
        assertEquals(404, partition.status());
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", partition.json().path("error").asText());
    }

    @Test
    void staticFiles() throws Exception {
        ConsoleHttp.Answer uplot = HTTP.get("/console/vendor/uplot/uPlot.iife.min.js");
        assertEquals(200, uplot.status());
        assertTrue(uplot.response().headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"));
        assertTrue(uplot.response().headers().firstValue("Cache-Control").orElse("").contains("max-age"));
        assertTrue(uplot.body().contains("uPlot"));
        assertEquals(200, HTTP.get("/console/vendor/uplot/uPlot.min.css").status());
        assertEquals(404, HTTP.get("/console/vendor/uplot/../../../../META-INF/MANIFEST.MF").status());
        assertEquals(404, HTTP.get("/console/%2e%2e/metrics").status());
        assertEquals(404, HTTP.get("/console/no-such-file.js").status());
    }

    @Test
    void groupsWithLag() throws Exception {
        JsonNode groups = HTTP.json("/console/api/groups").path("groups");
        JsonNode classicGroup = ConsoleHttp.find(groups, "groupId", "console-classic");
        assertEquals("classic", classicGroup.path("type").asText());
        assertEquals("consumer", classicGroup.path("protocolType").asText());
        assertEquals("Stable", classicGroup.path("state").asText());
        assertEquals(1, classicGroup.path("members").asInt());
        assertEquals(20, classicGroup.path("lag").asLong());
        JsonNode consumerGroup = ConsoleHttp.find(groups, "groupId", "console-848");
        assertEquals("consumer", consumerGroup.path("type").asText());
        assertEquals(5, consumerGroup.path("lag").asLong());
        JsonNode shareGroup = ConsoleHttp.find(groups, "groupId", "console-share");
        assertEquals("share", shareGroup.path("type").asText());

        JsonNode detail = HTTP.json("/console/api/groups/console-classic");
        assertEquals(1, detail.path("members").size());
        JsonNode assignment = detail.path("members").get(0).path("assignment");
        assertEquals(ORDERS, assignment.get(0).path("topic").asText());
        assertEquals(3, assignment.get(0).path("partitions").size());
        JsonNode p0 = null;
        for (JsonNode o : detail.path("offsets")) {
            if (o.path("partition").asInt() == 0) {
                p0 = o;
            }
        }
        assertEquals(10, p0.path("committedOffset").asLong());
        assertEquals(30, p0.path("endOffset").asLong());
        assertEquals(20, p0.path("lag").asLong());
        assertEquals("m", p0.path("metadata").asText());

        JsonNode kip848Detail = HTTP.json("/console/api/groups/console-848");
        assertEquals(1, kip848Detail.path("members").size());
        assertEquals(3, kip848Detail.path("members").get(0).path("assignment").get(0).path("partitions").size());

        JsonNode shareDetail = HTTP.json("/console/api/groups/console-share");
        assertEquals(1, shareDetail.path("members").size());
        assertEquals(ORDERS, shareDetail.path("members").get(0).path("assignment").get(0).path("topic").asText());
        JsonNode shareP0 = null;
        for (JsonNode o : shareDetail.path("offsets")) {
            if (o.path("partition").asInt() == 0) {
                shareP0 = o;
            }
        }
        // share.auto.offset.reset=latest: the share-partition starts at the end, nothing to deliver yet
        assertEquals(30, shareP0.path("committedOffset").asLong(), shareDetail.toString());
        assertEquals(0, shareP0.path("lag").asLong(), shareDetail.toString());

        ConsoleHttp.Answer missing = HTTP.get("/console/api/groups/no-such-group");
        assertEquals(404, missing.status());
    }

    @Test
    void transactions() throws Exception {
        JsonNode open = ConsoleHttp.find(HTTP.json("/console/api/transactions").path("transactions"),
                "transactionalId", "console-tx-open");
        assertNotNull(open);
        assertEquals("Ongoing", open.path("state").asText());
        assertEquals(OPEN, open.path("partitions").get(0).path("topic").asText());
        assertEquals(0, open.path("partitions").get(0).path("partition").asInt());
        assertTrue(open.path("producerId").asLong() >= 0);
        JsonNode done = ConsoleHttp.find(HTTP.json("/console/api/transactions").path("transactions"),
                "transactionalId", "console-tx-done");
        assertEquals("CompleteCommit", done.path("state").asText());
    }

    @Test
    void historyFills() throws Exception {
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
                producer.send(new ProducerRecord<>(RATE, 0, "h", "h")).get(30, TimeUnit.SECONDS);
            }
            JsonNode history = HTTP.json("/console/api/history/topics");
            assertEquals(200, history.path("intervalMs").asInt());
            int samples = history.path("timestamps").size();
            assertTrue(samples >= 2);
            assertEquals(samples, history.path("series").path(ORDERS).size());
            JsonNode series = history.path("series").path(RATE);
            assertEquals(samples, series.size());
            boolean positive = false;
            for (JsonNode v : series) {
                positive |= !v.isNull() && v.asDouble() > 0;
            }
            assertTrue(positive, history.toString());
        });
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode history = HTTP.json("/console/api/history/groups/console-classic");
            int samples = history.path("timestamps").size();
            assertEquals(samples, history.path("total").size());
            JsonNode lastTotal = history.path("total").get(samples - 1);
            assertTrue(lastTotal.asLong() >= 20, history.toString());
            assertEquals(samples, history.path("series").path(ORDERS).size());
        });
    }

    private static List<Long> offsets(JsonNode page) {
        List<Long> offsets = new ArrayList<>();
        page.path("records").forEach(r -> offsets.add(r.path("offset").asLong()));
        return offsets;
    }

    private static List<String> values(JsonNode page) {
        List<String> values = new ArrayList<>();
        page.path("records").forEach(r -> values.add(r.path("value").asText()));
        return values;
    }
}
