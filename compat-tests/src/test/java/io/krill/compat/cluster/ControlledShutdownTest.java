package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.requests.MetadataResponse.PartitionMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGTERM on a leader is a controlled shutdown: it hands its leaderships over before it exits (so well
 * before its ZooKeeper session, long here, could expire), an acks=all idempotent producer writing
 * meanwhile sees only retriable errors and no failed send, and every acknowledged record is readable
 * afterwards, once, at its offset.
 */
class ControlledShutdownTest {
    private static final Logger LOG = LoggerFactory.getLogger(ControlledShutdownTest.class);
    private static final int SESSION_TIMEOUT_MS = 10_000;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("zookeeper.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));

    @Test
    void aStoppedLeaderHandsOverWithoutAFailedSend() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "graceful";
        int partitions = 3;
        cluster.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");

        ProducedRecords records;
        try (ContinuousProducer producer = new ContinuousProducer(props, topic, partitions, "graceful", 300)) {
            producer.awaitAcknowledged(300);
            int leader = cluster.leaderOf(topic, 0);
            List<Integer> led = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                if (cluster.metadataExcept(leader, topic, p).leaderId.orElse(-1) == leader) {
                    led.add(p);
                }
            }
            long signalled = System.nanoTime();
            cluster.stop(leader);
            long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
            await("partitions " + led + " led by others soon after broker " + leader + " stopped")
                    .atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                    .untilAsserted(() -> {
                        for (int p : led) {
                            PartitionMetadata m = cluster.metadataExcept(leader, topic, p);
                            int now = m.leaderId.orElse(-1);
                            assertTrue(now >= 0 && now != leader, "partition " + p + ": " + m);
                        }
                    });
            long handedOverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
            LOG.info("broker {} stopped {} ms after SIGTERM; partitions {} led by others {} ms after it (session "
                    + "timeout {} ms)", leader, stopMillis, led, handedOverMillis, SESSION_TIMEOUT_MS);
            assertTrue(cluster.logOfCurrentStart(leader).contains("Krill broker " + leader + " stopped"),
                    "the broker went through its shutdown");
            producer.awaitAcknowledged(300);
            cluster.start(leader);
            cluster.awaitFullIsr(topic);
            producer.awaitAcknowledged(300);
            records = producer.stop();
        }
        assertEquals(List.of(), records.failures(), "no send failed");
        assertEquals(List.of(), records.acknowledgementOrderViolations(), "offsets grow in acknowledgement order");
        ProducedRecords.Discrepancies found = records.compareWith(ReadBack.all(cluster, topic, partitions));
        LOG.info("controlled shutdown read back: {}", found);
        assertTrue(found.none(), found.toString());
    }
}
