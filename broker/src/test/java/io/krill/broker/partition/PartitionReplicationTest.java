package io.krill.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.controller.metadata.PartitionState;
import io.krill.log.AppendOrigin;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's and the follower's replication rules of {@link Partition}, on a real log: the high
 * watermark is the smallest log end offset over the ISR (and over replicas being added), it does not
 * move while fenced, followers are caught up by Kafka's rule, and a follower never keeps more than it
 * may.
 */
class PartitionReplicationTest {
    private static final int LEADER = 1;
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;
    private PartitionLog log;
    private final AtomicBoolean fenced = new AtomicBoolean();
    private TopicConfig config;

    @BeforeEach
    void open() throws Exception {
        log = PartitionLog.builder(dir.resolve("t-0")).open();
        config = TopicConfig.resolve(Map.of("min.insync.replicas", "2"),
                BrokerConfig.from(Map.of("node.id", "1", "log.dirs", dir.toString())));
    }

    @AfterEach
    void close() {
        log.close();
    }

    private static PartitionState state(int leader, int epoch, List<Integer> isr) {
        return new PartitionState(0, leader, epoch, List.of(1, 2, 3), isr, epoch);
    }

    private Partition partition(PartitionState state) {
        return new Partition(TP, UUID.randomUUID(), LEADER, log, state, config, fenced::get);
    }

    private static void append(Partition p, int records) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
            for (int i = 0; i < records; i++) {
                builder.append(1000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            ByteBuf batch = builder.build();
            try {
                p.appendRecordsToLeader(batch, -1, AppendOrigin.CLIENT);
            } finally {
                batch.release();
            }
        }
    }

    @Test
    void highWatermarkIsTheSmallestEndOffsetInTheIsr() {
        Partition p = partition(state(LEADER, 0, List.of(1, 2, 3)));
        append(p, 10);
        assertEquals(0, p.highWatermark(), "followers have not fetched yet");
        assertTrue(p.recordFollowerFetch(2, 10, 1_000).highWatermarkMoved() == false);
        assertEquals(0, p.highWatermark(), "replica 3 has nothing yet");
        assertTrue(p.recordFollowerFetch(3, 4, 1_000).highWatermarkMoved());
        assertEquals(4, p.highWatermark());
        p.recordFollowerFetch(3, 10, 1_001);
        assertEquals(10, p.highWatermark());
        assertEquals(10, log.highWatermark(), "handed to the log for retention");
    }

    @Test
    void shrinkingTheIsrLetsTheHighWatermarkMoveWithoutTheLaggard() {
        Partition p = partition(state(LEADER, 0, List.of(1, 2, 3)));
        append(p, 5);
        p.recordFollowerFetch(2, 5, 1_000);
        assertEquals(0, p.highWatermark());
        p.update(state(LEADER, 0, List.of(1, 2)), config);
        assertEquals(5, p.highWatermark());
    }

    @Test
    void aReplicaBeingAddedCountsBeforeTheIsrWriteLands() {
        Partition p = partition(state(LEADER, 0, List.of(1, 2)));
        append(p, 5);
        p.recordFollowerFetch(2, 5, 1_000);
        assertEquals(5, p.highWatermark());
        Partition.FollowerFetchOutcome caughtUp = p.recordFollowerFetch(3, 5, 1_000);
        assertTrue(caughtUp.shouldJoinIsr(), "replica 3 reached the high watermark");
        assertTrue(p.beginIsrChange(Set.of(3)));
        assertFalse(p.beginIsrChange(Set.of()), "one ISR change at a time");
        append(p, 5);
        p.recordFollowerFetch(2, 10, 1_001);
        assertEquals(5, p.highWatermark(), "replica 3 may lead as soon as it is added: it must have what is committed");
        p.recordFollowerFetch(3, 10, 1_001);
        assertEquals(10, p.highWatermark());
        p.finishIsrChange();
        assertTrue(p.beginIsrChange(Set.of()));
    }

    @Test
    void aFencedLeaderDoesNotMoveItsHighWatermark() {
        Partition p = partition(state(LEADER, 0, List.of(1, 2)));
        append(p, 3);
        fenced.set(true);
        p.recordFollowerFetch(2, 3, 1_000);
        assertEquals(0, p.highWatermark());
        fenced.set(false);
        assertTrue(p.maybeIncrementHighWatermark());
        assertEquals(3, p.highWatermark());
    }

    @Test
    void followersAreCaughtUpByKafkasRule() {
        Partition p = partition(state(LEADER, 0, List.of(1, 2, 3)));
        long t0 = System.currentTimeMillis() + 100_000; // well after the partition was created (its ISR caught up then)
        append(p, 5);
        p.recordFollowerFetch(2, 5, t0);          // at the end: caught up at t0
        p.recordFollowerFetch(3, 0, t0);          // behind
        append(p, 5);
        p.recordFollowerFetch(2, 5, t0 + 500);    // where the end was at its previous fetch: caught up as of t0
        assertEquals(List.of(3), p.laggingIsrMembers(t0 + 1_000, 1_000));
        assertEquals(List.of(2, 3), p.laggingIsrMembers(t0 + 1_001, 1_000));
        p.recordFollowerFetch(3, 10, t0 + 1_500);
        assertEquals(List.of(2), p.laggingIsrMembers(t0 + 1_600, 1_000));
    }

    private static void appendAsFollower(Partition p, long baseOffset, int records) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
            builder.baseOffset(baseOffset).partitionLeaderEpoch(3);
            for (int i = 0; i < records; i++) {
                builder.append(1000L + i, null, new byte[] {(byte) i});
            }
            ByteBuf batch = builder.build();
            try {
                p.appendRecordsAsFollower(batch);
            } finally {
                batch.release();
            }
        }
    }

    /**
     * KIP-392: a consumer long-polling a follower waits in the fetch purgatory for the follower's high
     * watermark; its move must wake it (told as a change of the partition), not only the fetch's max wait.
     */
    @Test
    void aFollowersHighWatermarkMoveWakesItsWaitingReaders() {
        List<TopicPartition> told = new java.util.ArrayList<>();
        Partition p = new Partition(TP, UUID.randomUUID(), LEADER, log, state(2, 3, List.of(1, 2, 3)), config,
                fenced::get, told::add);
        appendAsFollower(p, 0, 3);
        assertEquals(List.of(), told, "a follower's append moves nothing a consumer may read");
        p.updateFollowerHighWatermark(2);
        assertEquals(List.of(TP), told);
        p.updateFollowerHighWatermark(2);
        p.updateFollowerHighWatermark(1);
        assertEquals(List.of(TP), told, "no move, nobody woken");
        p.updateFollowerHighWatermark(10);
        assertEquals(List.of(TP, TP), told, "moved to the follower's end (3)");
        assertEquals(3, p.highWatermark());
    }

    /**
     * KIP-392: a consumer reading from a follower gets only what the leader's high watermark, as last
     * fetched, covers: records the follower has but the ISR has not acknowledged stay out.
     */
    @Test
    void aConsumerReadingFromAFollowerStopsAtTheFollowersHighWatermark() {
        Partition p = partition(state(2, 3, List.of(1, 2, 3)));
        appendAsFollower(p, 0, 3);
        appendAsFollower(p, 3, 2);
        p.updateFollowerHighWatermark(3);
        var read = p.readFromReplica(0, 1 << 20, 3, true);
        try {
            assertEquals(3, read.nextOffset(), "up to the high watermark, not the follower's end (5)");
        } finally {
            read.close();
        }
        var atTheMark = p.readFromReplica(3, 1 << 20, 3, true);
        try {
            assertEquals(0, atTheMark.records().sizeInBytes(), "nothing past the high watermark");
        } finally {
            atTheMark.close();
        }
        ApiException stale = assertThrows(ApiException.class, () -> p.readFromReplica(0, 100, 2, true));
        assertEquals(Errors.FENCED_LEADER_EPOCH, stale.error());
    }

    @Test
    void aNewLeaderRecordsItsEpochBeforeAppendingAndResetsProgress() {
        Partition p = partition(state(2, 3, List.of(1, 2, 3)));
        try (RecordBatchBuilder builder = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
            ByteBuf batch = builder.partitionLeaderEpoch(3).append(1L, null, new byte[] {1}).build();
            try {
                p.appendRecordsAsFollower(batch);
            } finally {
                batch.release();
            }
        }
        p.updateFollowerHighWatermark(7);
        assertEquals(1, p.highWatermark(), "a follower's high watermark is capped by its own end");
        p.update(state(LEADER, 4, List.of(1, 2, 3)), config);
        assertEquals(4, log.endOffsetForEpoch(4).leaderEpoch());
        assertEquals(1, log.endOffsetForEpoch(3).endOffset(), "epoch 3 ends where epoch 4 starts");
        ApiException fenced = assertThrows(ApiException.class, () -> p.read(0, 100, false, 3, true));
        assertEquals(Errors.FENCED_LEADER_EPOCH, fenced.error());
    }

    @Test
    void acksAllNeedsMinInsyncReplicasBeforeAppending() {
        Partition p = partition(state(LEADER, 0, List.of(1)));
        ApiException e = assertThrows(ApiException.class, () -> append(p, 1));
        assertEquals(Errors.NOT_ENOUGH_REPLICAS, e.error());
        assertEquals(0, log.logEndOffset(), "nothing written");
    }
}
