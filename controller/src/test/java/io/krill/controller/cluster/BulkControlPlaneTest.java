package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.IsrChange;
import io.krill.controller.metadata.IsrChangeResult;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicCreation;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.wire.error.Errors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane's bulk paths on a three-broker cluster with 600 partitions: topics created in one
 * batch, ISR changes in one batch, a crashed broker's leaderships moved by the controller's single
 * pass, and a controlled shutdown that hands every leadership to a live ISR member.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BulkControlPlaneTest {
    private static final int TOPICS = 30;
    private static final int PARTITIONS = 20;

    @TempDir
    Path dir;

    @Test
    void manyPartitionsFailOverAndHandOverInBulk() throws Exception {
        try (TestCluster cluster = TestCluster.start(dir, "bulk", 3, c -> c)) {
            List<NewTopic> specs = new ArrayList<>();
            for (int t = 0; t < TOPICS; t++) {
                specs.add(NewTopic.of("bulk-" + t, PARTITIONS, 3));
            }
            specs.add(NewTopic.of("bulk-0", 1, 1)); // a name given twice: the second loses
            List<TopicCreation> created = cluster.store(2).createTopics(specs).get(60, TimeUnit.SECONDS);
            assertEquals(TOPICS + 1, created.size());
            for (int t = 0; t < TOPICS; t++) {
                assertTrue(created.get(t).error().isSuccess(), created.get(t).toString());
                assertEquals(PARTITIONS, created.get(t).topic().partitionCount(), "in the image when it completes");
            }
            assertEquals(Errors.TOPIC_ALREADY_EXISTS, created.get(TOPICS).error().error());
            for (int id : cluster.running()) {
                await().atMost(TestCluster.PATIENCE).until(() -> allPartitions(cluster.store(id).image()).size()
                        == TOPICS * PARTITIONS && allPartitions(cluster.store(id).image()).values().stream()
                        .allMatch(s -> s.hasLeader() && s.isr().size() == 3));
            }

            // ISR changes of many partitions in one call; a stale one is refused, the others applied.
            int leader = cluster.store(1).image().controllerId() == 1 ? 2 : 1;
            ZooKeeperMetadataStore leading = cluster.store(leader);
            List<IsrChange> shrinks = new ArrayList<>();
            leading.image().topics().forEach(topic -> topic.partitions().forEach(s -> {
                if (s.leader() == leader) {
                    List<Integer> isr = new ArrayList<>(s.isr());
                    isr.remove(isr.get(0) == leader ? isr.get(1) : isr.get(0));
                    shrinks.add(new IsrChange(topic.name(), s, s.withIsr(isr)));
                }
            }));
            assertTrue(shrinks.size() > 100, "broker " + leader + " leads " + shrinks.size());
            IsrChange first = shrinks.get(0);
            PartitionState stale = new PartitionState(first.expected().partition(), leader, first.expected().leaderEpoch(),
                    first.expected().replicas(), first.expected().isr(), first.expected().partitionEpoch() + 7);
            List<IsrChange> batch = new ArrayList<>(shrinks.subList(1, shrinks.size()));
            batch.add(new IsrChange(first.topic(), stale, stale.withIsr(first.proposed().isr())));
            List<IsrChangeResult> results = leading.alterPartitions(batch);
            for (int i = 0; i < batch.size() - 1; i++) {
                assertTrue(results.get(i).error().isSuccess(), results.get(i).toString());
                assertEquals(2, results.get(i).state().isr().size());
            }
            assertEquals(Errors.INVALID_UPDATE_VERSION, results.get(batch.size() - 1).error().error());
            for (IsrChangeResult shrunk : results.subList(0, batch.size() - 1)) {
                TopicImage topic = leading.image().topic(shrunk.change().topic());
                assertEquals(shrunk.state(), topic.partition(shrunk.state().partition()), "in the image on return");
            }
            List<IsrChange> grows = new ArrayList<>();
            for (IsrChangeResult shrunk : results.subList(0, batch.size() - 1)) {
                grows.add(new IsrChange(shrunk.change().topic(), shrunk.state(), shrunk.state().withIsr(
                        shrunk.change().expected().isr())));
            }
            assertTrue(leading.alterPartitions(grows).stream().allMatch(r -> r.error().isSuccess()));
            // The other brokers learn the changes from the multis' digests, not by reading each record.
            Map<TopicPartitionKey, PartitionState> grown = allPartitions(leading.image());
            for (int id : cluster.running()) {
                await().atMost(TestCluster.PATIENCE).until(() -> allPartitions(cluster.store(id).image()).equals(grown));
                if (id != leader) {
                    assertTrue(cluster.store(id).recordsFromDigests() >= 2L * (batch.size() - 1),
                            "broker " + id + " took " + cluster.store(id).recordsFromDigests() + " from digests");
                }
            }

            // A crash: the controller moves every leadership of the victim in one pass, from the ISR.
            int controller = cluster.store(leader).image().controllerId();
            int victim = 6 - controller - leader; // the third broker
            Map<TopicPartitionKey, PartitionState> before = allPartitions(cluster.store(controller).image());
            long victimLed = before.values().stream().filter(s -> s.leader() == victim).count();
            assertTrue(victimLed > 100, "broker " + victim + " leads " + victimLed);
            cluster.crash(victim);
            for (int id : cluster.running()) {
                await().atMost(TestCluster.PATIENCE).until(() -> {
                    Map<TopicPartitionKey, PartitionState> now = allPartitions(cluster.store(id).image());
                    return now.values().stream().allMatch(s -> s.hasLeader() && s.leader() != victim
                            && !s.isr().contains(victim));
                });
            }
            Map<TopicPartitionKey, PartitionState> after = allPartitions(cluster.store(controller).image());
            before.forEach((key, old) -> {
                PartitionState now = after.get(key);
                if (old.leader() == victim) {
                    assertEquals(old.leaderEpoch() + 1, now.leaderEpoch(), key + ": one election, one epoch");
                    assertTrue(old.isr().contains(now.leader()), key + ": elected from the ISR");
                } else {
                    assertEquals(old.leader(), now.leader(), key + ": a live leader stays");
                    assertEquals(old.leaderEpoch(), now.leaderEpoch(), key.toString());
                }
            });

            // A controlled shutdown hands every leadership over: nothing is left without a leader.
            long leaderLed = after.values().stream().filter(s -> s.leader() == leader).count();
            assertTrue(leaderLed > 100);
            cluster.stop(leader);
            await().atMost(TestCluster.PATIENCE).until(() -> allPartitions(cluster.store(controller).image()).values()
                    .stream().allMatch(s -> s.leader() == controller && s.isr().equals(List.of(controller))));
            Map<TopicPartitionKey, PartitionState> handedOver = allPartitions(cluster.store(controller).image());
            after.forEach((key, old) -> {
                if (old.leader() == leader) {
                    assertEquals(old.leaderEpoch() + 1, handedOver.get(key).leaderEpoch(),
                            key + ": handed over directly, never leaderless in between");
                }
            });
            assertEquals(0, cluster.store(controller).controllerPass(), "nothing left for the controller to do");
            assertNotEquals(0, leaderLed);
        }
    }

    private static Map<TopicPartitionKey, PartitionState> allPartitions(MetadataImage image) {
        Map<TopicPartitionKey, PartitionState> all = new HashMap<>();
        for (TopicImage topic : image.topics()) {
            for (PartitionState state : topic.partitions()) {
                all.put(new TopicPartitionKey(topic.name(), state.partition()), state);
            }
        }
        return all;
    }
}
