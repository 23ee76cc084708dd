package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.compat.cluster.KrillCluster;
import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Any broker's console shows the whole cluster: on three brokers, each one's topics, topic and groups
 * answers agree, including partitions led elsewhere (their offsets and sizes asked of their leaders and
 * replicas) and a group coordinated elsewhere with its lag; a broker that stops answering (SIGSTOP) makes
 * the answers partial (named in unavailableBrokers) after the console's timeout, not hung.
 */
@Timeout(300)
class ConsoleApiClusterTest {
    private static final String TOPIC = "console-cluster";
    private static final int PARTITIONS = 6;
    private static final int PER_PARTITION = 20;

    @Test
    void everyBrokerShowsTheWholeCluster() throws Exception {
        Map<Integer, Integer> httpPorts = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            httpPorts.put(id, FreePorts.next());
        }
        // a long ZooKeeper session: a paused broker stays in the metadata, so only its silence is seen
        try (KrillCluster cluster = KrillCluster.start("console-api", 3, Map.of("zookeeper.session.timeout.ms", "30000"),
                (id, port) -> Map.of("krill.http.port", Integer.toString(httpPorts.get(id))))) {
            cluster.createTopic(TOPIC, PARTITIONS, 2, Map.of());
            cluster.awaitFullIsr(TOPIC);
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                Clients.produce(cluster.bootstrapServers(), TOPIC, p,
                        IntStream.range(0, PER_PARTITION).mapToObj(i -> "v" + partition + "-" + i).toList());
            }
            Properties props = Clients.base(cluster.bootstrapServers());
            props.put("group.id", "console-cluster-group");
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(5));
                }
                consumer.commitSync(offsets);
            }
            cluster.awaitFullIsr(TOPIC);

            Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                Set<String> topicAnswers = new HashSet<>();
                Set<String> groupAnswers = new HashSet<>();
                for (int id = 1; id <= 3; id++) {
                    ConsoleHttp http = new ConsoleHttp(httpPorts.get(id));
                    JsonNode topicsAnswer = http.json("/console/api/topics");
                    assertTrue(topicsAnswer.path("unavailableBrokers").isMissingNode(), topicsAnswer.toString());
                    JsonNode topic = ConsoleHttp.find(topicsAnswer.path("topics"), "name", TOPIC);
                    assertNotNull(topic);
                    assertEquals(PARTITIONS * PER_PARTITION, topic.path("records").asLong(), "broker " + id);
                    topicAnswers.add(topic.toString());

                    JsonNode detail = http.json("/console/api/topics/" + TOPIC);
                    boolean ledElsewhere = false;
                    for (JsonNode p : detail.path("partitions")) {
                        assertEquals(PER_PARTITION, p.path("endOffset").asLong(), p.toString());
                        assertTrue(p.path("sizeBytes").asLong() > 0, p.toString());
                        ledElsewhere |= p.path("leader").asInt() != id;
                    }
                    assertTrue(ledElsewhere);

                    JsonNode group = ConsoleHttp.find(http.json("/console/api/groups").path("groups"), "groupId",
                            "console-cluster-group");
                    assertNotNull(group, "broker " + id);
                    assertEquals(PARTITIONS * (PER_PARTITION - 5), group.path("lag").asLong());
                    groupAnswers.add(group.toString());

                    JsonNode cl = http.json("/console/api/cluster");
                    assertEquals(3, cl.path("brokers").size());
                    assertEquals(id, cl.path("self").asInt());
                }
                assertEquals(1, topicAnswers.size(), topicAnswers.toString());
                assertEquals(1, groupAnswers.size(), groupAnswers.toString());
                assertFalse(topicAnswers.iterator().next().isEmpty());
            });

            // A broker that does not answer (SIGSTOP) makes the others' answers partial, not late forever,
            // and /metrics is served meanwhile.
            int silent = 3;
            int asked = 1;
            cluster.pause(silent);
            try {
                ConsoleHttp http = new ConsoleHttp(httpPorts.get(asked));
                // the first answers may come from the console's 1.5 s cache of what every broker said
                Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    CompletableFuture<JsonNode> topics = CompletableFuture.supplyAsync(() -> {
                        try {
                            return http.json("/console/api/topics");
                        } catch (Exception e) {
                            throw new CompletionException(e);
                        }
                    });
                    assertEquals(200, http.get("/metrics").status());
                    JsonNode partial = topics.get(20, TimeUnit.SECONDS);
                    assertEquals(List.of(silent), ids(partial.path("unavailableBrokers")), partial.toString());
                });
                JsonNode groups = http.json("/console/api/groups");
                assertTrue(ids(groups.path("unavailableBrokers")).contains(silent), groups.toString());
            } finally {
                cluster.resume(silent);
            }
        }
    }

    private static List<Integer> ids(JsonNode array) {
        List<Integer> ids = new java.util.ArrayList<>();
        array.forEach(n -> ids.add(n.asInt()));
        return ids;
    }
}
