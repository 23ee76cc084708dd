package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.ToolRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.reassign.ReassignPartitionsCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-reassign-partitions.sh (Kafka 4.4's {@code ReassignPartitionsCommand}) moves a replicated
 * partition from brokers {1, 2} to {2, 3}: --execute starts it, --verify reports it complete, the data is
 * intact on the new replicas, and broker 1 deletes its copy.
 */
class ReassignmentTest {
    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3);

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void movesAPartitionToOtherBrokersWithItsData(@TempDir Path dir) throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "moving";
        cluster.admin().createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1, 2))))).all()
                .get(30, TimeUnit.SECONDS);
        cluster.awaitFullIsr(topic);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            values.add("moved-" + i);
        }
        produce(cluster, topic, values);
        assertTrue(Files.isDirectory(cluster.dataDir(1).resolve(topic + "-0")), "broker 1 hosts a replica");

        Path plan = dir.resolve("reassignment.json");
        Files.writeString(plan, "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic
                + "\",\"partition\":0,\"replicas\":[2,3]}]}");
        ToolRunner.Result executed = ToolRunner.run("kafka-reassign-partitions", ReassignPartitionsCommand::main,
                TOOL_TIMEOUT, "--bootstrap-server", cluster.bootstrapServers(), "--reassignment-json-file",
                plan.toString(), "--execute").assertSuccess();
        assertTrue(executed.out().contains("Successfully started partition reassignment for " + topic + "-0"),
                executed.describe());

        List<ToolRunner.Result> verified = new ArrayList<>();
        await("kafka-reassign-partitions --verify reports completion").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    ToolRunner.Result result = ToolRunner.run("kafka-reassign-partitions",
                            ReassignPartitionsCommand::main, TOOL_TIMEOUT, "--bootstrap-server",
                            cluster.bootstrapServers(), "--reassignment-json-file", plan.toString(), "--verify");
                    verified.add(result);
                    return result.out().contains("Reassignment of partition " + topic + "-0 is completed.");
                });
        ToolRunner.Result last = verified.get(verified.size() - 1);
        assertEquals(0, last.exitCode(), last.describe());

        TopicPartitionInfo moved = cluster.describe(topic, 0);
        assertEquals(List.of(2, 3), moved.replicas().stream().map(Node::id).toList(), moved.toString());
        assertEquals(Set.of(2, 3), Set.copyOf(moved.isr().stream().map(Node::id).toList()), moved.toString());
        assertTrue(Set.of(2, 3).contains(moved.leader().id()), moved.toString());

        await("broker 1 deleted its replica").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> !Files.exists(cluster.dataDir(1).resolve(topic + "-0")));
        assertTrue(Files.isDirectory(cluster.dataDir(3).resolve(topic + "-0")), "broker 3 hosts the new replica");
        ReplicaFiles.assertIdentical(cluster, topic + "-0", List.of(2, 3));
        assertEquals(values, ReadBack.values(ReadBack.all(cluster, topic, 1)), "the data moved intact");
    }

    private static void produce(KrillCluster cluster, String topic, List<String> values) throws Exception {
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (String v : values) {
                acks.add(producer.send(new ProducerRecord<>(topic, 0, null, v)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
    }
}
