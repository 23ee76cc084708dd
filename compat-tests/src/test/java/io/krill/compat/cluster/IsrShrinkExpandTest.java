package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.MetadataResponse.PartitionMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ISR follows the followers: a frozen follower (SIGSTOP; its ZooKeeper session outlives the test, so
 * it is still a live broker) leaves the ISR after replica.lag.time.max.ms and acks=all writes go on with
 * min.insync.replicas=2; with the second follower frozen too the ISR is the leader alone and acks=all is
 * refused with NOT_ENOUGH_REPLICAS; thawed, both catch up and return to the ISR.
 */
class IsrShrinkExpandTest {
    private static final Logger LOG = LoggerFactory.getLogger(IsrShrinkExpandTest.class);
    private static final int LAG_MS = 2_000;
    private static final int SESSION_TIMEOUT_MS = 15_000;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("replica.lag.time.max.ms", Integer.toString(LAG_MS))
            .with("zookeeper.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));

    @Test
    void frozenFollowersLeaveTheIsrAndComeBack() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "isr";
        cluster.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
        TopicPartitionInfo info = cluster.describe(topic, 0);
        int leader = info.leader().id();
        List<Integer> followers = info.replicas().stream().map(Node::id).filter(id -> id != leader).toList();
        String leaderAddress = cluster.bootstrapServers(leader);
        List<String> written = new ArrayList<>();

        try (KafkaProducer<String, String> producer = producer(leaderAddress)) {
            written.add(send(producer, topic, "all-three"));

            cluster.pause(followers.get(0));
            long shrink1 = awaitIsr(cluster, leader, topic, Set.of(leader, followers.get(1)));
            written.add(send(producer, topic, "two-in-sync"));

            cluster.pause(followers.get(1));
            long shrink2 = awaitIsr(cluster, leader, topic, Set.of(leader));
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> send(producer, topic, "leader-alone"), "acks=all with the leader alone in the ISR");
            assertInstanceOf(NotEnoughReplicasException.class, refused.getCause(), refused.toString());

            followers.forEach(cluster::resume);
            long expand = awaitIsr(cluster, leader, topic, Set.of(leader, followers.get(0), followers.get(1)));
            written.add(send(producer, topic, "all-three-again"));
            LOG.info("ISR shrank {} ms after the first follower froze, {} ms after the second; full again {} ms after "
                    + "both thawed (replica.lag.time.max.ms={})", shrink1, shrink2, expand, LAG_MS);
            for (long shrink : List.of(shrink1, shrink2)) {
                assertTrue(shrink >= LAG_MS - 1_000 && shrink < SESSION_TIMEOUT_MS,
                        "shrunk by lag (" + shrink + " ms), not at once nor by session expiry");
            }
        }
        assertEquals(written, ReadBack.values(ReadBack.all(cluster, topic, 1)), "every acknowledged record, once");
    }

    /**
     * Polls the leader's Metadata until the ISR is {@code expected}; checks that every broker is still
     * registered (the frozen ones are out of the ISR for lagging, not for being dead). Returns the time it took.
     */
    private static long awaitIsr(KrillCluster cluster, int leader, String topic, Set<Integer> expected) {
        long started = System.nanoTime();
        String address = cluster.bootstrapServers(leader);
        await(topic + " ISR " + expected).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .ignoreExceptions().until(() -> {
                    PartitionMetadata p = RawRequests.partition(address, topic, 0);
                    return Set.copyOf(p.inSyncReplicaIds).equals(expected) && p.leaderId.orElse(-1) == leader;
                });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        MetadataResponse metadata = RawRequests.metadata(address, List.of());
        assertEquals(cluster.brokerIds(), Set.copyOf(metadata.brokersById().keySet()),
                "every broker still live in the cluster");
        return millis;
    }

    /** acks=all without retries, so a refusal surfaces as its own exception at once. */
    private static KafkaProducer<String, String> producer(String leaderAddress) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, leaderAddress);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.RETRIES_CONFIG, "0");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static String send(KafkaProducer<String, String> producer, String topic, String value) throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, null, value)).get(15, TimeUnit.SECONDS);
        return value;
    }
}
