package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.Processes;
import io.krill.compat.support.ToolRunner;
import io.krill.compat.support.ToolRunner.Result;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.tools.consumer.ConsoleConsumer;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kafka-consumer-groups.sh (Kafka 4.4's {@code org.apache.kafka.tools.consumer.group.ConsumerGroupCommand})
 * against a group with committed offsets: list, describe (offsets, log end offsets, lag, members),
 * offset resets (earliest, datetime, shift) executed and then read back with OffsetFetch, offset
 * deletion and group deletion. Also kafka-console-consumer.sh with --group (a second run resumes from
 * the committed offsets) and kcat's balanced consumer (-G).
 */
class ConsumerGroupsToolTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "100");

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static Result groups(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers()));
        all.addAll(List.of(args));
        return ToolRunner.run("kafka-consumer-groups", ConsumerGroupCommand::main, TIMEOUT, all.toArray(String[]::new));
    }

    /** Ten records per partition, record i of every partition with timestamp base + i seconds. */
    private static void produceTimed(String topic, long base) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                for (int i = 0; i < 10; i++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, p, base + i * 1000L, "k" + i, "v" + p + "-" + i)));
                }
            }
            for (Future<RecordMetadata> f : acks) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static Map<Integer, Long> committed(String group, String topic) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            Map<Integer, Long> result = new HashMap<>();
            offsets.forEach((tp, om) -> {
                if (tp.topic().equals(topic) && om != null) {
                    result.put(tp.partition(), om.offset());
                }
            });
            return result;
        }
    }

    /** The rows of a tool's table, as maps from the header's column names to the cells. */
    private static List<Map<String, String>> table(Result result, String firstColumn) {
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

    private static Map<Integer, Map<String, String>> byPartition(List<Map<String, String>> rows) {
        return rows.stream().collect(Collectors.toMap(r -> Integer.parseInt(r.get("PARTITION")), r -> r));
    }

    @Test
    void listDescribeResetDeleteOffsetsAndDeleteGroup() throws Exception {
        String topic = "tool-topic";
        String group = "tool-group";
        long base = Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toEpochMilli();
        produceTimed(topic, base);

        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "tool-client");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            int read = 0;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (read < 30 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertEquals(30, read);
            consumer.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(10),
                    new TopicPartition(topic, 1), new OffsetAndMetadata(7),
                    new TopicPartition(topic, 2), new OffsetAndMetadata(3)));

            Result list = groups("--list").assertSuccess();
            assertTrue(list.outLines().contains(group), list.describe());

            Result describe = groups("--describe", "--group", group).assertSuccess();
            Map<Integer, Map<String, String>> rows = byPartition(table(describe, "GROUP"));
            assertEquals(3, rows.size(), describe.describe());
            long[][] expected = {{10, 10, 0}, {7, 10, 3}, {3, 10, 7}};
            for (int p = 0; p < 3; p++) {
                Map<String, String> row = rows.get(p);
                assertEquals(group, row.get("GROUP"));
                assertEquals(topic, row.get("TOPIC"));
                assertEquals(String.valueOf(expected[p][0]), row.get("CURRENT-OFFSET"), describe.describe());
                assertEquals(String.valueOf(expected[p][1]), row.get("LOG-END-OFFSET"), describe.describe());
                assertEquals(String.valueOf(expected[p][2]), row.get("LAG"), describe.describe());
                assertEquals("tool-client", row.get("CLIENT-ID"), describe.describe());
                assertTrue(row.get("CONSUMER-ID").startsWith("tool-client-"), describe.describe());
            }

            Result members = groups("--describe", "--group", group, "--members").assertSuccess();
            List<Map<String, String>> memberRows = table(members, "GROUP");
            assertEquals(1, memberRows.size(), members.describe());
            assertEquals("3", memberRows.get(0).get("#PARTITIONS"), members.describe());

            Result state = groups("--describe", "--group", group, "--state").assertSuccess();
            List<Map<String, String>> stateRows = table(state, "GROUP");
            assertEquals("Stable", stateRows.get(0).get("STATE"), state.describe());

            // Resets are refused while the group has members.
            Result refused = groups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute");
            assertTrue((refused.out() + refused.err()).contains("can only be reset if the group '" + group
                    + "' is inactive"), refused.describe());
            assertEquals(Map.of(0, 10L, 1, 7L, 2, 3L), committed(group, topic));
        }

        Result empty = groups("--describe", "--group", group).assertSuccess();
        assertTrue(empty.err().contains("has no active members"), empty.describe());
        for (Map<String, String> row : table(empty, "GROUP")) {
            assertEquals("-", row.get("CONSUMER-ID"), empty.describe());
        }

        // --dry-run (the default) changes nothing.
        Result dry = groups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest").assertSuccess();
        assertEquals(3, table(dry, "GROUP").size(), dry.describe());
        assertEquals(Map.of(0, 10L, 1, 7L, 2, 3L), committed(group, topic));

        Result earliest = groups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute")
                .assertSuccess();
        for (Map<String, String> row : table(earliest, "GROUP")) {
            assertEquals("0", row.get("NEW-OFFSET"), earliest.describe());
        }
        assertEquals(Map.of(0, 0L, 1, 0L, 2, 0L), committed(group, topic));

        String datetime = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS")
                .format(Instant.ofEpochMilli(base + 4000).atOffset(ZoneOffset.UTC)) + "Z";
        Result byTime = groups("--reset-offsets", "--group", group, "--topic", topic, "--to-datetime", datetime,
                "--execute").assertSuccess();
        assertEquals(Map.of(0, 4L, 1, 4L, 2, 4L), committed(group, topic), byTime.describe());

        Result shift = groups("--reset-offsets", "--group", group, "--topic", topic + ":0,2", "--shift-by", "3",
                "--execute").assertSuccess();
        assertEquals(Map.of(0, 7L, 1, 4L, 2, 7L), committed(group, topic), shift.describe());

        Result back = groups("--reset-offsets", "--group", group, "--topic", topic + ":1", "--shift-by", "-100",
                "--execute").assertSuccess();
        assertEquals(Map.of(0, 7L, 1, 0L, 2, 7L), committed(group, topic), back.describe());

        Result lagAfter = groups("--describe", "--group", group).assertSuccess();
        Map<Integer, Map<String, String>> after = byPartition(table(lagAfter, "GROUP"));
        assertEquals("3", after.get(0).get("LAG"), lagAfter.describe());
        assertEquals("10", after.get(1).get("LAG"), lagAfter.describe());

        Result deleteOffsets = groups("--delete-offsets", "--group", group, "--topic", topic + ":1").assertSuccess();
        assertTrue(deleteOffsets.out().contains("Successful"), deleteOffsets.describe());
        assertEquals(Map.of(0, 7L, 2, 7L), committed(group, topic), deleteOffsets.describe());

        Result delete = groups("--delete", "--group", group).assertSuccess();
        assertTrue(delete.out().contains("Deletion of requested consumer groups ('" + group + "') was successful"),
                delete.describe());
        Result listAfter = groups("--list").assertSuccess();
        assertFalse(listAfter.outLines().contains(group), listAfter.describe());
        assertEquals(Map.of(), committed(group, topic));

        // With DescribeGroups v6 (KIP-1043) the 4.4 tool reports a missing group as Kafka 4.4 answers it:
        // GROUP_ID_NOT_FOUND ("Group g not found."); before v6 it printed "does not exist".
        Result missing = groups("--describe", "--group", group);
        assertTrue(missing.out().contains("Group " + group + " not found."), missing.describe());
    }

    private static Result console(String topic, String group, int max) {
        return ToolRunner.run("kafka-console-consumer", ConsoleConsumer::main, TIMEOUT, "--bootstrap-server",
                KRILL.bootstrapServers(), "--topic", topic, "--group", group, "--max-messages", String.valueOf(max),
                "--timeout-ms", "30000", "--command-property", "auto.offset.reset=earliest");
    }

    @Test
    void consoleConsumerWithGroupResumesFromCommittedOffsets() throws Exception {
        String topic = "console-group-topic";
        String group = "console-group";
        List<String> first = IntStream.range(0, 6).mapToObj(i -> "first-" + i).toList();
        Clients.produce(KRILL.bootstrapServers(), topic, 0, first);
        Result run1 = console(topic, group, 6);
        assertEquals(0, run1.exitCode(), run1.describe());
        assertEquals(first, run1.outLines(), run1.describe());
        assertEquals(Map.of(0, 6L, 1, 0L, 2, 0L), committed(group, topic), run1.describe());

        List<String> second = IntStream.range(0, 4).mapToObj(i -> "second-" + i).toList();
        Clients.produce(KRILL.bootstrapServers(), topic, 0, second);
        Result run2 = console(topic, group, 4);
        assertEquals(0, run2.exitCode(), run2.describe());
        assertEquals(second, run2.outLines(), run2.describe());
        assertEquals(Map.of(0, 10L, 1, 0L, 2, 0L), committed(group, topic), run2.describe());
    }

    @Test
    void kcatBalancedConsumerReadsAllPartitionsAndCommits() throws Exception {
        assumeTrue(Processes.onPath("kcat"), "kcat is not on the PATH");
        String topic = "kcat-group-topic";
        String group = "kcat-group";
        for (int p = 0; p < 3; p++) {
            int partition = p;
            Clients.produce(KRILL.bootstrapServers(), topic, p,
                    IntStream.range(0, 5).mapToObj(i -> "p" + partition + "-" + i).toList());
        }
        Processes.Result kcat = kcat(group, topic, 15);
        assertEquals(0, kcat.exitCode(), kcat.describe());
        List<String> expected = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            for (int i = 0; i < 5; i++) {
                expected.add("p" + p + "-" + i);
            }
        }
        assertEquals(expected, kcat.outLines().stream().sorted().toList(), kcat.describe());
        assertEquals(Map.of(0, 5L, 1, 5L, 2, 5L), committed(group, topic), kcat.describe());

        Clients.produce(KRILL.bootstrapServers(), topic, 1, List.of("late-0", "late-1"));
        Processes.Result again = kcat(group, topic, 2);
        assertEquals(0, again.exitCode(), again.describe());
        assertEquals(List.of("late-0", "late-1"), again.outLines(), again.describe());
        assertEquals(Map.of(0, 5L, 1, 7L, 2, 5L), committed(group, topic), again.describe());
    }

    private static Processes.Result kcat(String group, String topic, int count) {
        return Processes.run(List.of("kcat", "-b", KRILL.bootstrapServers(), "-G", group, "-c", String.valueOf(count),
                "-f", "%s\\n", "-X", "auto.offset.reset=earliest", "-X", "socket.timeout.ms=20000", topic), "",
                TIMEOUT);
    }
}
