package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.tools.TopicCommand;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three brokers agree on what the cluster looks like: a replicated topic's leaders are spread over the
 * brokers, every broker answers describeCluster, describeTopics and Metadata the same way, and Kafka's
 * kafka-topics.sh shows the replication factor and the ISR of every partition.
 */
class ClusterMetadataTest {
    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3);

    private static final String TOPIC = "spread";
    private static final int PARTITIONS = 6;
    private static final Pattern HEADER = Pattern.compile(
            "^Topic: (\\S+)\\tTopicId: (\\S+)\\tPartitionCount: (\\d+)\\tReplicationFactor: (\\d+)\\tConfigs: (.*)$");
    private static final Pattern PARTITION = Pattern.compile(
            "^\\tTopic: (\\S+)\\tPartition: (\\d+)\\tLeader: (\\S+)\\tReplicas: (\\S+)\\tIsr: (\\S*)\\t.*$");

    @BeforeAll
    static void createTopic() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.admin().createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3))).all()
                .get(30, TimeUnit.SECONDS);
        await("every partition led, with all three replicas in sync").atMost(Duration.ofSeconds(30))
                .until(() -> cluster.describe(TOPIC).partitions().stream()
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty() && p.isr().size() == 3));
    }

    @Test
    void leadersAreSpreadOverAllBrokersOnTheirPreferredReplicas() {
        TopicDescription topic = CLUSTER.cluster().describe(TOPIC);
        Map<Integer, Integer> ledBy = new HashMap<>();
        for (TopicPartitionInfo p : topic.partitions()) {
            assertEquals(3, p.replicas().size(), p.toString());
            assertEquals(3, new TreeSet<>(p.replicas().stream().map(Node::id).toList()).size(), "distinct replicas " + p);
            assertEquals(p.replicas().get(0).id(), p.leader().id(), "led by its preferred replica: " + p);
            ledBy.merge(p.leader().id(), 1, Integer::sum);
        }
        assertTrue(ledBy.size() >= 2, "leaders on at least two brokers: " + ledBy);
        assertEquals(Set.of(1, 2, 3), ledBy.keySet(), "6 partitions over 3 brokers: every broker leads some " + ledBy);
    }

    @Test
    void everyBrokerDescribesTheClusterAndTheTopicAlike() {
        KrillCluster cluster = CLUSTER.cluster();
        await("all brokers answer alike").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Map<Integer, String> views = new HashMap<>();
            for (int id : cluster.brokerIds()) {
                views.put(id, adminView(cluster.bootstrapServers(id)));
            }
            String first = views.get(1);
            assertTrue(first.contains("nodes=[1@127.0.0.1:" + cluster.port(1) + ", 2@127.0.0.1:" + cluster.port(2)
                    + ", 3@127.0.0.1:" + cluster.port(3) + "]"), first);
            for (int id : cluster.brokerIds()) {
                assertEquals(first, views.get(id), "broker " + id + " vs broker 1");
            }
        });
    }

    @Test
    void everyBrokerAnswersMetadataAlikeWithLeaderEpochs() {
        KrillCluster cluster = CLUSTER.cluster();
        await("all brokers answer Metadata alike").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Map<Integer, String> views = new HashMap<>();
            for (int id : cluster.brokerIds()) {
                MetadataResponse response = RawRequests.metadata(cluster.bootstrapServers(id), List.of(TOPIC));
                StringBuilder sb = new StringBuilder("cluster ").append(response.clusterId())
                        .append(" controller ").append(response.controller().id())
                        .append(" brokers ").append(new TreeSet<>(response.brokersById().keySet()));
                response.topicMetadata().forEach(t -> t.partitionMetadata().stream()
                        .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
                        .forEach(p -> {
                            assertTrue(p.leaderEpoch.isPresent(), "leader epoch of " + p);
                            sb.append("\n").append(p.partition()).append(" leader ").append(p.leaderId.orElse(-1))
                                    .append(" epoch ").append(p.leaderEpoch.get()).append(" replicas ")
                                    .append(p.replicaIds).append(" isr ").append(p.inSyncReplicaIds)
                                    .append(" offline ").append(p.offlineReplicaIds);
                        }));
                views.put(id, sb.toString());
            }
            for (int id : cluster.brokerIds()) {
                assertEquals(views.get(1), views.get(id), "broker " + id + " vs broker 1");
            }
        });
    }

    @Test
    void topicsToolShowsReplicationFactorAndIsrOfEveryPartition() {
        KrillCluster cluster = CLUSTER.cluster();
        TopicDescription described = cluster.describe(TOPIC);
        ToolRunner.Result result = ToolRunner.run("kafka-topics", TopicCommand::main, Duration.ofSeconds(60),
                "--bootstrap-server", cluster.bootstrapServers(), "--describe", "--topic", TOPIC).assertSuccess();
        List<String> lines = result.outLines();
        Matcher head = HEADER.matcher(lines.get(0));
        assertTrue(head.matches(), result.describe());
        assertEquals(TOPIC, head.group(1), result.describe());
        assertEquals(Integer.toString(PARTITIONS), head.group(3), result.describe());
        assertEquals("3", head.group(4), "ReplicationFactor\n" + result.describe());
        List<Integer> seen = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            Matcher m = PARTITION.matcher(line);
            assertTrue(m.matches(), line + "\n" + result.describe());
            int partition = Integer.parseInt(m.group(2));
            TopicPartitionInfo p = described.partitions().get(partition);
            seen.add(partition);
            assertEquals(Integer.toString(p.leader().id()), m.group(3), "Leader of " + partition);
            assertEquals(ids(p.replicas()), m.group(4), "Replicas of " + partition);
            assertEquals(ids(p.isr()), m.group(5), "Isr of " + partition);
            assertEquals(3, m.group(5).split(",").length, "three replicas in sync for " + partition + ": " + line);
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5), seen, result.describe());
    }

    /** describeCluster and describeTopics through an Admin client that knows only one broker. */
    private static String adminView(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        try (Admin admin = Admin.create(props)) {
            DescribeClusterResult cluster = admin.describeCluster();
            String nodes = cluster.nodes().get(10, TimeUnit.SECONDS).stream()
                    .sorted((a, b) -> Integer.compare(a.id(), b.id()))
                    .map(n -> n.id() + "@" + n.host() + ":" + n.port()).collect(Collectors.joining(", ", "[", "]"));
            TopicDescription topic = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS)
                    .get(TOPIC);
            StringBuilder sb = new StringBuilder("clusterId=").append(cluster.clusterId().get(10, TimeUnit.SECONDS))
                    .append(" controller=").append(cluster.controller().get(10, TimeUnit.SECONDS).id())
                    .append(" nodes=").append(nodes)
                    .append("\ntopic ").append(topic.name()).append(" id ").append(topic.topicId())
                    .append(" internal ").append(topic.isInternal());
            for (TopicPartitionInfo p : topic.partitions()) {
                sb.append("\n").append(p.partition()).append(" leader ").append(p.leader().id())
                        .append(" replicas ").append(ids(p.replicas())).append(" isr ").append(ids(p.isr()));
            }
            return sb.toString();
        }
    }

    private static String ids(List<Node> nodes) {
        return nodes.stream().map(n -> Integer.toString(n.id())).collect(Collectors.joining(","));
    }
}
