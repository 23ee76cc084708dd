package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.krill.compat.support.Clients;
import io.krill.compat.support.Processes;
import io.krill.compat.support.RunningProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * librdkafka's share consumer (the KIP-932 preview of librdkafka 2.15, C API only) against one Krill
 * broker, through a small C program of ours ({@code src/test/native/share_consumer.c}) in explicit
 * acknowledgement mode: two of them share one partition and every record is accepted exactly once; records
 * released at their first delivery come back with delivery count 2; rejected records never come back, and
 * a stock KafkaShareConsumer of the same group then finds nothing left.
 *
 * <p>Debian's librdkafka has no share consumer, so {@code build-share-consumer.sh} builds librdkafka
 * 2.15.1 from the source bundled in the npm package @confluentinc/kafka-javascript (cached in
 * {@code ~/.cache/krill-native}; .ci/run builds it before the tests). Skipped only when gcc, make or npm
 * is missing or the npm fetch fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibrdkafkaShareConsumerTest {
    private static final Logger LOG = LoggerFactory.getLogger(LibrdkafkaShareConsumerTest.class);

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static final Path BUILD_SCRIPT = Path.of(System.getProperty("user.dir"), "src", "test", "native",
            "build-share-consumer.sh");
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration PART = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String binary;

    /** One delivery the C program printed, with the acknowledgement it gave (and committed). */
    record Delivery(int partition, long offset, int deliveryCount, String key, String value, String ack) {
        static Delivery parse(String line) {
            try {
                JsonNode n = JSON.readTree(line);
                return new Delivery(n.get("partition").asInt(), n.get("offset").asLong(),
                        n.get("deliveryCount").asInt(), n.get("key").isNull() ? null : n.get("key").asText(),
                        n.get("value").isNull() ? null : n.get("value").asText(), n.get("ack").asText());
            } catch (IOException e) {
                throw new AssertionError("not a JSON delivery line: " + line, e);
            }
        }
    }

    @BeforeAll
    @Timeout(value = 11, unit = TimeUnit.MINUTES)
    static void buildTheProgram() throws Exception {
        for (String tool : List.of("gcc", "make", "npm")) {
            assumeTrue(Processes.onPath(tool), tool + " is not on the PATH (apt-get install build-essential npm):"
                    + " cannot build librdkafka 2.15.1's share consumer");
        }
        Path log = Files.createTempFile("build-share-consumer", ".log");
        Process build = null;
        try {
            long started = System.nanoTime();
            build = new ProcessBuilder("bash", BUILD_SCRIPT.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            boolean finished = build.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                kill(build);
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            LOG.info("{} ({} s, exit {}):\n{}", BUILD_SCRIPT, (System.nanoTime() - started) / 1_000_000_000L,
                    finished ? build.exitValue() : "killed", output);
            assertTrue(finished, "the build did not finish within " + BUILD_TIMEOUT + ":\n" + output);
            // Exit codes of the script: 2 gcc, make or npm missing; 3 the npm fetch failed.
            assumeTrue(build.exitValue() != 2 && build.exitValue() != 3,
                    "cannot fetch or build librdkafka 2.15.1 (a tool is missing or npm pack failed):\n" + output);
            assertEquals(0, build.exitValue(), "build-share-consumer.sh failed:\n" + output);
            List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
            binary = lines.get(lines.size() - 1).trim();
            assertTrue(Files.isExecutable(Path.of(binary)), "not an executable: " + binary + "\n" + output);
        } finally {
            if (build != null && build.isAlive()) { // interrupted
                kill(build);
            }
            Files.deleteIfExists(log);
        }
    }

    private static void kill(Process process) throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** A value with characters the program must escape in JSON: quotes, a backslash, a tab and non-ASCII. */
    private static String value(int i) {
        return "v" + i + " \"quoted\" back\\slash\ttab é€";
    }

    private static void produce(String topic, int count) {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, value(i)));
            }
            producer.flush();
        }
    }

    /** A new share group reading from the earliest offset (the default is the latest). */
    private static void newGroup(String group) throws Exception {
        ShareConsumerTest.groupConfigs(KRILL.bootstrapServers(), group, Map.of("share.auto.offset.reset", "earliest"));
    }

    private static RunningProcess start(String group, String topic, int count, String mode) {
        return RunningProcess.start(List.of(binary, KRILL.bootstrapServers(), group, topic, Integer.toString(count),
                mode, Long.toString(PART.toSeconds())));
    }

    /**
     * Waits for a program to end by itself (it stops after its count of records) and logs when its first
     * and last deliveries came and what it wrote to stderr; fails unless it exits with 0.
     */
    private static List<Delivery> runToEnd(String what, RunningProcess process) throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + PART.plusSeconds(30).toNanos();
        long first = -1;
        long last = -1;
        int seen = 0;
        while (process.isAlive() && System.nanoTime() < deadline) {
            int now = process.outLines().size();
            if (now > seen) {
                last = (System.nanoTime() - started) / 1_000_000;
                first = first < 0 ? last : first;
                seen = now;
            }
            Thread.sleep(20);
        }
        if (process.outLines().size() > seen) { // printed just before it exited
            last = (System.nanoTime() - started) / 1_000_000;
            first = first < 0 ? last : first;
        }
        assertEquals(0, process.awaitExit(Duration.ofSeconds(1)), process.describe());
        LOG.info("{}: first delivery after {} ms, last after {} ms, exit after {} ms; stderr:\n{}", what, first, last,
                (System.nanoTime() - started) / 1_000_000, process.err());
        return deliveries(process);
    }

    private static List<Delivery> deliveries(RunningProcess process) {
        return process.outLines().stream().map(Delivery::parse).toList();
    }

    /** How many offsets the programs accepted, together. */
    private static long accepted(RunningProcess... programs) {
        return Arrays.stream(programs).flatMap(p -> deliveries(p).stream()).filter(d -> d.ack().equals("accept"))
                .map(Delivery::offset).distinct().count();
    }

    private static void assertIntact(Delivery d) {
        assertEquals("k" + d.offset(), d.key(), "key of offset " + d.offset());
        assertEquals(value((int) d.offset()), d.value(), "value of offset " + d.offset());
        assertEquals(0, d.partition());
    }

    @Test
    void twoProgramsShareOnePartitionAndEveryRecordIsAcceptedExactlyOnce() throws Exception {
        String topic = "rdk-share-two";
        String group = "rdk-share-two";
        int records = 2_000;
        createTopic(topic);
        newGroup(group);

        // Each would stop by itself only after more records than there are: they run until terminated.
        try (RunningProcess a = start(group, topic, 2 * records, "accept");
                RunningProcess b = start(group, topic, 2 * records, "accept");
                Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            long started = System.nanoTime();
            // Both members have the partition (a share group's first assignment comes at the heartbeat after the
            // join, as Kafka's); then the records arrive while both programs wait in ShareFetch.
            RunningProcess.waitFor("both programs assigned the partition", PART, () -> {
                ShareGroupDescription described;
                try {
                    described = admin.describeShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof GroupIdNotFoundException) {
                        return false; // before the first heartbeat
                    }
                    throw e;
                }
                return described.members().size() == 2 && described.members().stream()
                        .allMatch(m -> m.assignment().topicPartitions().contains(new TopicPartition(topic, 0)));
            }, a, b);
            long assigned = (System.nanoTime() - started) / 1_000_000;
            produce(topic, records);
            RunningProcess.waitFor("every record accepted", PART, () -> accepted(a, b) >= records, a, b);
            long allAccepted = (System.nanoTime() - started) / 1_000_000;
            a.terminate();
            b.terminate();
            assertEquals(0, a.awaitExit(Duration.ofSeconds(30)), a.describe());
            assertEquals(0, b.awaitExit(Duration.ofSeconds(30)), b.describe());
            LOG.info("two programs: assigned after {} ms, all accepted after {} ms, both closed {} ms later; stderr:"
                    + "\n{}\n{}", assigned, allAccepted, (System.nanoTime() - started) / 1_000_000 - allAccepted,
                    a.err(), b.err());

            List<Delivery> fromA = deliveries(a);
            List<Delivery> fromB = deliveries(b);
            Map<Long, List<String>> acceptedBy = new TreeMap<>();
            fromA.stream().filter(d -> d.ack().equals("accept"))
                    .forEach(d -> acceptedBy.computeIfAbsent(d.offset(), o -> new ArrayList<>()).add("a"));
            fromB.stream().filter(d -> d.ack().equals("accept"))
                    .forEach(d -> acceptedBy.computeIfAbsent(d.offset(), o -> new ArrayList<>()).add("b"));
            Map<Long, List<String>> twice = acceptedBy.entrySet().stream().filter(e -> e.getValue().size() > 1)
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (x, y) -> x, TreeMap::new));
            assertEquals(Map.of(), twice, "records accepted more than once");
            assertEquals(records, acceptedBy.size(), "records accepted");
            assertEquals(0L, acceptedBy.keySet().iterator().next());
            assertEquals(records - 1L, ((TreeMap<Long, List<String>>) acceptedBy).lastKey());
            fromA.forEach(LibrdkafkaShareConsumerTest::assertIntact);
            fromB.forEach(LibrdkafkaShareConsumerTest::assertIntact);
            long byA = fromA.stream().filter(d -> d.ack().equals("accept")).count();
            long byB = fromB.stream().filter(d -> d.ack().equals("accept")).count();
            LOG.info("accepted by the first program: {}, by the second: {}; deliveries {} and {}", byA, byB,
                    fromA.size(), fromB.size());
            assertTrue(byA > 0 && byB > 0, "both programs got records of the shared partition: " + byA + " and " + byB);
        }
    }

    @Test
    void recordsReleasedAtTheirFirstDeliveryComeBackWithDeliveryCountTwo() throws Exception {
        String topic = "rdk-share-release";
        String group = "rdk-share-release";
        int records = 300;
        createTopic(topic);
        newGroup(group);
        produce(topic, records);

        try (RunningProcess consumer = start(group, topic, records, "release-first")) {
            Map<Long, List<String>> history = new TreeMap<>();
            for (Delivery d : runToEnd("release-first", consumer)) {
                assertIntact(d);
                history.computeIfAbsent(d.offset(), o -> new ArrayList<>()).add(d.deliveryCount() + ":" + d.ack());
            }
            assertEquals(records, history.size(), consumer.describe());
            history.forEach((offset, h) -> assertEquals(List.of("1:release", "2:accept"), h,
                    "deliveries of offset " + offset));
        }
    }

    @Test
    void rejectedRecordsAreNeverDeliveredAgain() throws Exception {
        String topic = "rdk-share-reject";
        String group = "rdk-share-reject";
        int records = 300;
        createTopic(topic);
        newGroup(group);
        produce(topic, records);

        try (RunningProcess consumer = start(group, topic, records, "reject-odd")) {
            Map<Long, List<String>> history = new TreeMap<>();
            for (Delivery d : runToEnd("reject-odd", consumer)) {
                assertIntact(d);
                history.computeIfAbsent(d.offset(), o -> new ArrayList<>()).add(d.deliveryCount() + ":" + d.ack());
            }
            assertEquals(records, history.size(), consumer.describe());
            history.forEach((offset, h) -> assertEquals(List.of(offset % 2 == 1 ? "1:reject" : "1:accept"), h,
                    "deliveries of offset " + offset));
        }

        // Nothing is left for the group: a stock share consumer gets no record, and the share-partition's
        // start offset is at the end of the log.
        try (KafkaShareConsumer<String, String> java = ShareConsumerTest.shareConsumer(KRILL.bootstrapServers(),
                group, "implicit")) {
            java.subscribe(List.of(topic));
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            int got = 0;
            while (System.nanoTime() < until) {
                ConsumerRecords<String, String> polled = java.poll(Duration.ofMillis(500));
                got += polled.count();
            }
            assertEquals(0, got, "records the Java share consumer got after librdkafka's run");
        }
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            Map<TopicPartition, SharePartitionOffsetInfo> offsets = admin.listShareGroupOffsets(
                    Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group)
                    .get(30, TimeUnit.SECONDS);
            SharePartitionOffsetInfo info = offsets.get(new TopicPartition(topic, 0));
            assertTrue(info != null && info.startOffset() == records && info.lag().orElse(0L) == 0L,
                    "share group offsets: " + offsets);
        }
    }
}
