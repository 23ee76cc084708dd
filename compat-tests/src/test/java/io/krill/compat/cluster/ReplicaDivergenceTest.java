package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.requests.MetadataResponse.PartitionMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader's log diverges from its followers' and the cluster repairs it (KIP-101/279): while both
 * followers are frozen (SIGSTOP, shorter than the lag time, so they stay in the ISR), an acks=1 producer
 * writes records only the leader gets; the leader is SIGKILLed and the followers thawed; one of them
 * leads at a new epoch and takes more records at the same offsets. The restarted old leader must drop its
 * divergent records (truncation by leader epoch) and copy the new leader's: once every replica has the
 * same log end, the segment files of the three brokers are byte-identical, and no consumer ever reads
 * the divergent records.
 */
class ReplicaDivergenceTest {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaDivergenceTest.class);
    private static final int FETCH_WAIT_MAX_MS = 100;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("replica.lag.time.max.ms", "10000")
            .with("replica.fetch.wait.max.ms", Integer.toString(FETCH_WAIT_MAX_MS));

    /**
     * How long the followers stay frozen before the divergent writes: a follower's fetch that was waiting
     * on the leader when it froze is answered (empty) within replica.fetch.wait.max.ms; wait well past it,
     * so no answer carrying the divergent records can sit in a frozen follower's socket buffer. Nothing a
     * client can observe tells that the leader answered those fetches, so this is a deliberate quiet period,
     * checked throughout (Awaitility's during): the followers stay frozen and in the leader's ISR.
     */
    private static final long QUIET_MS = 6L * FETCH_WAIT_MAX_MS;

    @Test
    void theOldLeaderDropsRecordsOnlyItHadAndEndsByteIdentical() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "diverge";
        cluster.createTopic(topic, 1, 3, Map.of());
        List<String> committed = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            committed.add("before-" + i);
        }
        produceAcksAll(cluster, topic, committed);
        cluster.awaitFullIsr(topic);

        TopicPartitionInfo info = cluster.describe(topic, 0);
        int oldLeader = info.leader().id();
        List<Integer> followers = info.replicas().stream().map(Node::id).filter(id -> id != oldLeader).toList();
        PartitionMetadata before = cluster.metadata(followers.get(0), topic, 0);

        List<String> divergent = new ArrayList<>();
        long firstDivergentOffset;
        try (KafkaProducer<String, String> toOldLeader = acksOneProducer(cluster.bootstrapServers(oldLeader))) {
            toOldLeader.partitionsFor(topic);
            followers.forEach(cluster::pause);
            try {
                await("followers frozen and in the ISR for " + QUIET_MS + " ms").during(Duration.ofMillis(QUIET_MS))
                        .atMost(Duration.ofMillis(QUIET_MS).plusSeconds(10)).pollInterval(Duration.ofMillis(100))
                        .until(() -> followers.stream().noneMatch(cluster.liveBrokers()::contains)
                                && cluster.metadata(oldLeader, topic, 0).inSyncReplicaIds.containsAll(followers));
                List<RecordMetadata> acks = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    divergent.add("divergent-" + i);
                    acks.add(toOldLeader.send(new ProducerRecord<>(topic, 0, null, "divergent-" + i))
                            .get(10, TimeUnit.SECONDS));
                }
                firstDivergentOffset = acks.get(0).offset();
                assertEquals(100, firstDivergentOffset, "the divergent records follow the 100 committed ones");
                cluster.kill9(oldLeader);
            } finally {
                followers.forEach(id -> {
                    if (cluster.isRunning(id)) {
                        cluster.resume(id);
                    }
                });
            }
        }

        await("a follower leads at a newer epoch").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .ignoreExceptions().until(() -> {
                    PartitionMetadata now = cluster.metadata(followers.get(0), topic, 0);
                    return followers.contains(now.leaderId.orElse(-1))
                            && now.leaderEpoch.get() > before.leaderEpoch.get();
                });
        List<String> after = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            after.add("after-" + i);
        }
        List<RecordMetadata> afterAcks = produceAcksAll(cluster, topic, after);
        assertEquals(firstDivergentOffset, afterAcks.get(0).offset(),
                "the new leader's log ended where the divergent records began");

        cluster.start(oldLeader);
        cluster.awaitFullIsr(topic);
        LOG.info("old leader {} after restart: {}", oldLeader, cluster.logOfCurrentStart(oldLeader).lines()
                .filter(l -> l.contains("truncat")).toList());
        ReplicaFiles.assertIdentical(cluster, topic + "-0", cluster.brokerIds());

        List<String> read = ReadBack.values(ReadBack.all(cluster, topic, 1));
        List<String> expected = new ArrayList<>(committed);
        expected.addAll(after);
        assertEquals(expected, read, "exactly the acknowledged records, in order, none of " + divergent);
    }

    private static KafkaProducer<String, String> acksOneProducer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.RETRIES_CONFIG, "0");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static List<RecordMetadata> produceAcksAll(KrillCluster cluster, String topic, List<String> values)
            throws Exception {
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (String v : values) {
                futures.add(producer.send(new ProducerRecord<>(topic, 0, null, v)));
            }
            List<RecordMetadata> acks = new ArrayList<>();
            for (var f : futures) {
                acks.add(f.get(60, TimeUnit.SECONDS));
            }
            return acks;
        }
    }
}
