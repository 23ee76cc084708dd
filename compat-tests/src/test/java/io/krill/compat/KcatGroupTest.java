package io.krill.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.compat.support.GroupOffsetsTool;
import io.krill.compat.support.GroupRounds;
import io.krill.compat.support.GroupRounds.Consumed;
import io.krill.compat.support.Processes;
import io.krill.compat.support.RunningProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two kcat balanced consumers (-G: librdkafka's classic group protocol with automatic commits) in one
 * group: they split a topic's partitions; one is stopped with SIGTERM as from a terminal, commits on
 * its way out and leaves; the other takes over its partitions from there, so every record is read once.
 * The stock admin client watches the group; kafka-consumer-groups --describe judges the commits.
 */
class KcatGroupTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("offsets.topic.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;

    @BeforeAll
    static void kcatInstalled() {
        assumeTrue(Processes.onPath("kcat"), "kcat is not on the PATH (apt-get install kcat)");
    }

    @Test
    void twoBalancedConsumersSplitTheTopicAndTheSurvivorTakesOverAfterSigterm() throws Exception {
        String topic = "kcat-balanced";
        String group = "kcat-balanced-group";
        GroupRounds rounds = new GroupRounds(KRILL.bootstrapServers(), topic, PARTITIONS);
        rounds.createTopic();
        List<Consumed> consumed = new ArrayList<>();
        try (RunningProcess a = member(group, topic); RunningProcess b = member(group, topic)) {
            waitFor("a stable group of two members with two partitions each",
                    () -> rounds.stableAssignmentSizes(group).equals(List.of(2, 2)), a, b);

            rounds.produce("one", 5);
            waitFor("20 records consumed", () -> records(a).size() + records(b).size() == 20, a, b);
            Set<Integer> ofA = partitions(records(a));
            Set<Integer> ofB = partitions(records(b));
            assertEquals(2, ofA.size(), a.describe());
            assertEquals(2, ofB.size(), b.describe());
            assertTrue(ofA.stream().noneMatch(ofB::contains), "disjoint partitions\n" + a.describe() + b.describe());

            a.terminate();
            assertEquals(0, a.awaitExit(WAIT), a.describe());
            waitFor("the survivor alone holds every partition",
                    () -> rounds.stableAssignmentSizes(group).equals(List.of(PARTITIONS)), b);

            rounds.produce("two", 5);
            waitFor("40 records consumed", () -> records(a).size() + records(b).size() == 40, b);
            b.terminate();
            assertEquals(0, b.awaitExit(WAIT), b.describe());
            consumed.addAll(records(a));
            consumed.addAll(records(b));
        }
        rounds.assertEveryRecordOnce(consumed, List.of("one", "two"), 5);
        GroupOffsetsTool.describe(KRILL.bootstrapServers(), group, topic).forEach((p, row) ->
                assertEquals(new GroupOffsetsTool.Row(10, 10, 0), row, "partition " + p));
    }

    /** kcat -G, printing "PARTITION OFFSET VALUE" per record, unbuffered (-u). */
    private static RunningProcess member(String group, String topic) {
        return RunningProcess.start(List.of("kcat", "-b", KRILL.bootstrapServers(), "-G", group, "-u",
                "-f", "%p %o %s\\n", "-X", "auto.offset.reset=earliest", "-X", "auto.commit.interval.ms=200",
                "-X", "session.timeout.ms=10000", "-X", "heartbeat.interval.ms=500",
                "-X", "topic.metadata.refresh.interval.ms=1000", "-X", "socket.timeout.ms=20000", topic));
    }

    private static List<Consumed> records(RunningProcess member) {
        return GroupRounds.consumed(member.outLines(), "");
    }

    private static Set<Integer> partitions(List<Consumed> records) {
        return records.stream().map(Consumed::partition).collect(Collectors.toCollection(HashSet::new));
    }

    private static void waitFor(String what, Callable<Boolean> condition, RunningProcess... members) {
        RunningProcess.waitFor(what, WAIT, condition, members);
    }
}
