package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.GroupOffsetsTool;
import io.krill.compat.support.GroupRounds;
import io.krill.compat.support.GroupRounds.Consumed;
import io.krill.compat.support.Python;
import io.krill.compat.support.RunningProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
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
        GroupRounds rounds = new GroupRounds(KRILL.bootstrapServers(), topic, PARTITIONS);
        rounds.createTopic();
        List<Consumed> consumed = new ArrayList<>();
        try (RunningProcess a = member(group, topic); RunningProcess b = member(group, topic)) {
            waitFor("two members with two partitions each", () -> {
                Set<Integer> all = new HashSet<>(lastAssignment(a));
                all.addAll(lastAssignment(b));
                return lastAssignment(a).size() == 2 && lastAssignment(b).size() == 2 && all.size() == PARTITIONS;
            }, a, b);
            assertEquals(List.of(2, 2), rounds.stableAssignmentSizes(group), "the group as the admin client sees it");

            rounds.produce("one", 5);
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
            waitFor("the survivor holds every partition", () -> lastAssignment(b).equals(Set.of(0, 1, 2, 3)), b);

            rounds.produce("two", 5);
            waitFor("40 records consumed", () -> records(a).size() + records(b).size() == 40, b);
            b.closeInput();
            assertEquals(0, b.awaitExit(WAIT), b.describe());
            consumed.addAll(records(a));
            consumed.addAll(records(b));
        }
        rounds.assertEveryRecordOnce(consumed, List.of("one", "two"), 5);

        List<String> committed = python.run(WAIT, "committed", KRILL.bootstrapServers(), group, topic,
                String.valueOf(PARTITIONS)).outLines();
        assertEquals(List.of("committed 0 10", "committed 1 10", "committed 2 10", "committed 3 10"), committed);
        GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, topic).forEach((p, row) ->
                assertEquals(new GroupOffsetsTool.Row(10, 10, 0), row, "partition " + p));

        // A new member of the group starts at the committed offsets: it reads only what came after.
        rounds.produce("three", 2);
        try (RunningProcess c = member(group, topic)) {
            waitFor("the 8 new records", () -> records(c).size() >= 8, c);
            c.closeInput();
            assertEquals(0, c.awaitExit(WAIT), c.describe());
            rounds.assertEveryRecordOnce(records(c), List.of("three"), 2);
            assertTrue(records(c).stream().allMatch(r -> r.offset() >= 10), c.describe());
        }
        GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, topic).forEach((p, row) ->
                assertEquals(new GroupOffsetsTool.Row(12, 12, 0), row, "partition " + p));
    }

    private static RunningProcess member(String group, String topic) {
        return python.start("member", KRILL.bootstrapServers(), group, topic);
    }

    private static List<Consumed> records(RunningProcess member) {
        return GroupRounds.consumed(member.outLines(), "record ");
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

    private static void waitFor(String what, Callable<Boolean> condition, RunningProcess... members) {
        RunningProcess.waitFor(what, WAIT, condition, members);
    }
}
