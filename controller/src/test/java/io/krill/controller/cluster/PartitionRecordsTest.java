package io.krill.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicPartitionKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bulk compare-and-set of partition records with the first round taken from an image: a current guess
 * is written without a read, a stale one loses its version check and is decided again on the fresh
 * record, a guess of a partition that is gone writes nothing.
 */
@Timeout(60)
class PartitionRecordsTest {
    private static final String TOPIC = "records";
    private static final UUID TOPIC_ID = UUID.randomUUID();
    private static final int PARTITIONS = 1200; // more than two multi-ops

    @TempDir
    Path dir;

    private EmbeddedZooKeeper zk;
    private ZkSession session;
    private ZkPaths paths;
    private PartitionRecords records;

    @BeforeEach
    void start() throws Exception {
        zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
        session = new ZkSession(zk.connectString(), 10_000, 5_000, new QuietZkListener());
        session.awaitConnected(5_000);
        paths = new ZkPaths("records-test");
        String topicPath = paths.topic(TOPIC);
        for (int slash = topicPath.indexOf('/', 1); ; slash = topicPath.indexOf('/', slash + 1)) {
            create(slash < 0 ? topicPath : topicPath.substring(0, slash), new byte[0]); // every ancestor, then it
            if (slash < 0) {
                break;
            }
        }
        for (int p = 0; p < PARTITIONS; p++) {
            create(paths.partition(TOPIC, p), MetadataRecords.encodePartition(TOPIC, TOPIC_ID, initial(p)));
        }
        records = new PartitionRecords(session, paths, 1);
        records.ensureDigestNodes();
    }

    @AfterEach
    void stop() {
        session.close();
        zk.close();
    }

    private void create(String path, byte[] data) throws Exception {
        session.call(z -> z.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    }

    private static PartitionState initial(int partition) {
        return new PartitionState(partition, 1, 0, List.of(1, 2, 3), List.of(1, 2, 3), 0);
    }

    private PartitionState stored(int partition) {
        return records.read(TOPIC, partition).state();
    }

    private static List<TopicPartitionKey> all() {
        List<TopicPartitionKey> keys = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            keys.add(new TopicPartitionKey(TOPIC, p));
        }
        return keys;
    }

    /** Broker 3 leaves every ISR. */
    private static PartitionState withoutBroker3(String topic, PartitionState state) {
        return state.isr().contains(3) ? state.withIsr(state.isr().stream().filter(b -> b != 3).toList()) : null;
    }

    @Test
    void aCurrentGuessIsWrittenAndAStaleOneIsDecidedAgainOnTheFreshRecord() throws Exception {
        // partition 7 moved on behind the image's back: another leader, ISR still with 3
        PartitionState moved = initial(7).withLeader(2, List.of(2, 3));
        session.call(z -> z.setData(paths.partition(TOPIC, 7), MetadataRecords.encodePartition(TOPIC, TOPIC_ID, moved), 0));

        Map<TopicPartitionKey, PartitionState> written = records.updateAll(all(),
                PartitionRecordsTest::withoutBroker3,
                key -> new PartitionRecords.Versioned(initial(key.partition()), TOPIC_ID, 0)); // the image: all initial

        assertEquals(PARTITIONS, written.size());
        for (int p = 0; p < PARTITIONS; p++) {
            PartitionState now = stored(p);
            assertEquals(p == 7 ? 2 : 1, now.leader(), "partition " + p);
            assertFalse(now.isr().contains(3), "partition " + p + ": " + now);
            assertEquals(now, written.get(new TopicPartitionKey(TOPIC, p)));
            Stat stat = new Stat();
            session.readOrNull(paths.partition(TOPIC, p), stat);
            assertEquals(now.partitionEpoch(), stat.getVersion(), "the version follows the partition epoch");
        }
        assertEquals(moved.leaderEpoch(), stored(7).leaderEpoch(), "the fresh record's leader kept, not the image's");
    }

    @Test
    void aGuessOfAPartitionThatIsGoneWritesNothing() throws Exception {
        session.call(z -> {
            z.delete(paths.partition(TOPIC, 3), -1);
            return null;
        });
        Map<TopicPartitionKey, PartitionState> written = records.updateAll(List.of(new TopicPartitionKey(TOPIC, 3),
                        new TopicPartitionKey(TOPIC, 4)), PartitionRecordsTest::withoutBroker3,
                key -> new PartitionRecords.Versioned(initial(key.partition()), TOPIC_ID, 0));
        assertEquals(List.of(new TopicPartitionKey(TOPIC, 4)), List.copyOf(written.keySet()));
    }
}
