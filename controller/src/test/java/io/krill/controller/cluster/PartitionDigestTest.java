package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Digest nodes: the codec refuses what it cannot trust, a watcher takes a changed record from the
 * digest of the multi that wrote it, and reads every record again when a later write has replaced a
 * digest it had not read yet.
 */
@Timeout(90)
class PartitionDigestTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String CHROOT = "/krill/digest";
    private static final String CLUSTER = "digest";

    @TempDir
    Path dir;

    @Test
    void encodesAndDecodesEveryField() {
        List<PartitionDigest.Entry> entries = List.of(
                new PartitionDigest.Entry("t", UUID.randomUUID(), new PartitionState(3, 2, 7, List.of(1, 2, 3),
                        List.of(2, 3), 11, List.of(3), List.of(1))),
                new PartitionDigest.Entry("ünïcode-topic", UUID.randomUUID(), new PartitionState(0, -1, 0, List.of(4),
                        List.of(4), 0)));
        assertEquals(entries, PartitionDigest.decode(PartitionDigest.encode(entries)));
        assertEquals(List.of(), PartitionDigest.decode(PartitionDigest.encode(List.of())));
    }

    @Test
    void aDigestWithEligibleLeaderReplicasTakesTheSecondLayoutForEveryEntry() {
        List<PartitionDigest.Entry> entries = List.of(
                new PartitionDigest.Entry("t", UUID.randomUUID(), new PartitionState(3, 2, 7, List.of(1, 2, 3),
                        List.of(2), 11, List.of(), List.of(), List.of(3), List.of())),
                new PartitionDigest.Entry("u", UUID.randomUUID(), new PartitionState(0, 1, 0, List.of(1, 4),
                        List.of(1, 4), 0)));
        byte[] encoded = PartitionDigest.encode(entries);
        assertEquals(PartitionDigest.MAGIC_2, ByteBuffer.wrap(encoded).getInt());
        assertEquals(entries, PartitionDigest.decode(encoded));
        for (int length = 1; length < encoded.length; length++) {
            assertNull(PartitionDigest.decode(Arrays.copyOf(encoded, length)), "truncated to " + length);
        }
        assertEquals(PartitionDigest.MAGIC, ByteBuffer.wrap(PartitionDigest.encode(entries.subList(1, 2))).getInt(),
                "without ELRs: the first layout, as before");
    }

    @Test
    void refusesEmptyTruncatedOversizeAndForeignData() {
        byte[] good = PartitionDigest.encode(List.of(new PartitionDigest.Entry("t", UUID.randomUUID(),
                new PartitionState(0, 1, 0, List.of(1, 2), List.of(1, 2), 0))));
        assertNull(PartitionDigest.decode(new byte[0]), "a digest node as created");
        assertNull(PartitionDigest.decode(null));
        for (int length = 1; length < good.length; length++) {
            assertNull(PartitionDigest.decode(Arrays.copyOf(good, length)), "truncated to " + length);
        }
        assertNull(PartitionDigest.decode(Arrays.copyOf(good, good.length + 1)), "trailing bytes");
        byte[] huge = good.clone();
        ByteBuffer.wrap(huge).putInt(4, Integer.MAX_VALUE);
        assertNull(PartitionDigest.decode(huge), "a count the data cannot hold");
        byte[] foreign = good.clone();
        foreign[0] = '{';
        assertNull(PartitionDigest.decode(foreign), "not a digest (a JSON record)");
    }

    @Test
    void aWatcherTakesRecordsFromTheirMultisDigestAndReadsEverythingWhenOneWasRewrittenSince() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(
                     ZooKeeperStoreConfig.of(zk.connectString() + CHROOT, CLUSTER, 1).withSessionTimeoutMs(10_000));
             ZkSession writer = new ZkSession(zk.connectString() + CHROOT, 10_000, 10_000, new QuietZkListener())) {
            store.registerBroker(new BrokerInfo(1, null,
                    Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "localhost", 9091))));
            TopicImage topic = store.createTopic(NewTopic.of("t", 4, 1));
            ZkPaths paths = new ZkPaths(CLUSTER);
            HoldingListener holding = new HoldingListener();
            MetadataWatcher watcher = new MetadataWatcher(paths, new SessionFence(fenced -> { }), 9);
            holding.delegate = watcher;
            try (ZkSession watched = new ZkSession(zk.connectString() + CHROOT, 10_000, 10_000, holding)) {
                watched.awaitConnected(10_000);
                watcher.start(watched, 30_000);
                assertEquals(topic.partitions(), watcher.image().topic("t").partitions());
                PartitionRecords records = new PartitionRecords(writer, paths, 7);
                records.ensureDigestNodes();
                List<TopicPartitionKey> keys = new ArrayList<>();
                for (int p = 0; p < 4; p++) {
                    keys.add(new TopicPartitionKey("t", p));
                }

                // The slot of the first multi is reused (DIGEST_SLOTS multis later) before the watcher reads
                // it: which records that multi wrote is unknown, so every record is read again.
                holding.hold();
                Map<TopicPartitionKey, PartitionState> first = records.updateAll(keys, (name, state) -> bumped(state));
                assertEquals(4, first.size());
                for (int i = 0; i < PartitionRecords.DIGEST_SLOTS; i++) {
                    TopicPartitionKey one = keys.get(0);
                    assertEquals(1, records.updateAll(List.of(one), (name, state) -> bumped(state)).size());
                }
                holding.release();
                await().atMost(PATIENCE).until(() -> watcher.missedDigests() > 0 && sameAsInZooKeeper(watcher, writer, paths));
                assertEquals(1, watcher.missedDigests(), "the reused slot, once");
                assertEquals(first.get(keys.get(3)), watcher.image().topic("t").partition(3),
                        "a record only the overwritten digest held is read from its node");

                // An undisturbed multi: all four come from its digest.
                long before = watcher.recordsFromDigests();
                Map<TopicPartitionKey, PartitionState> second = records.updateAll(keys, (name, state) -> bumped(state));
                await().atMost(PATIENCE).until(() -> sameAs(watcher.image().topic("t"), second));
                assertEquals(before + 4, watcher.recordsFromDigests());
                assertEquals(1, watcher.missedDigests());
            } finally {
                watcher.close();
            }
        }
    }

    private static boolean sameAsInZooKeeper(MetadataWatcher watcher, ZkSession zk, ZkPaths paths) {
        for (int p = 0; p < 4; p++) {
            Stat stat = new Stat();
            if (!MetadataRecords.decodePartition(p, zk.readOrNull(paths.partition("t", p), stat))
                    .equals(watcher.image().topic("t").partition(p))) {
                return false;
            }
        }
        return true;
    }

    private static PartitionState bumped(PartitionState state) {
        return new PartitionState(state.partition(), state.leader(), state.leaderEpoch() + 1, state.replicas(),
                state.isr(), state.partitionEpoch() + 1);
    }

    private static boolean sameAs(TopicImage topic, Map<TopicPartitionKey, PartitionState> states) {
        for (Map.Entry<TopicPartitionKey, PartitionState> entry : states.entrySet()) {
            if (!entry.getValue().equals(topic.partition(entry.getKey().partition()))) {
                return false;
            }
        }
        return true;
    }

    /** Passes events to the watcher, except node events while held, which it queues until released. */
    private static final class HoldingListener implements ZkSession.Listener {
        private final List<WatchedEvent> held = new ArrayList<>();
        private boolean holding;
        volatile MetadataWatcher delegate;

        synchronized void hold() {
            holding = true;
        }

        synchronized void release() {
            holding = false;
            held.forEach(delegate::onNodeEvent);
            held.clear();
        }

        @Override
        public void onConnected(boolean newSession) {
            delegate.onConnected(newSession);
        }

        @Override
        public void onDisconnected() {
            delegate.onDisconnected();
        }

        @Override
        public void onExpired() {
            delegate.onExpired();
        }

        @Override
        public synchronized void onNodeEvent(WatchedEvent event) {
            if (holding) {
                held.add(event);
            } else {
                delegate.onNodeEvent(event);
            }
        }
    }
}
