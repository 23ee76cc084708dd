package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import io.krill.wire.error.Errors;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Brokers learn a new topic's partitions from its topic node (MetadataRecords.INITIAL_STATES) and still
 * see every later change of a partition, however soon after the creation it comes.
 */
@Timeout(90)
class NewTopicImageTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String CHROOT = "/krill/newtopic";
    private static final String CLUSTER = "newtopic";

    @TempDir
    Path dir;

    private static BrokerInfo broker(int id) {
        return new BrokerInfo(id, null, Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "localhost", 9090 + id)));
    }

    private static ZooKeeperMetadataStore store(EmbeddedZooKeeper zk, int nodeId) {
        ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(
                ZooKeeperStoreConfig.of(zk.connectString() + CHROOT, CLUSTER, nodeId).withSessionTimeoutMs(10_000));
        store.registerBroker(broker(nodeId));
        return store;
    }

    @Test
    void aPartitionChangedRightAfterItsTopicWasCreatedReachesEveryImage() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore one = store(zk, 1);
             ZooKeeperMetadataStore two = store(zk, 2);
             ZkSession probe = new ZkSession(zk.connectString() + CHROOT, 10_000, 10_000, new QuietZkListener())) {
            await().atMost(PATIENCE).until(() -> !one.isFenced() && !two.isFenced()
                    && one.image().brokers().size() == 2 && two.image().brokers().size() == 2);
            ZkPaths paths = new ZkPaths(CLUSTER);
            // a writer as any broker's: its multis carry digests, which is how the others learn of records
            PartitionRecords writer = new PartitionRecords(probe, paths, 9);
            writer.ensureDigestNodes();
            for (int round = 0; round < 10; round++) {
                String name = "fresh-" + round;
                TopicImage created = one.createTopic(NewTopic.of(name, 4, 2));
                // What a controller or leader would write next, racing the other broker's first read.
                PartitionState initial = created.partition(1);
                PartitionState changed = new PartitionState(1, initial.isr().get(1), 1, initial.replicas(),
                        List.of(initial.isr().get(1)), 1);
                UUID id = created.id();
                assertTrue(writer.compareAndSet(name, new PartitionRecords.Versioned(initial, id, 0), changed));
                for (ZooKeeperMetadataStore store : List.of(one, two)) {
                    await().atMost(PATIENCE).until(() -> {
                        TopicImage seen = store.image().topic(name);
                        return seen != null && seen.id().equals(id) && changed.equals(seen.partition(1));
                    });
                    TopicImage seen = store.image().topic(name);
                    for (int p : new int[] {0, 2, 3}) {
                        Stat stat = new Stat();
                        PartitionState inZooKeeper = MetadataRecords.decodePartition(p,
                                probe.readOrNull(paths.partition(name, p), stat));
                        assertEquals(inZooKeeper, seen.partition(p), "partition " + p + " as created");
                    }
                }
            }
        }
    }

    @Test
    void aTopicDeletedAndCreatedAgainIsFollowedByEveryBroker() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore one = store(zk, 1);
             ZooKeeperMetadataStore two = store(zk, 2)) {
            await().atMost(PATIENCE).until(() -> !one.isFenced() && !two.isFenced()
                    && one.image().brokers().size() == 2 && two.image().brokers().size() == 2);
            Map<Integer, ZooKeeperMetadataStore> byId = Map.of(1, one, 2, two);
            for (int round = 0; round < 3; round++) {
                // each incarnation: its topic node watched anew (the last one's watch went with its deletion)
                TopicImage created = one.createTopic(NewTopic.of("again", 3, 2));
                for (ZooKeeperMetadataStore store : List.of(one, two)) {
                    await().atMost(PATIENCE).until(() -> store.image().topic("again") != null
                            && store.image().topic("again").id().equals(created.id()));
                }
                // and a change of one of its partitions reaches both, through the writer's digest
                PartitionState before = created.partition(0);
                PartitionState shrunk = byId.get(before.leader()).alterPartition("again", before,
                        before.withIsr(List.of(before.leader())));
                for (ZooKeeperMetadataStore store : List.of(one, two)) {
                    await().atMost(PATIENCE).until(() -> shrunk.equals(store.image().topic("again").partition(0)));
                }
                two.deleteTopic("again");
                for (ZooKeeperMetadataStore store : List.of(one, two)) {
                    await().atMost(PATIENCE).until(() -> store.image().topic("again") == null);
                }
            }
        }
    }

    @Test
    void aTopicAnotherBrokerJustCreatedFailsAloneInItsRequest() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore one = store(zk, 1);
             ZooKeeperMetadataStore two = store(zk, 2)) {
            await().atMost(PATIENCE).until(() -> !one.isFenced() && !two.isFenced()
                    && one.image().brokers().size() == 2 && two.image().brokers().size() == 2);
            for (int round = 0; round < 5; round++) {
                String taken = "taken-" + round;
                // broker 2 may not know of the creation yet: then its grouped multi fails on the existing
                // node and each topic is sent again alone
                var first = one.createTopics(List.of(NewTopic.of(taken, 3, 2)));
                var outcomes = two.createTopics(List.of(NewTopic.of("before-" + round, 2, 2),
                        NewTopic.of(taken, 3, 2), NewTopic.of("after-" + round, 2, 2))).get(30, TimeUnit.SECONDS);
                var alone = first.get(30, TimeUnit.SECONDS).get(0);
                assertTrue(outcomes.get(0).error().isSuccess(), outcomes.get(0).toString());
                assertTrue(outcomes.get(2).error().isSuccess(), outcomes.get(2).toString());
                // whichever broker's multi came first created it; the other was told it exists
                assertTrue(alone.error().isSuccess() != outcomes.get(1).error().isSuccess(), alone + " / " + outcomes.get(1));
                assertEquals(Errors.TOPIC_ALREADY_EXISTS, (alone.error().isSuccess() ? outcomes.get(1) : alone).error().error());
                assertEquals(2, two.image().topic("after-" + round).partitionCount());
            }
        }
    }
}
