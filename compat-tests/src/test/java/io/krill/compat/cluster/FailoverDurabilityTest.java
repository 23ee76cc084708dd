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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.requests.MetadataResponse.PartitionMetadata;
import org.apache.kafka.tools.LeaderElectionCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durability dial under leader crashes (SIGKILL, no controlled shutdown) while a stock producer
 * writes continuously. With acks=all, idempotence and min.insync.replicas=2 every acknowledged record
 * survives, once, where it was acknowledged; each crashed leader is replaced within the ZooKeeper session
 * timeout by a member of its ISR with a higher leader epoch, and kafka-leader-election.sh moves leadership
 * back to the preferred replicas once the restarted broker has caught up. With acks=1 the records the dead
 * leader had not yet replicated are lost: counted and printed, not failed.
 */
class FailoverDurabilityTest {
    private static final Logger LOG = LoggerFactory.getLogger(FailoverDurabilityTest.class);
    private static final int SESSION_TIMEOUT_MS = 3_000;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("zookeeper.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));

    /** Session expiry, then the controller's pipeline and the promoted replica's write: seconds, not tens. */
    private static final Duration FAILOVER_BOUND = Duration.ofMillis(SESSION_TIMEOUT_MS + 7_000);

    /**
     * How a leader is crashed: on its own, or just after its followers froze (SIGSTOP, well within the
     * session and lag timeouts, so they stay live and in the ISR) while the producer kept sending, so the
     * leader holds records they lack. The second is where acks=all and acks=1 part: acks=all acknowledges
     * none of those records, acks=1 acknowledges them all, and the next leader never had them.
     */
    private enum Crash { ALONE, FOLLOWERS_BEHIND }

    /** One leader crash: how, which broker, which partitions it led, and how long until all had new leaders. */
    private record Failover(Crash crash, int victim, List<Integer> partitions, long millis) {
    }

    @Test
    void acksAllIdempotentLosesNothingWhileLeadersCrash() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "durable";
        int partitions = 3;
        cluster.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");

        List<Failover> failovers = new ArrayList<>();
        ProducedRecords records;
        try (ContinuousProducer producer = new ContinuousProducer(props, topic, partitions, "acked", 300)) {
            producer.awaitAcknowledged(200);
            List<Crash> crashes = List.of(Crash.ALONE, Crash.FOLLOWERS_BEHIND, Crash.ALONE);
            for (int round = 0; round < crashes.size(); round++) {
                failovers.add(crashLeaderAndRestart(cluster, topic, partitions, round % partitions, producer,
                        crashes.get(round), 200));
            }
            electPreferredLeaders(cluster, topic);
            producer.awaitAcknowledged(200);
            records = producer.stop();
        }
        LOG.info("acks=all failovers (kill -9 to every partition of the victim led again): {}", failovers);

        assertEquals(List.of(), records.failures(), "no send failed (retriable errors are retried)");
        assertEquals(List.of(), records.acknowledgementOrderViolations(), "offsets grow in acknowledgement order");
        Map<Integer, List<ConsumerRecord<String, String>>> read = ReadBack.all(cluster, topic, partitions);
        ProducedRecords.Discrepancies found = records.compareWith(read);
        LOG.info("acks=all read back: {}", found);
        assertTrue(found.none(), found.toString());
        assertTrue(found.acknowledged() > 1_000, "enough load to mean something: " + found);
    }

    @Test
    void acksOneLosesWhatTheCrashedLeaderHadNotReplicated() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "lossy";
        int partitions = 3;
        cluster.createTopic(topic, partitions, 3, Map.of());
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");

        List<Failover> failovers = new ArrayList<>();
        ProducedRecords records;
        try (ContinuousProducer producer = new ContinuousProducer(props, topic, partitions, "one", 1_000)) {
            // Steady state first: a leader killed while its followers' fetchers are still starting loses
            // everything it took (they fetch a new partition only after their current long poll), which
            // measures the start-up, not the dial.
            producer.awaitAcknowledged(2_000);
            List<Crash> crashes = List.of(Crash.ALONE, Crash.FOLLOWERS_BEHIND);
            for (int round = 0; round < crashes.size(); round++) {
                failovers.add(crashLeaderAndRestart(cluster, topic, partitions, round % partitions, producer,
                        crashes.get(round), 600));
            }
            producer.awaitAcknowledged(500);
            records = producer.stop();
        }
        Map<Integer, List<ConsumerRecord<String, String>>> read = ReadBack.all(cluster, topic, partitions);
        ProducedRecords.Discrepancies found = records.compareWith(read);
        LOG.info("acks=1 failovers: {}", failovers);
        LOG.info("acks=1 after {} leader crashes: {} of {} acknowledged records lost, {} at another offset, {} read "
                        + "twice, {} sends failed", failovers.size(), found.missing().size(), found.acknowledged(),
                found.misplaced().size(), found.duplicated().size(), records.failures().size());
        System.out.printf("DURABILITY acks=1: %d of %d acknowledged records lost after %d leader crashes (%s)%n",
                found.missing().size(), found.acknowledged(), failovers.size(), found.missingByPartition());
        assertEquals(List.of(), found.neverSent(), "whatever is lost, nothing appears that was never sent");
    }

    /**
     * SIGKILLs the leader of {@code partition} (after freezing the other brokers while the producer sends
     * {@code sentMeanwhile} more records, for {@link Crash#FOLLOWERS_BEHIND}), waits until every partition
     * it led has a new leader (from its ISR, with a higher epoch) and the producer got further, restarts it
     * and waits until it is back in every ISR.
     */
    private static Failover crashLeaderAndRestart(KrillCluster cluster, String topic, int partitions, int partition,
                                                  ContinuousProducer producer, Crash crash, int sentMeanwhile) {
        int victim = cluster.leaderOf(topic, partition);
        assertTrue(victim > 0, "partition " + partition + " has a leader");
        Map<Integer, PartitionMetadata> led = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            PartitionMetadata m = cluster.metadataExcept(victim, topic, p);
            if (m.leaderId.orElse(-1) == victim) {
                led.put(p, m);
            }
        }
        assertTrue(led.containsKey(partition), "the broker Admin named leads " + partition + " in Metadata: " + led);
        List<Integer> frozen = crash == Crash.FOLLOWERS_BEHIND
                ? cluster.liveBrokers().stream().filter(id -> id != victim).toList() : List.of();
        long killed;
        try {
            frozen.forEach(cluster::pause);
            producer.awaitSent(sentMeanwhile);
            killed = System.nanoTime();
            cluster.kill9(victim);
        } finally {
            frozen.forEach(cluster::resume);
        }
        Map<Integer, PartitionMetadata> after = new HashMap<>();
        await("new leaders for " + led.keySet() + " after broker " + victim + " died").atMost(FAILOVER_BOUND)
                .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> {
                    for (int p : led.keySet()) {
                        PartitionMetadata now = cluster.metadataExcept(victim, topic, p);
                        int leader = now.leaderId.orElse(-1);
                        if (leader < 0 || leader == victim) {
                            return false;
                        }
                        after.put(p, now);
                    }
                    return true;
                });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        for (Map.Entry<Integer, PartitionMetadata> e : after.entrySet()) {
            PartitionMetadata before = led.get(e.getKey());
            PartitionMetadata now = e.getValue();
            assertTrue(before.inSyncReplicaIds.contains(now.leaderId.get()), "partition " + e.getKey()
                    + ": new leader " + now.leaderId.get() + " was in the ISR " + before.inSyncReplicaIds);
            assertTrue(now.leaderEpoch.get() > before.leaderEpoch.get(), "partition " + e.getKey()
                    + ": leader epoch grew from " + before.leaderEpoch.get() + " to " + now.leaderEpoch.get());
        }
        LOG.info("{}: broker {} killed: partitions {} led again after {} ms: {}", crash, victim, led.keySet(), millis,
                after);
        producer.awaitAcknowledged(100);
        cluster.start(victim);
        cluster.awaitFullIsr(topic);
        return new Failover(crash, victim, List.copyOf(led.keySet()), millis);
    }

    /** kafka-leader-election.sh --election-type preferred --all-topic-partitions, then checks the leaders. */
    private static void electPreferredLeaders(KrillCluster cluster, String topic) {
        List<TopicPartitionInfo> before = cluster.describe(topic).partitions();
        assertTrue(before.stream().anyMatch(p -> p.leader().id() != p.replicas().get(0).id()),
                "after the crashes some partition is led by another than its preferred replica: " + before);
        ToolRunner.Result result = ToolRunner.run("kafka-leader-election", LeaderElectionCommand::main,
                Duration.ofSeconds(60), "--bootstrap-server", cluster.bootstrapServers(), "--election-type", "preferred",
                "--all-topic-partitions").assertSuccess();
        assertTrue(result.out().contains("Successfully completed leader election (PREFERRED) for partitions"),
                result.describe());
        await("preferred replicas lead " + topic).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    for (TopicPartitionInfo p : cluster.describe(topic).partitions()) {
                        assertEquals(p.replicas().get(0).id(), p.leader().id(), "leader of " + p);
                    }
                });
    }
}
