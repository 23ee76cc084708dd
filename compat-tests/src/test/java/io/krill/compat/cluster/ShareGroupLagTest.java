package io.krill.compat.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.support.Clients;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A share group's lag (DescribeShareGroupOffsets v1, KIP-1226) counts the high watermark of each partition's
 * leader, wherever that leader is: three brokers, a topic of replication factor 1 whose partitions are spread
 * over them (so the group coordinator holds no replica of most of them), a KafkaShareConsumer that accepted
 * the first records of every partition, more records produced afterwards; Admin listShareGroupOffsets then
 * shows for every partition the exact lag, the records produced less those accepted.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShareGroupLagTest {
    private static final String TOPIC = "share-lag";
    private static final String GROUP = "share-lag-group";
    private static final int PARTITIONS = 6;
    private static final int FIRST = 5;

    @RegisterExtension
    static final KrillClusterExtension CLUSTER = new KrillClusterExtension(3)
            .with("offsets.topic.num.partitions", "3")
            .with("share.coordinator.state.topic.num.partitions", "3")
            .with("share.coordinator.state.topic.replication.factor", "3");

    @Test
    void everyPartitionsLagCountsItsLeadersHighWatermark() throws Exception {
        KrillCluster cluster = CLUSTER.cluster();
        cluster.createTopic(TOPIC, PARTITIONS, 1, Map.of());
        cluster.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, GROUP),
                List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        Map<Integer, Integer> leaders = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            leaders.put(p, cluster.leaderOf(TOPIC, p));
            Clients.produce(cluster.bootstrapServers(), TOPIC, p,
                    IntStream.range(0, FIRST).mapToObj(i -> "first-" + i).toList());
        }

        // One consumer accepts the first records of every partition, and leaves.
        Properties props = cluster.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put("share.acknowledgement.mode", "explicit");
        Map<Integer, Set<Long>> accepted = new TreeMap<>();
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            await("the first records accepted").atMost(Duration.ofSeconds(30)).until(() -> {
                Map<Integer, Set<Long>> batch = new HashMap<>();
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                    batch.computeIfAbsent(r.partition(), x -> new TreeSet<>()).add(r.offset());
                }
                if (!batch.isEmpty()) {
                    Map<TopicIdPartition, Optional<KafkaException>> results = consumer.commitSync(Duration.ofSeconds(10));
                    results.forEach((tip, error) -> {
                        if (error.isEmpty() && batch.containsKey(tip.partition())) {
                            accepted.computeIfAbsent(tip.partition(), x -> new TreeSet<>()).addAll(batch.get(tip.partition()));
                        }
                    });
                }
                return accepted.values().stream().mapToInt(Set::size).sum() == PARTITIONS * FIRST;
            });
        }

        // Then a different number of records per partition, which nobody consumes.
        Map<Integer, Long> expectedLag = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            int more = 1 + 2 * p;
            Clients.produce(cluster.bootstrapServers(), TOPIC, p,
                    IntStream.range(0, more).mapToObj(i -> "more-" + i).toList());
            expectedLag.put(p, (long) (FIRST + more - accepted.get(p).size()));
        }

        int coordinator = cluster.admin().describeShareGroups(List.of(GROUP)).describedGroups().get(GROUP)
                .get(10, TimeUnit.SECONDS).coordinator().id();
        assertTrue(leaders.values().stream().anyMatch(leader -> leader != coordinator),
                "some partition led elsewhere than the group coordinator " + coordinator + ": " + leaders);

        Map<Integer, Optional<Long>> expected = new TreeMap<>();
        expectedLag.forEach((p, lag) -> expected.put(p, Optional.of(lag)));
        Map<Integer, Optional<Long>> lags = new TreeMap<>();
        try {
            await("the lags").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
                lags.clear();
                lags.putAll(lags(cluster));
                return lags.equals(expected);
            });
        } catch (ConditionTimeoutException e) {
            // answered below with what the last answer was
        }
        assertEquals(expected, lags, "lag by partition (leaders " + leaders + ", group coordinator " + coordinator
                + "; an absent lag is one the coordinator could not tell)");
    }

    /** Admin listShareGroupOffsets: the lag of each share-partition of the topic. */
    private static Map<Integer, Optional<Long>> lags(KrillCluster cluster) throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> info = cluster.admin()
                .listShareGroupOffsets(Map.of(GROUP, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(GROUP).get(10, TimeUnit.SECONDS);
        Map<Integer, Optional<Long>> result = new TreeMap<>();
        info.forEach((tp, i) -> {
            if (tp.topic().equals(TOPIC)) {
                result.put(tp.partition(), i == null ? null : i.lag());
            }
        });
        return result;
    }
}
