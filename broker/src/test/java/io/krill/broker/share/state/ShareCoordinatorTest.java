package io.krill.broker.share.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The share coordinator's state machine on an in-memory log: initialize, read, write (merge, start offset,
 * fencing), summary, delete, the snapshot/update records and their replay (also after compaction),
 * loading, resigning, answers only after commit, one operation per key at a time.
 */
class ShareCoordinatorTest {
    private static final int NODE = 1;
    private static final UUID TOPIC = UUID.randomUUID();
    private static final SharePartitionKey KEY = new SharePartitionKey("g", TOPIC, 0);
    private static final int SNAPSHOT_EVERY = 3;

    private MockCoordinatorTimer timer;
    private InMemoryShareStateLog log;
    private AtomicReference<MetadataImage> image;
    private ShareCoordinator coordinator;

    @BeforeEach
    void setUp() {
        timer = new MockCoordinatorTimer();
        log = new InMemoryShareStateLog();
        image = new AtomicReference<>(image(NODE, 0, true));
        coordinator = start();
    }

    private ShareCoordinator start() {
        ShareCoordinatorConfig config = new ShareCoordinatorConfig(1, (short) 1, 1, 1 << 20, SNAPSHOT_EVERY, 5000,
                1 << 20, 30_000);
        ShareCoordinator c = new ShareCoordinator(NODE, config, log, timer, image::get);
        c.startup(image.get());
        timer.advance(0);
        assertTrue(c.isLoaded(0));
        return c;
    }

    private static MetadataImage image(int leader, int epoch, boolean withTopic) {
        TopicImage state = new TopicImage(ShareGroupStateTopic.NAME, UUID.randomUUID(),
                List.of(new PartitionState(0, leader, epoch, List.of(1), List.of(1), 0)), Map.of(), true);
        TopicImage data = new TopicImage("t", TOPIC, List.of(new PartitionState(0, 1, 0, List.of(1), List.of(1), 0),
                new PartitionState(1, 1, 0, List.of(1), List.of(1), 0)), Map.of(), false);
        return new MetadataImage("cluster", 1, List.of(), withTopic ? List.of(state, data) : List.of(state));
    }

    private static <T> T get(CompletableFuture<T> future) {
        assertTrue(future.isDone(), "answered at once on the in-memory log");
        return future.join();
    }

    private static Errors error(CompletableFuture<?> future) {
        assertTrue(future.isDone(), "answered at once on the in-memory log");
        try {
            future.join();
        } catch (CompletionException e) {
            return ((ApiException) e.getCause()).error();
        }
        fail("expected an error");
        return null;
    }

    private static StateBatch batch(long first, long last, byte state, int count) {
        return new StateBatch(first, last, state, (short) count);
    }

    private void write(int leaderEpoch, long startOffset, StateBatch... batches) {
        get(coordinator.write(KEY, 1, leaderEpoch, startOffset, -1, List.of(batches)));
    }

    @Test
    void uninitializedKeyReadsAsUninitializedAndAWriteCreatesIt() {
        ShareState state = get(coordinator.read(KEY, 0));
        assertEquals(ShareState.UNINITIALIZED, state.startOffset());
        assertEquals(0, state.stateEpoch());
        assertTrue(state.batches().isEmpty());
        assertEquals(new ShareStateSummary(0, -1, 0, -1), get(coordinator.readSummary(KEY)));
        assertTrue(log.entries(0).isEmpty(), "reading nothing writes nothing");

        get(coordinator.write(KEY, 0, 3, 10, -1, List.of(batch(10, 14, StateBatch.ACKNOWLEDGED, 1))));
        assertEquals(new ShareState(0, 10, 3, List.of(batch(10, 14, StateBatch.ACKNOWLEDGED, 1))),
                get(coordinator.read(KEY, 3)));
    }

    @Test
    void writesMergeOverTheStoredBatchesAndTheStartOffsetOnlyMovesForward() {
        get(coordinator.initialize(KEY, 1, 100));
        ShareState initialized = get(coordinator.read(KEY, 5));
        assertEquals(new ShareState(1, 100, 5, List.of()), initialized);

        write(5, 100, batch(100, 109, StateBatch.AVAILABLE, 1), batch(110, 119, StateBatch.ACKNOWLEDGED, 1));
        write(5, -1, batch(105, 112, StateBatch.ARCHIVED, 2));
        assertEquals(List.of(batch(100, 104, StateBatch.AVAILABLE, 1), batch(105, 112, StateBatch.ARCHIVED, 2),
                batch(113, 119, StateBatch.ACKNOWLEDGED, 1)), get(coordinator.read(KEY, 5)).batches());

        write(5, 108);
        ShareState moved = get(coordinator.read(KEY, 5));
        assertEquals(108, moved.startOffset());
        assertEquals(List.of(batch(108, 112, StateBatch.ARCHIVED, 2), batch(113, 119, StateBatch.ACKNOWLEDGED, 1)),
                moved.batches());

        write(5, 50);
        assertEquals(108, get(coordinator.read(KEY, 5)).startOffset(), "the start offset never moves back");
        assertEquals(12, get(coordinator.readSummary(KEY)).deliveryCompleteCount(), "archived and acknowledged");
    }

    @Test
    void deliveryCompleteCountFollowsKafkasRulesWhenTheWriterReportsIt() {
        get(coordinator.initialize(KEY, 1, 0));
        get(coordinator.write(KEY, 1, 0, 10, 4, List.of()));
        assertEquals(4, get(coordinator.readSummary(KEY)).deliveryCompleteCount());
        get(coordinator.write(KEY, 1, 0, 10, 2, List.of()));
        assertEquals(4, get(coordinator.readSummary(KEY)).deliveryCompleteCount(), "same start: the larger count");
        get(coordinator.write(KEY, 1, 0, 20, 1, List.of()));
        assertEquals(1, get(coordinator.readSummary(KEY)).deliveryCompleteCount(), "a new start: the new count");
    }

    @Test
    void olderEpochsAreFenced() {
        get(coordinator.initialize(KEY, 2, 0));
        get(coordinator.read(KEY, 5));
        assertEquals(Errors.FENCED_LEADER_EPOCH, error(coordinator.write(KEY, 2, 4, 0, -1, List.of())));
        assertEquals(Errors.FENCED_LEADER_EPOCH, error(coordinator.read(KEY, 4)));
        assertEquals(Errors.FENCED_STATE_EPOCH, error(coordinator.write(KEY, 1, 5, 0, -1, List.of())));
        assertEquals(Errors.FENCED_STATE_EPOCH, error(coordinator.initialize(KEY, 1, 0)));

        get(coordinator.write(KEY, 2, 5, 0, -1, List.of(batch(0, 9, StateBatch.ACKNOWLEDGED, 1))));
        get(coordinator.initialize(KEY, 2, 30));
        ShareState reset = get(coordinator.read(KEY, 6));
        assertEquals(new ShareState(2, 30, 6, List.of()), reset, "initializing (again) resets the batches");
        get(coordinator.write(KEY, 3, 6, -1, -1, List.of()));
        assertEquals(2, get(coordinator.read(KEY, 6)).stateEpoch(), "a write does not move the state epoch");
    }

    @Test
    void badInputGetsKafkasErrors() {
        SharePartitionKey negative = new SharePartitionKey("g", TOPIC, -1);
        SharePartitionKey unknownPartition = new SharePartitionKey("g", TOPIC, 2);
        SharePartitionKey unknownTopic = new SharePartitionKey("g", UUID.randomUUID(), 0);
        assertEquals(Errors.INVALID_REQUEST, error(coordinator.read(negative, 0)));
        assertEquals(Errors.INVALID_REQUEST, error(coordinator.read(KEY, -1)));
        assertEquals(Errors.INVALID_REQUEST, error(coordinator.write(KEY, 0, -1, 0, -1, List.of())));
        assertEquals(Errors.INVALID_REQUEST, error(coordinator.write(KEY, -1, 0, 0, -1, List.of())));
        assertEquals(Errors.INVALID_REQUEST, error(coordinator.initialize(KEY, -1, 0)));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, error(coordinator.read(unknownPartition, 0)));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, error(coordinator.write(unknownTopic, 0, 0, 0, -1, List.of())));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, error(coordinator.initialize(unknownTopic, 0, 0)));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, error(coordinator.readSummary(unknownTopic)));
        assertNull(get(coordinator.delete(unknownTopic)), "deleting what is not there is fine");
    }

    @Test
    void everyNthChangeIsASnapshotThatTombstonesTheUpdatesItReplaces() {
        get(coordinator.initialize(KEY, 1, 0));
        for (int i = 0; i < 6; i++) {
            write(0, -1, batch(i * 10L, i * 10L + 4, StateBatch.ACKNOWLEDGED, 1));
        }
        List<CoordinatorLog.Entry> entries = log.entries(0);
        // snapshot, 3 updates, snapshot + 3 tombstones, 2 updates
        assertEquals(1 + 3 + 4 + 2, entries.size());
        assertEquals(ShareStateRecords.SNAPSHOT, ShareStateRecords.readKey(entries.get(4).key()).type());
        for (int i = 5; i < 8; i++) {
            assertNull(entries.get(i).value(), "tombstone of a replaced update");
        }
        ShareState before = get(coordinator.read(KEY, 0));

        ShareCoordinator reloaded = start();
        assertEquals(before, get(reloaded.read(KEY, 0)), "replay rebuilds the state");

        log.compact(0);
        assertEquals(1 + 2, log.entries(0).size(), "compaction keeps the snapshot and the live updates");
        ShareCoordinator compacted = start();
        assertEquals(before, get(compacted.read(KEY, 0)), "and the state survives it");
        for (int i = 6; i < 12; i++) {
            get(compacted.write(KEY, 1, 0, -1, -1, List.of(batch(i * 10L, i * 10L + 4, StateBatch.ARCHIVED, 2))));
        }
        log.compact(0);
        assertTrue(log.entries(0).size() <= 1 + SNAPSHOT_EVERY, "the log stays bounded per share-partition");
        assertEquals(get(compacted.read(KEY, 0)), get(start().read(KEY, 0)));
    }

    @Test
    void anUpdateOfAnOlderSnapshotIsIgnoredOnReplay() {
        Map<SharePartitionKey, StoredShareState> states = new HashMap<>();
        StoredShareState snapshot = new StoredShareState(2, 1, 0, 0, -1, 0, 0, List.of(), 0);
        ShareCoordinator.replay(states, ShareStateRecords.snapshotKey(KEY), ShareStateRecords.snapshotValue(snapshot));
        ShareStateRecords.Update stale = new ShareStateRecords.Update(1, 0, 50, -1,
                List.of(batch(50, 60, StateBatch.AVAILABLE, 1)));
        ShareCoordinator.replay(states, ShareStateRecords.updateKey(KEY, 1, 1), ShareStateRecords.updateValue(stale));
        assertEquals(snapshot, states.get(KEY));
    }

    @Test
    void answersComeOnlyAfterTheCommitAndOperationsOnAKeyWaitTheirTurn() {
        get(coordinator.initialize(KEY, 1, 0));
        log.hold();
        CompletableFuture<Void> write = coordinator.write(KEY, 1, 0, -1, -1, List.of(batch(0, 4, StateBatch.ARCHIVED, 1)));
        CompletableFuture<ShareState> read = coordinator.read(KEY, 0);
        CompletableFuture<ShareStateSummary> other = coordinator.readSummary(new SharePartitionKey("h", TOPIC, 0));
        assertFalse(write.isDone());
        assertFalse(read.isDone(), "a read waits for the write before it");
        assertTrue(other.isDone(), "other keys do not wait");
        log.release();
        assertNull(get(write));
        assertEquals(List.of(batch(0, 4, StateBatch.ARCHIVED, 1)), get(read).batches());
    }

    @Test
    void aFailedWriteChangesNothing() {
        get(coordinator.initialize(KEY, 1, 0));
        log.failNext(Errors.COORDINATOR_NOT_AVAILABLE);
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE,
                error(coordinator.write(KEY, 1, 0, 7, -1, List.of(batch(7, 8, StateBatch.ARCHIVED, 1)))));
        assertEquals(new ShareState(1, 0, 0, List.of()), get(coordinator.read(KEY, 0)));
        log.failNext(Errors.RECORD_LIST_TOO_LARGE);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, error(coordinator.write(KEY, 1, 0, 7, -1, List.of())));
    }

    @Test
    void aNewerLeaderEpochIsRecordedByTheRead() {
        get(coordinator.initialize(KEY, 1, 0));
        int before = log.entries(0).size();
        get(coordinator.read(KEY, 0));
        assertEquals(before, log.entries(0).size(), "the same epoch writes nothing");
        get(coordinator.read(KEY, 4));
        assertEquals(before + 1, log.entries(0).size());
        assertEquals(4, get(start().read(KEY, 4)).leaderEpoch(), "and it survives a reload");
    }

    @Test
    void deleteTombstonesTheStateForGood() {
        get(coordinator.initialize(KEY, 1, 0));
        write(0, -1, batch(0, 4, StateBatch.ARCHIVED, 1));
        get(coordinator.delete(KEY));
        assertEquals(ShareState.UNINITIALIZED, get(coordinator.read(KEY, 0)).startOffset());
        assertEquals(ShareState.UNINITIALIZED, get(start().read(KEY, 0)).startOffset());
        log.compact(0);
        assertTrue(log.entries(0).isEmpty(), "nothing is left once cleaned");
    }

    @Test
    void loadingResigningAndFencing() {
        timer = new MockCoordinatorTimer();
        ShareCoordinator c = new ShareCoordinator(NODE, ShareCoordinatorConfig.DEFAULTS, log, timer, image::get);
        c.startup(image(NODE, 0, true));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, error(c.read(KEY, 0)));
        timer.advance(0);
        // DEFAULTS has 50 partitions, but the image's topic has one: the topic's count rules.
        assertEquals(0, c.partitionFor(KEY));
        get(c.initialize(KEY, 1, 0));

        MetadataImage moved = image(2, 1, true);
        c.onChange(image.get(), moved);
        assertEquals(Errors.NOT_COORDINATOR, error(c.read(KEY, 0)));
        MetadataImage back = image(NODE, 2, true);
        c.onChange(moved, back);
        timer.advance(0);
        assertEquals(1, get(c.read(KEY, 0)).stateEpoch(), "reloaded from the log");

        log.fenced(true);
        assertEquals(Errors.NOT_COORDINATOR, error(c.read(KEY, 0)));
        log.fenced(false);
        c.close();
        assertEquals(Errors.NOT_COORDINATOR, error(c.read(KEY, 0)));
    }

    @Test
    void theStateOfADeletedTopicIsDeleted() {
        get(coordinator.initialize(KEY, 1, 0));
        MetadataImage withoutTopic = image(NODE, 0, false);
        coordinator.onChange(image.get(), withoutTopic);
        image.set(withoutTopic);
        timer.advance(0);
        log.compact(0);
        assertTrue(log.entries(0).isEmpty());
    }

    @Test
    void mergeSplitsCutsAndCoalesces() {
        List<StateBatch> current = List.of(batch(0, 99, StateBatch.AVAILABLE, 1));
        assertEquals(List.of(batch(0, 9, StateBatch.AVAILABLE, 1), batch(10, 19, StateBatch.ACKNOWLEDGED, 1),
                batch(20, 99, StateBatch.AVAILABLE, 1)),
                StateBatches.merge(current, List.of(batch(10, 19, StateBatch.ACKNOWLEDGED, 1)), 0));
        assertEquals(List.of(batch(5, 99, StateBatch.AVAILABLE, 1)),
                StateBatches.merge(current, List.of(batch(0, 4, StateBatch.AVAILABLE, 1)), 5), "cut at the start");
        assertEquals(List.of(batch(0, 99, StateBatch.AVAILABLE, 1)), StateBatches.merge(
                List.of(batch(0, 49, StateBatch.AVAILABLE, 1)), List.of(batch(50, 99, StateBatch.AVAILABLE, 1)), 0),
                "neighbours alike coalesce");
        assertEquals(List.of(batch(0, 9, StateBatch.ARCHIVED, 3)), StateBatches.merge(
                List.of(batch(0, 4, StateBatch.AVAILABLE, 1), batch(5, 9, StateBatch.ACKNOWLEDGED, 1)),
                List.of(batch(0, 9, StateBatch.ARCHIVED, 3)), 0), "a batch replaces everything it covers");
        assertEquals(List.of(), StateBatches.merge(current, List.of(), 100), "all below the start");
    }

    @Test
    void recordsRoundTripAndRefuseTruncation() {
        StoredShareState state = new StoredShareState(3, 2, 1, 40, 7, 11, 12,
                List.of(batch(40, 50, StateBatch.ARCHIVED, 4)), 0);
        assertEquals(state, ShareStateRecords.readSnapshot(ShareStateRecords.snapshotValue(state)));
        ShareStateRecords.Key key = ShareStateRecords.readKey(ShareStateRecords.updateKey(KEY, 3, 9));
        assertEquals(new ShareStateRecords.Key(ShareStateRecords.UPDATE, KEY, 3, 9), key);
        byte[] value = ShareStateRecords.snapshotValue(state);
        byte[] truncated = java.util.Arrays.copyOf(value, value.length - 3);
        try {
            ShareStateRecords.readSnapshot(truncated);
            fail("a truncated record must not decode");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage().contains("corrupt"));
        }
        byte[] hugeCount = java.util.Arrays.copyOf(value, value.length);
        java.nio.ByteBuffer.wrap(hugeCount).putInt(2 + 4 + 4 + 4 + 8 + 4 + 8 + 8, Integer.MAX_VALUE);
        try {
            ShareStateRecords.readSnapshot(hugeCount);
            fail("a batch count beyond the record must not allocate");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage().contains("batches"));
        }
        assertNull(ShareStateRecords.readKey(new byte[] {0, 7, 0}), "an unknown version is skipped");
    }
}
