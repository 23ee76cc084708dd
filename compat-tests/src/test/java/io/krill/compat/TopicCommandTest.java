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
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.tools.TopicCommand;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's kafka-topics.sh ({@code org.apache.kafka.tools.TopicCommand} 4.4) against Krill: create, list,
 * describe, add partitions, delete. What the tool printed is checked, and then what the broker did is
 * checked again through the stock Java client's metadata. Needs CreateTopics, DeleteTopics,
 * CreatePartitions, DescribeConfigs, DescribeCluster (and DescribeTopicPartitions when advertised).
 */
class TopicCommandTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern TOPIC_LINE = Pattern.compile(
            "^Topic: (\\S+)\\tTopicId: (\\S+)\\tPartitionCount: (\\d+)\\tReplicationFactor: (\\d+)\\tConfigs: (.*)$");
    private static final Pattern PARTITION_LINE = Pattern.compile(
            "^\\tTopic: (\\S+)\\tPartition: (\\d+)\\tLeader: (\\S+)\\tReplicas: (\\S+)\\tIsr: (\\S*)\\t.*$");

    @TempDir
    Path tmp;

    private Result topics(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", KRILL.bootstrapServers(), "--command-config",
                Clients.configFile(tmp, KRILL.bootstrapServers()).toString()));
        all.addAll(List.of(args));
        return ToolRunner.run("kafka-topics", TopicCommand::main, TIMEOUT, all.toArray(String[]::new));
    }

    @Test
    void createThenListAndDescribe() {
        String topic = "tc-create";
        Result create = topics("--create", "--topic", topic, "--partitions", "3", "--replication-factor", "1",
                "--config", "retention.ms=3600000", "--config", "cleanup.policy=delete").assertSuccess();
        assertEquals(List.of("Created topic " + topic + "."), create.outLines(), create.describe());

        List<PartitionInfo> partitions = Clients.partitionsFor(KRILL.bootstrapServers(), topic);
        assertEquals(3, partitions.size(), "partitions the Java client sees after --create");
        for (PartitionInfo p : partitions) {
            assertEquals(1, p.leader().id(), "leader of " + p);
        }

        Result list = topics("--list").assertSuccess();
        assertTrue(list.outLines().contains(topic), list.describe());

        Result describe = topics("--describe", "--topic", topic).assertSuccess();
        List<String> lines = describe.outLines();
        assertEquals(4, lines.size(), "one topic line and three partition lines:\n" + describe.describe());
        Matcher head = TOPIC_LINE.matcher(lines.get(0));
        assertTrue(head.matches(), "topic line: " + lines.get(0));
        assertEquals(topic, head.group(1));
        assertFalse(head.group(2).equals("AAAAAAAAAAAAAAAAAAAAAA"), "a real topic id");
        assertEquals("3", head.group(3), "PartitionCount");
        assertEquals("1", head.group(4), "ReplicationFactor");
        assertTrue(head.group(5).contains("retention.ms=3600000"), "overridden configs listed: " + head.group(5));
        for (int p = 0; p < 3; p++) {
            Matcher m = PARTITION_LINE.matcher(lines.get(1 + p));
            assertTrue(m.matches(), "partition line: " + lines.get(1 + p));
            assertEquals(topic, m.group(1));
            assertEquals(String.valueOf(p), m.group(2), "partitions sorted");
            assertEquals("1", m.group(3), "Leader");
            assertEquals("1", m.group(4), "Replicas");
            assertEquals("1", m.group(5), "Isr");
        }
    }

    @Test
    void createExistingTopicFailsUnlessIfNotExists() {
        String topic = "tc-exists";
        topics("--create", "--topic", topic, "--partitions", "1").assertSuccess();
        Result again = topics("--create", "--topic", topic, "--partitions", "1");
        assertEquals(1, again.exitCode(), again.describe());
        assertTrue(again.out().contains("Error while executing topic command") && again.out().contains("already exists"),
                "TopicExistsException reported:\n" + again.describe());
        topics("--create", "--topic", topic, "--partitions", "1", "--if-not-exists").assertSuccess();
    }

    @Test
    void describeMissingTopicFails() {
        Result describe = topics("--describe", "--topic", "tc-never-created");
        assertEquals(1, describe.exitCode(), describe.describe());
        assertTrue(describe.out().contains("Error while executing topic command : Topic 'tc-never-created' does not "
                + "exist as expected"), describe.describe());
        assertTrue(Clients.partitionsFor(KRILL.bootstrapServers(), "tc-never-created").isEmpty(),
                "--describe must not auto-create the topic");
    }

    @Test
    void alterAddsPartitionsThatTakeWrites() {
        String topic = "tc-alter";
        topics("--create", "--topic", topic, "--partitions", "2", "--replication-factor", "1").assertSuccess();
        topics("--alter", "--topic", topic, "--partitions", "5").assertSuccess();

        Awaitility.await().atMost(Duration.ofSeconds(15))
                .until(() -> Clients.partitionsFor(KRILL.bootstrapServers(), topic).size() == 5);
        Result describe = topics("--describe", "--topic", topic).assertSuccess();
        Matcher head = TOPIC_LINE.matcher(describe.outLines().get(0));
        assertTrue(head.matches(), describe.describe());
        assertEquals("5", head.group(3), "PartitionCount after --alter");
        assertEquals(6, describe.outLines().size(), describe.describe());

        // A new partition is a real one: it takes a write at offset 0.
        assertEquals(0L, Clients.produce(KRILL.bootstrapServers(), topic, 4, List.of("in-new-partition")).get(0).offset());

        Result shrink = topics("--alter", "--topic", topic, "--partitions", "3");
        assertEquals(1, shrink.exitCode(), "reducing partitions is refused (InvalidPartitionsException):\n"
                + shrink.describe());
    }

    @Test
    void deleteRemovesTopic() {
        String topic = "tc-delete";
        topics("--create", "--topic", topic, "--partitions", "2").assertSuccess();
        Clients.produce(KRILL.bootstrapServers(), topic, 0, List.of("a", "b", "c"));

        topics("--delete", "--topic", topic).assertSuccess();
        Awaitility.await().atMost(Duration.ofSeconds(15))
                .until(() -> !topics("--list").assertSuccess().outLines().contains(topic));
        assertTrue(Clients.partitionsFor(KRILL.bootstrapServers(), topic).isEmpty(),
                "deleted topic gone from Metadata");

        Result again = topics("--delete", "--topic", topic);
        assertEquals(1, again.exitCode(), "deleting a missing topic fails:\n" + again.describe());
        topics("--delete", "--topic", topic, "--if-exists").assertSuccess();

        // The name can be used again, with a new topic id and empty partitions.
        topics("--create", "--topic", topic, "--partitions", "1").assertSuccess();
        assertEquals(0L, Clients.endOffsets(KRILL.bootstrapServers(), topic, 1).get(0), "recreated topic is empty");
    }
}
