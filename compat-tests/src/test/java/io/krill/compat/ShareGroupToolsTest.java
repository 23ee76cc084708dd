package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.ConsoleProducer;
import org.apache.kafka.tools.consumer.ConsoleShareConsumer;
import org.apache.kafka.tools.consumer.group.ShareGroupCommand;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka 4.4's share-group tools against one Krill broker. kafka-share-groups.sh
 * ({@code org.apache.kafka.tools.consumer.group.ShareGroupCommand}): --list (with --state), --describe of
 * offsets (START-OFFSET, LAG), --members and --state while stock KafkaShareConsumers are in the group;
 * --reset-offsets and --delete refused while it has members; once empty, resets --to-earliest, --to-latest
 * and --to-offset (dry run, then --execute), which the next share consumer really starts from,
 * --delete-offsets and --delete. kafka-console-share-consumer.sh
 * ({@code org.apache.kafka.tools.consumer.ConsoleShareConsumer}) reading what kafka-console-producer.sh
 * wrote, from the earliest offset as {@code share.auto.offset.reset=earliest} set by kafka-configs.sh
 * --entity-type groups says, with --max-messages, --release (the record comes back with the next delivery
 * count) and --reject (it never comes back).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ShareGroupToolsTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension().with("num.partitions", "1");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private static Result shareGroups(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers()));
        all.addAll(List.of(args));
        return ToolRunner.run("kafka-share-groups", ShareGroupCommand::main, TIMEOUT, all.toArray(String[]::new));
    }

    private static Result consoleShareConsumer(String topic, String group, String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic,
                "--group", group));
        args.addAll(List.of(extra));
        return ToolRunner.run("kafka-console-share-consumer", ConsoleShareConsumer::main, TIMEOUT,
                args.toArray(String[]::new));
    }

    private Result groupConfig(String group, String... args) {
        List<String> all = new ArrayList<>(List.of("--entity-type", "groups", "--entity-name", group));
        all.addAll(List.of(args));
        return ToolRunner.kafkaConfigs(tmp, KRILL.bootstrapServers(), all.toArray(String[]::new));
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Ten records per partition: value {@code v<partition>-<i>} at offset i. */
    private static void produceTen(String topic, int partitions) {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int p = 0; p < partitions; p++) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, p, "k" + i, "v" + p + "-" + i));
                }
            }
            producer.flush();
        }
    }

    /** The rows of a tool's table (the first line starting with {@code firstColumn}), as column name to cell. */
    static List<Map<String, String>> table(Result result, String firstColumn) {
        List<String> lines = result.outLines();
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().startsWith(firstColumn + " ")) {
                header = i;
                break;
            }
        }
        assertTrue(header >= 0, "no table in\n" + result.describe());
        String[] names = lines.get(header).trim().split("\\s+");
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(header + 1, lines.size())) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length != names.length) {
                break;
            }
            Map<String, String> row = new HashMap<>();
            for (int c = 0; c < names.length; c++) {
                row.put(names[c], cells[c]);
            }
            rows.add(row);
        }
        return rows;
    }

    /** --describe (offsets): partition to "START-OFFSET/LAG" of {@code topic}. */
    private static Map<Integer, String> offsets(String group, String topic) {
        return offsetColumns(group, topic, true);
    }

    /** --describe (offsets): partition to START-OFFSET of {@code topic}; none without offset information. */
    private static Map<Integer, String> startOffsets(String group, String topic) {
        return offsetColumns(group, topic, false);
    }

    private static Map<Integer, String> offsetColumns(String group, String topic, boolean withLag) {
        Result describe = shareGroups("--describe", "--group", group).assertSuccess();
        Map<Integer, String> result = new TreeMap<>();
        if (describe.out().contains("Share group '" + group + "' has no offset information.")) {
            return result;
        }
        for (Map<String, String> row : table(describe, "GROUP")) {
            if (row.get("TOPIC").equals(topic)) {
                assertEquals(group, row.get("GROUP"), describe.describe());
                result.put(Integer.parseInt(row.get("PARTITION")),
                        row.get("START-OFFSET") + (withLag ? "/" + row.get("LAG") : ""));
            }
        }
        return result;
    }

    /**
     * Waits until --describe shows {@code expected} (START-OFFSET/LAG by partition; a START-OFFSET of "*" stands
     * for any: Kafka persists a share-partition's start offset lazily, so after everything was acknowledged it
     * may still show the old one, with the acknowledged records not counted in the lag); fails with the last
     * answer.
     */
    private static void awaitOffsets(String group, String topic, Map<Integer, String> expected) {
        AtomicReference<Map<Integer, String>> last = new AtomicReference<>();
        try {
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
                last.set(offsets(group, topic));
                return matches(expected, last.get());
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            assertEquals(expected, last.get(), "START-OFFSET/LAG of " + group + " after " + WAIT);
        }
    }

    private static boolean matches(Map<Integer, String> expected, Map<Integer, String> actual) {
        if (!expected.keySet().equals(actual.keySet())) {
            return false;
        }
        return expected.entrySet().stream().allMatch(e -> e.getValue().startsWith("*/")
                ? actual.get(e.getKey()).endsWith(e.getValue().substring(1)) : e.getValue().equals(actual.get(e.getKey())));
    }

    private static Map<Integer, String> same(int partitions, String cell) {
        Map<Integer, String> m = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            m.put(p, cell);
        }
        return m;
    }

    /** Share consumers of one group on their own threads (implicit acknowledgement), noting every value. */
    private static final class Consumers implements AutoCloseable {
        final Map<String, Integer> got = new ConcurrentHashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();

        Consumers(String group, String topic, String... clientIds) {
            for (String clientId : clientIds) {
                Thread t = new Thread(() -> {
                    Properties props = Clients.base(KRILL.bootstrapServers());
                    props.put("group.id", group);
                    props.put("client.id", clientId);
                    props.put("share.acknowledgement.mode", "implicit");
                    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props,
                            new StringDeserializer(), new StringDeserializer())) {
                        consumer.subscribe(List.of(topic));
                        while (!stop.get()) {
                            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                                got.merge(r.value(), 1, Integer::sum);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "share-tools-" + clientId);
                threads.add(t);
                t.start();
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
            assertEquals(null, failure.get(), "a share consumer failed");
        }
    }

    private static List<String> values(String topic, int partitions) {
        List<String> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (int i = 0; i < 10; i++) {
                all.add("v" + p + "-" + i);
            }
        }
        return all;
    }

    @Test
    void listDescribeResetDeleteOffsetsAndDeleteShareGroup() throws Exception {
        String topic = "share-tool-topic";
        String group = "share-tool-group";
        createTopic(topic, 3);
        produceTen(topic, 3);
        groupConfig(group, "--alter", "--add-config", "share.auto.offset.reset=earliest").assertSuccess();

        // A classic consumer group is not listed by the share-group tool.
        String classic = "classic-next-to-share";
        Properties classicProps = Clients.base(KRILL.bootstrapServers());
        classicProps.put("group.id", classic);
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(classicProps,
                new StringDeserializer(), new StringDeserializer())) {
            consumer.commitSync(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(1)));
        }

        try (Consumers consumers = new Consumers(group, topic, "share-tool-a", "share-tool-b")) {
            Awaitility.await("both consumers' records").atMost(WAIT).until(() -> consumers.got.size() == 30
                    || consumers.failure.get() != null);
            assertEquals(null, consumers.failure.get());
            assertEquals(Set.copyOf(values(topic, 3)), consumers.got.keySet());

            Result list = shareGroups("--list").assertSuccess();
            assertTrue(list.outLines().contains(group), list.describe());
            assertFalse(list.outLines().contains(classic), "a classic group is no share group:\n" + list.describe());

            Result listStates = shareGroups("--list", "--state").assertSuccess();
            Map<String, String> states = table(listStates, "GROUP").stream()
                    .collect(Collectors.toMap(r -> r.get("GROUP"), r -> r.get("STATE")));
            assertEquals("Stable", states.get(group), listStates.describe());

            // Every record was acknowledged (implicitly): the share-partitions start after the last one.
            awaitOffsets(group, topic, same(3, "*/0"));

            AtomicReference<Result> stateRef = new AtomicReference<>();
            Awaitility.await("two members, Stable").atMost(WAIT).until(() -> {
                Result r = shareGroups("--describe", "--group", group, "--state").assertSuccess();
                stateRef.set(r);
                Map<String, String> row = table(r, "GROUP").get(0);
                return "Stable".equals(row.get("STATE")) && "2".equals(row.get("#MEMBERS"));
            });
            Map<String, String> state = table(stateRef.get(), "GROUP").get(0);
            assertEquals(group, state.get("GROUP"), stateRef.get().describe());
            // "COORDINATOR (ID)" is one column of two words: host:port and (id)
            assertEquals("127.0.0.1:" + KRILL.port(), state.get("COORDINATOR"), stateRef.get().describe());
            assertEquals("(1)", state.get("(ID)"), stateRef.get().describe());

            Result members = shareGroups("--describe", "--group", group, "--members").assertSuccess();
            List<Map<String, String>> memberRows = table(members, "GROUP");
            assertEquals(Set.of("share-tool-a", "share-tool-b"),
                    memberRows.stream().map(r -> r.get("CLIENT-ID")).collect(Collectors.toSet()), members.describe());
            Set<Integer> assigned = new TreeSet<>();
            for (Map<String, String> row : memberRows) {
                assertTrue(row.get("ASSIGNMENT").startsWith(topic + ":"), members.describe());
                for (String p : row.get("ASSIGNMENT").substring(topic.length() + 1).split(",")) {
                    assigned.add(Integer.parseInt(p));
                }
                assertEquals(row.get("ASSIGNMENT").substring(topic.length() + 1).split(",").length,
                        Integer.parseInt(row.get("#PARTITIONS")), members.describe());
            }
            assertEquals(Set.of(0, 1, 2), assigned, "every partition assigned:\n" + members.describe());
            Result verbose = shareGroups("--describe", "--group", group, "--members", "--verbose").assertSuccess();
            for (Map<String, String> row : table(verbose, "GROUP")) {
                assertTrue(Integer.parseInt(row.get("MEMBER-EPOCH")) > 0, verbose.describe());
            }

            // Offsets cannot be reset nor the group deleted while it has members.
            Result refused = shareGroups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest",
                    "--execute");
            assertEquals(1, refused.exitCode(), refused.describe());
            assertTrue(refused.err().contains("Share group '" + group + "' is not empty."), refused.describe());
            Result notDeleted = shareGroups("--delete", "--group", group).assertSuccess();
            assertTrue(notDeleted.out().contains("Deletion of some share groups failed"), notDeleted.describe());
            assertTrue(notDeleted.out().contains("* Group '" + group + "' could not be deleted due to: "
                    + "org.apache.kafka.common.errors.GroupNotEmptyException"), notDeleted.describe());
            awaitOffsets(group, topic, same(3, "*/0"));
        }

        Result empty = shareGroups("--describe", "--group", group, "--state").assertSuccess();
        assertTrue(empty.err().contains("Share group '" + group + "' has no active members."), empty.describe());
        assertEquals("Empty", table(empty, "GROUP").get(0).get("STATE"), empty.describe());
        assertEquals("0", table(empty, "GROUP").get(0).get("#MEMBERS"), empty.describe());

        // A dry run prints the plan and changes nothing.
        Result dry = shareGroups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest",
                "--dry-run").assertSuccess();
        assertEquals(Map.of(0, "0", 1, "0", 2, "0"), newOffsets(dry), dry.describe());
        awaitOffsets(group, topic, same(3, "*/0"));

        Result earliest = shareGroups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest",
                "--execute").assertSuccess();
        assertEquals(Map.of(0, "0", 1, "0", 2, "0"), newOffsets(earliest), earliest.describe());
        assertEquals(same(3, "0/10"), offsets(group, topic));

        Result toOffset = shareGroups("--reset-offsets", "--group", group, "--topic", topic + ":1", "--to-offset",
                "4", "--execute").assertSuccess();
        assertEquals(Map.of(1, "4"), newOffsets(toOffset), toOffset.describe());
        assertEquals(Map.of(0, "0/10", 1, "4/6", 2, "0/10"), offsets(group, topic));

        Result latest = shareGroups("--reset-offsets", "--group", group, "--topic", topic, "--to-latest",
                "--execute").assertSuccess();
        assertEquals(Map.of(0, "10", 1, "10", 2, "10"), newOffsets(latest), latest.describe());
        assertEquals(same(3, "10/0"), offsets(group, topic));

        Result deleteOffsets = shareGroups("--delete-offsets", "--group", group, "--topic", topic).assertSuccess();
        List<Map<String, String>> statusRows = table(deleteOffsets, "TOPIC");
        assertEquals(List.of(Map.of("TOPIC", topic, "STATUS", "Successful")), statusRows, deleteOffsets.describe());
        Result noOffsets = shareGroups("--describe", "--group", group).assertSuccess();
        assertTrue(noOffsets.out().contains("Share group '" + group + "' has no offset information."),
                noOffsets.describe());

        Result delete = shareGroups("--delete", "--group", group).assertSuccess();
        assertTrue(delete.out().contains("Deletion of requested share groups ('" + group + "') was successful."),
                delete.describe());
        Result listAfter = shareGroups("--list").assertSuccess();
        assertFalse(listAfter.outLines().contains(group), listAfter.describe());
        // Kafka 4.4 answers GROUP_ID_NOT_FOUND, which the tool prints as a failure.
        Result gone = shareGroups("--describe", "--group", group, "--state");
        assertTrue(gone.out().contains("Executing share group command failed due to "
                + "org.apache.kafka.common.errors.GroupIdNotFoundException: Group " + group + " not found."),
                gone.describe());
    }

    /** The NEW-OFFSET column of a reset's plan, by partition. */
    private static Map<Integer, String> newOffsets(Result reset) {
        return table(reset, "GROUP").stream().collect(Collectors.toMap(r -> Integer.parseInt(r.get("PARTITION")),
                r -> r.get("NEW-OFFSET")));
    }

    /**
     * What --reset-offsets --execute does to consumption, not only to the offsets the tool shows: once a group
     * read everything and emptied, a reset --to-earliest makes the next share consumer get every record again,
     * as a first delivery, and a reset --to-offset of one partition only that partition's records from there.
     */
    @Test
    void aShareConsumerStartsWhereTheResetPutTheGroup() throws Exception {
        String topic = "share-reset-topic";
        String group = "share-reset-group";
        createTopic(topic, 3);
        produceTen(topic, 3);
        groupConfig(group, "--alter", "--add-config", "share.auto.offset.reset=earliest").assertSuccess();
        assertEquals(values(topic, 3), consumeAll(group, topic, 30));
        awaitOffsets(group, topic, same(3, "*/0"));

        shareGroups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute")
                .assertSuccess();
        assertEquals(same(3, "0/10"), offsets(group, topic));
        assertEquals(values(topic, 3), consumeAll(group, topic, 30), "every record again after --to-earliest");
        awaitOffsets(group, topic, same(3, "*/0"));

        shareGroups("--reset-offsets", "--group", group, "--topic", topic + ":1", "--to-offset", "4", "--execute")
                .assertSuccess();
        awaitOffsets(group, topic, Map.of(0, "*/0", 1, "4/6", 2, "*/0"));
        assertEquals(IntStream.range(4, 10).mapToObj(i -> "v1-" + i).toList(), consumeAll(group, topic, 6),
                "partition 1 from offset 4 after --to-offset 4");
    }

    /** One share consumer reads {@code expected} records (implicitly acknowledged); values sorted. */
    private static List<String> consumeAll(String group, String topic, int expected) throws Exception {
        List<String> got = new ArrayList<>();
        List<Short> deliveries = new ArrayList<>();
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put("group.id", group);
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            try {
                Awaitility.await().atMost(WAIT).until(() -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        got.add(r.value());
                        deliveries.add(r.deliveryCount().orElseThrow());
                    }
                    return got.size() >= expected;
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("a share consumer of " + group + " got " + got.size() + " of " + expected
                        + " records within " + WAIT + " " + got + "; the group's START-OFFSET/LAG now "
                        + offsets(group, topic), e);
            }
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                got.add(r.value());
            }
        }
        assertEquals(Set.of((short) 1), Set.copyOf(deliveries), "every record a first delivery: " + got);
        return got.stream().sorted().toList();
    }

    private static final Pattern DELIVERY = Pattern.compile("Delivery:(\\d+)\\t(.*)");

    @Test
    void consoleShareConsumerReadsWhatTheConsoleProducerWrote() throws Exception {
        String topic = "share-console";
        String group = "share-console-group";
        createTopic(topic, 1);
        List<String> lines = IntStream.range(0, 21).mapToObj(i -> "line-" + i).toList();
        ToolRunner.runWithInput("kafka-console-producer", ConsoleProducer::main, TIMEOUT,
                String.join("\n", lines) + "\n", "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic)
                .assertSuccess();

        // Without share.auto.offset.reset=earliest a new share group starts at the log end: a share consumer of
        // such a group gets none of what was there before it came, only what was written after.
        String latestTopic = "share-console-latest-topic";
        createTopic(latestTopic, 1);
        Clients.produce(KRILL.bootstrapServers(), latestTopic, 0, List.of("early-0", "early-1", "early-2"));
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put("group.id", "share-console-latest");
        List<String> latestGot = new ArrayList<>();
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(latestTopic));
            AtomicInteger late = new AtomicInteger();
            // when the share-partition starts is up to the broker: write until the consumer sees something
            Awaitility.await("records written after the group came").atMost(WAIT).until(() -> {
                Clients.produce(KRILL.bootstrapServers(), latestTopic, 0, List.of("late-" + late.getAndIncrement()));
                consumer.poll(Duration.ofMillis(500)).forEach(r -> latestGot.add(r.value()));
                return !latestGot.isEmpty();
            });
        }
        assertTrue(latestGot.stream().allMatch(v -> v.startsWith("late-")), "from the log end: " + latestGot);

        Result set = groupConfig(group, "--alter", "--add-config", "share.auto.offset.reset=earliest").assertSuccess();
        assertTrue(set.out().contains("Completed updating config for group " + group), set.describe());
        Result described = groupConfig(group, "--describe").assertSuccess();
        assertTrue(described.out().contains("share.auto.offset.reset=earliest"), described.describe());

        Result first = consoleShareConsumer(topic, group, "--max-messages", "12", "--timeout-ms", "30000");
        assertEquals(0, first.exitCode(), first.describe());
        assertEquals(lines.subList(0, 12), first.outLines(), first.describe());
        assertTrue(first.err().contains("Processed a total of 12 messages"), first.describe());

        // The rest: what the first run fetched beyond its 12 was released when it closed, so it comes again.
        Result rest = consoleShareConsumer(topic, group, "--max-messages", "9", "--timeout-ms", "30000",
                "--formatter-property", "print.delivery=true");
        assertEquals(0, rest.exitCode(), rest.describe());
        assertEquals(lines.subList(12, 21), rest.outLines().stream().map(ShareGroupToolsTest::valueOf).toList(),
                rest.describe());

        // Everything was accepted: nothing more comes, and the share-partition starts at the log end.
        Result none = consoleShareConsumer(topic, group, "--timeout-ms", "3000");
        assertEquals(List.of(), none.outLines(), none.describe());
        assertTrue(none.err().contains("Processed a total of 0 messages"), none.describe());
        awaitOffsets(group, topic, Map.of(0, "*/0"));

        // --release: the record comes back, one delivery count higher, each time.
        ToolRunner.runWithInput("kafka-console-producer", ConsoleProducer::main, TIMEOUT, "again\n",
                "--bootstrap-server", KRILL.bootstrapServers(), "--topic", topic).assertSuccess();
        Result released = consoleShareConsumer(topic, group, "--release", "--max-messages", "3", "--timeout-ms",
                "30000", "--formatter-property", "print.delivery=true", "--formatter-property", "print.offset=true");
        assertEquals(0, released.exitCode(), released.describe());
        assertEquals(List.of("Offset:21\tDelivery:1\tagain", "Offset:21\tDelivery:2\tagain",
                "Offset:21\tDelivery:3\tagain"), released.outLines(), released.describe());

        // --reject: delivered once more, then archived for good.
        Result rejected = consoleShareConsumer(topic, group, "--reject", "--max-messages", "1", "--timeout-ms",
                "30000", "--formatter-property", "print.delivery=true");
        assertEquals(0, rejected.exitCode(), rejected.describe());
        assertEquals(List.of("Delivery:4\tagain"), rejected.outLines(), rejected.describe());
        Result afterReject = consoleShareConsumer(topic, group, "--timeout-ms", "3000");
        assertEquals(List.of(), afterReject.outLines(), afterReject.describe());
        awaitOffsets(group, topic, Map.of(0, "*/0"));

        // Both groups are listed; the one that read nothing has no members left either.
        Result list = shareGroups("--list").assertSuccess();
        assertTrue(list.outLines().containsAll(List.of(group, "share-console-latest")), list.describe());
    }

    private static String valueOf(String line) {
        Matcher m = DELIVERY.matcher(line);
        assertTrue(m.matches(), "not a 'Delivery:<n>\\t<value>' line: " + line);
        assertTrue(Integer.parseInt(m.group(1)) >= 1, line);
        return m.group(2);
    }
}
