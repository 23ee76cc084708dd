package io.krill.compat.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What the tests of native group consumers (python, kcat) share: a topic written in rounds (record
 * "ROUND-P-I" is the I-th of the round on partition P), the records the members printed, the check that
 * every record of the rounds was consumed exactly once, and the group as the stock admin client sees it.
 */
public final class GroupRounds {
    /** One record a member printed. */
    public record Consumed(int partition, long offset, String value) {
    }

    private final String bootstrap;
    private final String topic;
    private final int partitions;

    public GroupRounds(String bootstrap, String topic, int partitions) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
    }

    public void createTopic() throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Clients.base(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** Writes {@code perPartition} records of the round to every partition, acknowledged. */
    public void produce(String round, int perPartition) {
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            Clients.produce(bootstrap, topic, p,
                    IntStream.range(0, perPartition).mapToObj(i -> round + "-" + partition + "-" + i).toList());
        }
    }

    /** The lines "[PREFIX]PARTITION OFFSET VALUE" among a member's output. */
    public static List<Consumed> consumed(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()).split(" ", 3))
                .map(f -> new Consumed(Integer.parseInt(f[0]), Long.parseLong(f[1]), f[2])).toList();
    }

    /** Exactly the records of these rounds, each once, in offset order within each partition. */
    public void assertEveryRecordOnce(List<Consumed> consumed, List<String> rounds, int perPartition) {
        List<String> expected = new ArrayList<>();
        for (String round : rounds) {
            for (int p = 0; p < partitions; p++) {
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

    /**
     * The number of partitions of the topic each member holds, sorted, when the group is stable (as
     * DescribeGroups tells the stock admin client); empty while it is not, or before its first member joined
     * (DescribeGroups v6 answers GROUP_ID_NOT_FOUND then, as Kafka 4.4 does).
     */
    public List<Integer> stableAssignmentSizes(String group) throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Clients.base(bootstrap))) {
            ConsumerGroupDescription description;
            try {
                description = admin.describeConsumerGroups(List.of(group)).all().get(60, TimeUnit.SECONDS).get(group);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GroupIdNotFoundException) {
                    return List.of();
                }
                throw e;
            }
            if (description.groupState() != GroupState.STABLE) {
                return List.of();
            }
            return description.members().stream().map(m -> (int) m.assignment().topicPartitions().stream()
                    .map(TopicPartition::topic).filter(topic::equals).count()).sorted().toList();
        }
    }
}
