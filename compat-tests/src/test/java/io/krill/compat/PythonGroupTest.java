package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import io.krill.compat.support.GroupOffsetsTool;
import io.krill.compat.support.Python;
import io.krill.compat.support.RunningProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.GroupState;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * confluent-kafka-python consumers (librdkafka's classic group protocol, range assignor, synchronous
 * commits) in one group: two members split a topic's partitions, the survivor takes over the leaver's
 * partitions from its committed offsets, and a fresh member of the group resumes there too. What was
 * committed is read back by a new python consumer and by kafka-consumer-groups --describe.
 */
class PythonGroupTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("offsets.topic.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;

    @TempDir
    static Path tmp;
    static Python python;

    @BeforeAll
    static void confluentKafka() {
        python = Python.withScript("confluent_group.py", tmp);
    }

    @Test
    void twoMembersSplitTheTopicAndTheSurvivorTakesOverFromTheCommittedOffsets() throws Exception {
        String topic = "py-group-topic";
        String group = "py-group";
        createTopic(topic);
        List<Consumed> consumed = new ArrayList<>();
        try (RunningProcess a = member(group, topic); RunningProcess b = member(group, topic)) {
            waitFor("two members with two partitions each", () -> {
                Set<Integer> ofA = lastAssignment(a);
                Set<Integer> ofB = lastAssignment(b);
                Set<Integer> all = new HashSet<>(ofA);
                all.addAll(ofB);
                return ofA.size() == 2 && ofB.size() == 2 && all.size() == PARTITIONS;
            }, a, b);
            Map<String, List<String>> members = assignmentsSeenByAdmin(group);
            assertEquals(List.of(2, 2), members.values().stream().map(List::size).toList(), members.toString());

            produceRound(topic, "one", 5);
            waitFor("20 records consumed", () -> records(a).size() + records(b).size() == 20, a, b);
            for (RunningProcess member : List.of(a, b)) {
                Set<Integer> own = lastAssignment(member);
                assertTrue(records(member).stream().allMatch(r -> own.contains(r.partition())),
                        "each member reads only its own partitions\n" + member.describe());
            }

            a.closeInput();
            assertEquals(0, a.awaitExit(WAIT), a.describe());
            List<String> aLines = a.outLines();
            assertEquals("closed", aLines.get(aLines.size() - 1), a.describe());
            waitFor("the survivor holds every partition",
                    () -> lastAssignment(b).equals(Set.of(0, 1, 2, 3)), a, b);

            produceRound(topic, "two", 5);
            waitFor("40 records consumed", () -> records(a).size() + records(b).size() == 40, a, b);
            b.closeInput();
            assertEquals(0, b.awaitExit(WAIT), b.describe());
            consumed.addAll(records(a));
            consumed.addAll(records(b));
        }
        assertEveryRecordOnce(consumed, List.of("one", "two"), 5);

        List<String> committed = python.run(WAIT, "committed", KRILL.bootstrapServers(), group, topic,
                String.valueOf(PARTITIONS)).outLines();
        assertEquals(List.of("committed 0 10", "committed 1 10", "committed 2 10", "committed 3 10"), committed);
        GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, topic).forEach((p, row) ->
                assertEquals(new GroupOffsetsTool.Row(10, 10, 0), row, "partition " + p));

        // A new member of the group starts at the committed offsets: it reads only what came after.
        produceRound(topic, "three", 2);
        try (RunningProcess c = member(group, topic)) {
            waitFor("the 8 new records", () -> records(c).size() >= 8, c);
            c.closeInput();
            assertEquals(0, c.awaitExit(WAIT), c.describe());
            assertEveryRecordOnce(records(c), List.of("three"), 2);
            assertTrue(records(c).stream().allMatch(r -> r.offset() >= 10), c.describe());
        }
        GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, topic).forEach((p, row) ->
                assertEquals(new GroupOffsetsTool.Row(12, 12, 0), row, "partition " + p));
    }

    /** A line "record P OFFSET VALUE" of a member. */
    record Consumed(int partition, long offset, String value) {
    }

    private static RunningProcess member(String group, String topic) {
        return python.start("member", KRILL.bootstrapServers(), group, topic);
    }

    private static List<Consumed> records(RunningProcess member) {
        return member.outLines().stream().filter(l -> l.startsWith("record ")).map(l -> l.split(" ", 4))
                .map(f -> new Consumed(Integer.parseInt(f[1]), Long.parseLong(f[2]), f[3])).toList();
    }

    /** The partitions of the member's last "assigned" line (empty before the first). */
    private static Set<Integer> lastAssignment(RunningProcess member) {
        List<String> assigned = member.outLines().stream().filter(l -> l.startsWith("assigned ")).toList();
        if (assigned.isEmpty() || assigned.get(assigned.size() - 1).equals("assigned -")) {
            return Set.of();
        }
        String last = assigned.get(assigned.size() - 1).substring("assigned ".length());
        return Arrays.stream(last.split(",")).map(Integer::valueOf).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Records "ROUND-p-i" for i < perPartition on every partition (keys and order per partition). */
    private static void produceRound(String topic, String round, int perPartition) {
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            Clients.produce(KRILL.bootstrapServers(), topic, p,
                    IntStream.range(0, perPartition).mapToObj(i -> round + "-" + partition + "-" + i).toList());
        }
    }

    /** Exactly the records of these rounds, each once, in offset order within its partition. */
    private static void assertEveryRecordOnce(List<Consumed> consumed, List<String> rounds, int perPartition) {
        List<String> expected = new ArrayList<>();
        for (String round : rounds) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < perPartition; i++) {
                    expected.add(round + "-" + p + "-" + i);
                }
            }
        }
        assertEquals(new TreeSet<>(expected), new TreeSet<>(consumed.stream().map(Consumed::value).toList()),
                "records consumed");
        assertEquals(expected.size(), consumed.size(), "no record consumed twice: " + consumed);
        Map<Integer, List<Long>> offsets = new HashMap<>();
        consumed.forEach(r -> offsets.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.offset()));
        offsets.forEach((p, list) -> assertEquals(list.stream().sorted().toList(), list, "offsets of partition " + p));
    }

    private static Map<String, List<String>> assignmentsSeenByAdmin(String group) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            assertEquals(GroupState.STABLE, description.groupState(), description.toString());
            Map<String, List<String>> members = new HashMap<>();
            description.members().forEach(m -> members.put(m.consumerId(), m.assignment().topicPartitions().stream()
                    .map(Object::toString).sorted().toList()));
            return members;
        }
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        }
    }

    /** Waits for the condition; fails early when a member ends unasked, and with every member's output. */
    private static void waitFor(String what, Callable<Boolean> condition, RunningProcess... members) {
        try {
            await(what).atMost(WAIT).pollInterval(Duration.ofMillis(100)).failFast("a member ended early",
                    () -> Arrays.stream(members).anyMatch(m -> !m.isAlive() && !m.outLines().contains("closed")))
                    .until(condition);
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            throw new AssertionError(e.getMessage() + "\n" + Arrays.stream(members).map(RunningProcess::describe)
                    .collect(Collectors.joining("\n")), e);
        }
    }
}
