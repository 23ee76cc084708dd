package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.krill.compat.support.FreePorts;

/**
 * KIP-392 fetch from follower with the stock consumer: three brokers in racks r1-r3 with Kafka's
 * RackAwareReplicaSelector; a consumer with {@code client.rack} of a follower's rack is sent there by the
 * leader (preferred_read_replica) and reads every record from the follower, up to its high watermark:
 * the follower serves the consumer's bytes, the leader none.
 */
@Timeout(300)
class FetchFromFollowerTest {
    private static final String TOPIC = "ffr";

    /** krill_topic_bytes_out_total of the topic on one broker (consumer bytes only), 0 if absent. */
    private static double bytesOut(int httpPort) throws Exception {
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("(?m)^krill_topic_bytes_out_total\\{topic=\"" + TOPIC + "\"\\} ([0-9.eE+-]+)$")
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void aConsumerReadsFromTheFollowerInItsRack() throws Exception {
        Map<Integer, Integer> httpPorts = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            httpPorts.put(id, FreePorts.next());
        }
        try (KrillCluster cluster = KrillCluster.start("fetch-from-follower", 3,
                Map.of("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector"),
                (id, port) -> Map.of("broker.rack", "r" + id, "krill.http.port", Integer.toString(httpPorts.get(id))))) {
            cluster.createTopic(TOPIC, 1, 3, Map.of());
            cluster.awaitFullIsr(TOPIC);
            TopicPartitionInfo info = cluster.describe(TOPIC, 0);
            int leader = info.leader().id();
            int follower = info.replicas().stream().map(Node::id).filter(id -> id != leader).findFirst().orElseThrow();
            List<String> values = IntStream.range(0, 200).mapToObj(i -> "ffr-" + i).toList();
            Clients.produce(cluster.bootstrapServers(), TOPIC, 0, values);

            Properties props = Clients.base(cluster.bootstrapServers());
            props.put(ConsumerConfig.CLIENT_RACK_CONFIG, "r" + follower);
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            List<String> read = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        read.add(r.value());
                    }
                    return read.size() >= values.size();
                });
            }
            assertEquals(values, read, "every record once, in order");
            double fromFollower = bytesOut(httpPorts.get(follower));
            double fromLeader = bytesOut(httpPorts.get(leader));
            assertTrue(fromFollower > 0 && fromLeader == 0, "consumer bytes: follower " + follower + " (rack r"
                    + follower + ") served " + fromFollower + ", leader " + leader + " served " + fromLeader);
        }
    }
}
