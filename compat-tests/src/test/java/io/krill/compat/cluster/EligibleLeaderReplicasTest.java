package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.cluster.ZooKeeperMetadataStore;
import io.krill.controller.cluster.ZooKeeperStoreConfig;
import io.krill.controller.metadata.FinalizedFeatures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Eligible leader replicas (KIP-966) on three broker processes, RF 3, {@code min.insync.replicas=2}, an
 * idempotent acks=all producer of the stock 4.4 client, {@code eligible.leader.replicas.version=1}. Admin's
 * describeTopics (DescribeTopicPartitions) shows the ELR; when every ISR member is gone, only an ELR member
 * is elected (a live replica outside it is not), and every acknowledged record is read back from it; a
 * broker restarted after kill -9 leaves the ELR and is not elected from it.
 */
class EligibleLeaderReplicasTest {
    private static final Logger LOG = LoggerFactory.getLogger(EligibleLeaderReplicasTest.class);
    private static final Duration BOUND = Duration.ofSeconds(60);

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3);

    /**
     * Sets the feature level through the metadata store itself (a store of this JVM that never joins the
     * cluster), as UpdateFeatures will once Krill serves it; the brokers see it in their images.
     */
    @BeforeAll
    static void enableEligibleLeaderReplicas() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        try (ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(ZooKeeperStoreConfig.of(
                cluster.config().get("zookeeper.connect"), "krill", 900))) {
            store.updateEntityConfigsAsync(FinalizedFeatures.ENTITY, current -> FinalizedFeatures.fromConfigs(current)
                    .toConfigsWith(Map.of(FinalizedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION, (short) 1)))
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** The roles of partition 0 when it was created: its leader, then its followers in replica order. */
    private record Roles(int leader, int follower1, int follower2) {
        static Roles of(TopicPartitionInfo p) {
            List<Integer> followers = new ArrayList<>();
            p.replicas().forEach(n -> {
                if (n.id() != p.leader().id()) {
                    followers.add(n.id());
                }
            });
            return new Roles(p.leader().id(), followers.get(0), followers.get(1));
        }
    }

    private static List<String> produce(KrillCluster cluster, String topic, String prefix, int count)
            throws Exception {
        Properties props = cluster.clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        List<String> acknowledged = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                String value = prefix + "-" + i;
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(60, TimeUnit.SECONDS);
                acknowledged.add(value);
            }
        }
        return acknowledged;
    }

    /** Partition 0 as Admin describes it through {@code broker} only (others may be dead or frozen). */
    private static TopicPartitionInfo describeVia(KrillCluster cluster, int broker, String topic) throws Exception {
        Properties props = cluster.clientProperties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(broker));
        try (Admin admin = Admin.create(props)) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                    .partitions().get(0);
        }
    }

    private static TopicPartitionInfo awaitDescribed(KrillCluster cluster, int broker, String topic, String what,
                                                     java.util.function.Predicate<TopicPartitionInfo> condition) {
        TopicPartitionInfo[] seen = new TopicPartitionInfo[1];
        await(topic + ": " + what).atMost(BOUND).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> {
                    seen[0] = describeVia(cluster, broker, topic);
                    return condition.test(seen[0]);
                });
        return seen[0];
    }

    /**
     * Every value of partition 0, once a read reaches {@code count} records: the leader's high watermark
     * moves once its image shows the ISR back at the minimum, a moment after another broker's does.
     */
    private static List<String> readBack(KrillCluster cluster, String topic, int count) {
        List<List<String>> last = new ArrayList<>(List.of(List.of()));
        await(topic + ": " + count + " records readable").atMost(BOUND).pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    last.set(0, ReadBack.values(ReadBack.all(cluster, topic, 1)));
                    return last.get(0).size() >= count;
                });
        return last.get(0);
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    private static boolean leaderIs(TopicPartitionInfo p, int id) {
        return p.leader() != null && !p.leader().isEmpty() && p.leader().id() == id;
    }

    private static boolean leaderless(TopicPartitionInfo p) {
        return p.leader() == null || p.leader().isEmpty();
    }

    private static List<Integer> inReplicaOrder(TopicPartitionInfo p, int... ids) {
        List<Integer> wanted = new ArrayList<>();
        for (int id : ids) {
            wanted.add(id);
        }
        return ids(p.replicas()).stream().filter(wanted::contains).toList();
    }

    @Test
    void onlyAnEligibleReplicaIsElectedAndItHasEveryAcknowledgedRecord() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "elr-failover";
        cluster.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
        Roles roles = Roles.of(cluster.describe(topic, 0));
        int leader = roles.leader();
        int eligible = roles.follower1();
        int stale = roles.follower2();
        List<String> acknowledged = new ArrayList<>(produce(cluster, topic, "full-isr", 100));

        cluster.kill9(stale);
        TopicPartitionInfo atMinimum = awaitDescribed(cluster, leader, topic, "the ISR without " + stale,
                p -> !ids(p.isr()).contains(stale));
        assertEquals(List.of(), ids(atMinimum.elr()), "an ISR at the minimum keeps no ELR: " + atMinimum);
        acknowledged.addAll(produce(cluster, topic, "two-in-sync", 100)); // these never reach the stale broker

        cluster.pause(eligible); // out of the ISR (its session expires) while the ISR is below the minimum
        TopicPartitionInfo belowMinimum = awaitDescribed(cluster, leader, topic, eligible + " eligible",
                p -> ids(p.elr()).equals(List.of(eligible)));
        assertEquals(List.of(leader), ids(belowMinimum.isr()));

        cluster.kill9(leader);
        cluster.start(stale); // live, but it lacks the records acknowledged after its death
        TopicPartitionInfo nobodyInSync = awaitDescribed(cluster, stale, topic, "the ISR emptied into the ELR",
                p -> p.isr().isEmpty() && ids(p.elr()).size() == 2);
        LOG.info("every ISR member gone: {}", nobodyInSync);
        assertTrue(leaderless(nobodyInSync), "a live replica outside the ELR is not elected: " + nobodyInSync);
        assertEquals(inReplicaOrder(nobodyInSync, leader, eligible), ids(nobodyInSync.elr()));
        assertEquals(List.of(), ids(nobodyInSync.lastKnownElr()));

        cluster.resume(eligible);
        TopicPartitionInfo elected = awaitDescribed(cluster, stale, topic, eligible + " elected from the ELR",
                p -> leaderIs(p, eligible));
        LOG.info("the eligible replica leads: {}", elected);
        if (ids(elected.isr()).equals(List.of(eligible))) {
            assertEquals(List.of(leader), ids(elected.elr()), "the old leader is still eligible");
        } else { // the stale replica has caught up with the new leader already: the ISR is at the minimum
            assertEquals(java.util.Set.of(eligible, stale), java.util.Set.copyOf(ids(elected.isr())),
                    elected.toString());
            assertEquals(List.of(), ids(elected.elr()));
        }

        awaitDescribed(cluster, stale, topic, stale + " caught up and back in the ISR",
                p -> ids(p.isr()).contains(stale) && p.elr().isEmpty());
        assertEquals(acknowledged, readBack(cluster, topic, acknowledged.size()),
                "every acknowledged record, once, in order");
    }

    @Test
    void aBrokerRestartedAfterKill9LeavesTheElrAndIsNotElectedFromIt() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        String topic = "elr-unclean-restart";
        cluster.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
        Roles roles = Roles.of(cluster.describe(topic, 0));
        int leader = roles.leader();
        List<String> acknowledged = produce(cluster, topic, "acked", 50);

        cluster.kill9(roles.follower2());
        awaitDescribed(cluster, leader, topic, "the ISR without " + roles.follower2(),
                p -> !ids(p.isr()).contains(roles.follower2()));
        cluster.kill9(roles.follower1());
        awaitDescribed(cluster, leader, topic, roles.follower1() + " eligible",
                p -> ids(p.elr()).equals(List.of(roles.follower1())));
        cluster.kill9(leader);

        cluster.start(roles.follower1()); // no clean-shutdown marker: it may have lost unflushed records
        TopicPartitionInfo afterRestart = awaitDescribed(cluster, roles.follower1(), topic,
                "the ELR without the restarted " + roles.follower1(), p -> ids(p.elr()).equals(List.of(leader)));
        LOG.info("after an unclean restart of {}: {}", roles.follower1(), afterRestart);
        assertTrue(leaderless(afterRestart), "the only live replica is no longer eligible: " + afterRestart);
        assertEquals(List.of(), ids(afterRestart.isr()));

        cluster.start(leader); // restarted uncleanly too: out of the ELR, but the last known leader
        awaitDescribed(cluster, roles.follower1(), topic, "the last known leader " + leader + " elected",
                p -> leaderIs(p, leader) && p.lastKnownElr().isEmpty());
        awaitDescribed(cluster, leader, topic, roles.follower1() + " back in the ISR",
                p -> ids(p.isr()).contains(roles.follower1()));
        assertEquals(acknowledged, readBack(cluster, topic, acknowledged.size()));
    }
}
