package io.krill.broker.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.ShareGroupConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.partition.Partition;
import io.krill.broker.share.dlq.DeadLetterCause;
import io.krill.broker.share.dlq.DeadLetterQueue;
import io.krill.broker.share.dlq.DeadLetters;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.StateBatch;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A share-partition on a real log with an in-memory share coordinator: who gets which records, what is
 * written durably, and what a new leader (a new {@link SharePartition} loaded from the same state) delivers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharePartitionTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final UUID TOPIC_ID = UUID.randomUUID();
    private static final SharePartitionKey KEY = new SharePartitionKey("g", TOPIC_ID, 0);

    @TempDir
    Path dir;
    private PartitionLog log;
    private Partition partition;
    private final InMemoryShareStatePersister persister = new InMemoryShareStatePersister();
    private ShareGroupConfig config = new ShareGroupConfig("earliest", false, 30_000, 3, 2_000, 45_000, 5_000);
    private final List<TopicPartition> woken = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void open() throws Exception {
        log = PartitionLog.builder(dir.resolve("t-0")).open();
        TopicConfig topicConfig = TopicConfig.resolve(Map.of(),
                BrokerConfig.from(Map.of("node.id", "1", "log.dirs", dir.toString())));
        partition = new Partition(TP, TOPIC_ID, 1, log, new PartitionState(0, 1, 0, List.of(1), List.of(1), 0),
                topicConfig, () -> false);
    }

    @AfterEach
    void close() {
        log.close();
    }

    private void append(int records) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder(UnpooledByteBufAllocator.DEFAULT)) {
            for (int i = 0; i < records; i++) {
                builder.append(1000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            ByteBuf batch = builder.build();
            try {
                partition.appendRecordsToLeader(batch, -1, AppendOrigin.CLIENT);
            } finally {
                batch.release();
            }
        }
    }

    private SharePartitionManager manager() {
        return new SharePartitionManager(persister, DeadLetterQueue.NONE, groupId -> config, woken::add);
    }

    private static SharePartition.ShareRead acquire(SharePartition share, String member, int max, long now) {
        SharePartition.ShareRead read = share.acquire(member, max, 1 << 20, false, now);
        if (read.read() != null) {
            read.read().close();
        }
        return read;
    }

    private static SharePartition.Acknowledgement ack(long first, long last, AcknowledgeType type) {
        return new SharePartition.Acknowledgement(first, last, List.of(type));
    }

    @Test
    void recordsGoToOneMemberAtATimeAndAcceptedOnesAreDurable() {
        append(5);
        append(5);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            assertEquals(0, persister.state(KEY).startOffset(), "earliest: initialized at the log start");
            SharePartition.ShareRead first = acquire(share, "a", 1, 0);
            assertEquals(List.of(new AcquiredRange(0, 4, (short) 1)), first.acquired(),
                    "batch-optimized: a whole batch even for one record wanted");
            SharePartition.ShareRead second = acquire(share, "b", 100, 0);
            assertEquals(List.of(new AcquiredRange(5, 9, (short) 1)), second.acquired());
            assertTrue(acquire(share, "c", 100, 0).acquired().isEmpty(), "everything is locked");

            share.acknowledge("a", List.of(ack(0, 4, AcknowledgeType.ACCEPT)), 0).join();
            assertEquals(5, persister.state(KEY).startOffset(), "the accept moved the start durably");
            CompletionException wrong = assertThrows(CompletionException.class,
                    () -> share.acknowledge("a", List.of(ack(5, 9, AcknowledgeType.ACCEPT)), 0).join());
            assertEquals(Errors.INVALID_RECORD_STATE, ((ApiException) wrong.getCause()).error(), "b holds 5-9");
        }
    }

    @Test
    void anExpiredLockRedeliversWithTheNextCountUntilTheLimitArchives() {
        append(3);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            for (int delivery = 1; delivery <= 3; delivery++) {
                SharePartition.ShareRead read = acquire(share, "a", 100, delivery * 100_000L);
                assertEquals(List.of(new AcquiredRange(0, 2, (short) delivery)), read.acquired());
                share.expireLocks(delivery * 100_000L + config.recordLockDurationMs());
            }
            assertTrue(acquire(share, "a", 100, 1_000_000).acquired().isEmpty(), "archived at the limit of 3");
            assertEquals(3, persister.state(KEY).startOffset(), "archived records are done: the start passed them");
        }
    }

    @Test
    void aNewLeaderDeliversOnlyWhatWasNotAcceptedWithTheWrittenCounts() {
        append(4);
        append(4);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            acquire(share, "a", 100, 0);
            share.acknowledge("a", List.of(new SharePartition.Acknowledgement(0, 7, List.of(
                    AcknowledgeType.ACCEPT, AcknowledgeType.RELEASE, AcknowledgeType.ACCEPT, AcknowledgeType.REJECT,
                    AcknowledgeType.ACCEPT, AcknowledgeType.ACCEPT, AcknowledgeType.RENEW, AcknowledgeType.ACCEPT))),
                    0).join();
        }
        // the leader is gone; another one loads the same durable state
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            SharePartition.ShareRead again = acquire(share, "b", 100, 0);
            assertEquals(List.of(new AcquiredRange(1, 1, (short) 2), new AcquiredRange(6, 6, (short) 2)),
                    again.acquired(), "the released record and the renewed (still locked) one, nothing accepted");
        }
    }

    @Test
    void aFailedWriteFailsTheAcknowledgementAndDropsTheMemoryAheadOfIt() {
        append(2);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            acquire(share, "a", 100, 0);
            persister.failWritesWith(Errors.COORDINATOR_NOT_AVAILABLE);
            CompletionException failed = assertThrows(CompletionException.class,
                    () -> share.acknowledge("a", List.of(ack(0, 1, AcknowledgeType.ACCEPT)), 0).join());
            assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, ((ApiException) failed.getCause()).error());
            assertFalse(share.isValid());
            persister.failWritesWith(null);
            SharePartition reloaded = manager.get("g", partition).join();
            assertEquals(List.of(new AcquiredRange(0, 1, (short) 1)), acquire(reloaded, "b", 100, 0).acquired(),
                    "the accept never became durable: delivered again");
        }
    }

    @Test
    void latestStartsAtTheHighWatermarkAndReleaseOfAMemberWakesFetches() {
        config = new ShareGroupConfig("latest", false, 30_000, 5, 2_000, 45_000, 5_000);
        append(3);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            assertTrue(acquire(share, "a", 100, 0).acquired().isEmpty(), "latest: the 3 old records are not delivered");
            append(2);
            assertEquals(List.of(new AcquiredRange(3, 4, (short) 1)), acquire(share, "a", 100, 0).acquired());
            woken.clear();
            share.releaseMember("a");
            assertEquals(List.of(TP), woken);
            assertEquals(List.of(new StateBatch(3, 4, StateBatch.AVAILABLE, (short) 1)), persister.state(KEY).batches());
        }
    }

    @Test
    void theLockTimerReleasesExpiredRecordsAndFollowsARenewal() {
        config = new ShareGroupConfig("earliest", false, 300, 5, 2_000, 45_000, 5_000);
        append(2);
        append(2);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            long now = System.currentTimeMillis();
            SharePartition.ShareRead read = share.acquire("a", 100, 1 << 20, false, now);
            read.read().close();
            manager.scheduleExpiry(share, now + 300);
            share.acknowledge("a", List.of(ack(0, 1, AcknowledgeType.RENEW)), now + 1_000).join();
            woken.clear();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> !woken.isEmpty());
            assertTrue(share.heldBy(0, 1, "a"), "renewed until " + (now + 1_300));
            assertFalse(share.heldBy(2, 3, "a"), "2-3 expired at " + (now + 300));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> !share.heldBy(0, 1, "a"));
            assertEquals(List.of(new AcquiredRange(0, 3, (short) 2)), acquire(share, "b", 100, System.currentTimeMillis())
                    .acquired());
        }
    }

    @Test
    void anIdleSharePartitionIsLoadedAgainSoThatAnOffsetsResetIsSeen() {
        append(5);
        try (SharePartitionManager manager = manager()) {
            SharePartition share = manager.get("g", partition).join();
            acquire(share, "a", 100, 0);
            persister.initialize(KEY, persister.state(KEY).stateEpoch() + 1, 3).join(); // AlterShareGroupOffsets
            manager.refreshIfIdle(KEY);
            assertTrue(share.isValid(), "a holds records: not dropped");
            share.acknowledge("a", List.of(ack(0, 4, AcknowledgeType.RELEASE)), 0).exceptionally(e -> null).join();
            manager.refreshIfIdle(KEY);
            SharePartition reloaded = manager.get("g", partition).join();
            assertEquals(List.of(new AcquiredRange(3, 4, (short) 1)), acquire(reloaded, "b", 100, 0).acquired(),
                    "the reset start offset, fresh counts");
        }
    }

    /** A dead-letter queue that records what it is sent and completes when the test says. */
    private static final class RecordingDeadLetters implements DeadLetterQueue {
        final List<DeadLetters> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<java.util.concurrent.CompletableFuture<Void>> futures = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public boolean enabled(String groupId) {
            return true;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> send(DeadLetters letters) {
            sent.add(letters);
            java.util.concurrent.CompletableFuture<Void> future = new java.util.concurrent.CompletableFuture<>();
            futures.add(future);
            return future;
        }
    }

    @Test
    void rejectedRecordsAreDurablyArchivingUntilTheirDeadLettersAreWrittenOrGivenUp() {
        append(5);
        RecordingDeadLetters dlq = new RecordingDeadLetters();
        try (SharePartitionManager manager = new SharePartitionManager(persister, dlq, groupId -> config, woken::add)) {
            SharePartition share = manager.get("g", partition).join();
            assertEquals(List.of(new AcquiredRange(0, 4, (short) 1)), acquire(share, "a", 100, 0).acquired());
            share.acknowledge("a", List.of(new SharePartition.Acknowledgement(0, 4, List.of(AcknowledgeType.ACCEPT,
                    AcknowledgeType.REJECT, AcknowledgeType.REJECT, AcknowledgeType.ACCEPT, AcknowledgeType.REJECT))),
                    0).join();
            assertEquals(List.of(new StateBatch(1, 2, StateBatch.ARCHIVING, (short) 1),
                    new StateBatch(3, 3, StateBatch.ACKNOWLEDGED, (short) 1),
                    new StateBatch(4, 4, StateBatch.ARCHIVING, (short) 1)), persister.state(KEY).batches(),
                    "ARCHIVING is durable before any letter is sent");
            assertEquals(1, persister.state(KEY).startOffset());
            assertEquals(List.of(
                    new DeadLetters("g", TP, TOPIC_ID, 1, 2, (short) 1, DeadLetterCause.REJECTED),
                    new DeadLetters("g", TP, TOPIC_ID, 4, 4, (short) 1, DeadLetterCause.REJECTED)), dlq.sent);
            assertTrue(acquire(share, "b", 100, 0).acquired().isEmpty(), "rejected records are never redelivered");

            dlq.futures.get(1).complete(null);
            assertEquals(1, persister.state(KEY).startOffset(), "1-2 still wait");
            dlq.futures.get(0).completeExceptionally(new ApiException(Errors.INVALID_CONFIG, "no DLQ topic"));
            assertEquals(5, persister.state(KEY).startOffset(), "given up letters archive the records regardless");
        }
    }

    @Test
    void aNewLeaderSendsTheDeadLettersOfRecordsItFindsArchivingAndTheDeliveryLimitSendsThemToo() {
        append(3);
        RecordingDeadLetters first = new RecordingDeadLetters();
        try (SharePartitionManager manager = new SharePartitionManager(persister, first, groupId -> config, woken::add)) {
            SharePartition share = manager.get("g", partition).join();
            for (int delivery = 1; delivery <= 3; delivery++) {
                acquire(share, "a", 100, delivery * 100_000L);
                share.expireLocks(delivery * 100_000L + config.recordLockDurationMs());
            }
            assertEquals(List.of(new DeadLetters("g", TP, TOPIC_ID, 0, 2, (short) 3,
                    DeadLetterCause.DELIVERY_COUNT_EXCEEDED)), first.sent, "the third lock expiry reached the limit of 3");
            assertEquals(List.of(new StateBatch(0, 2, StateBatch.ARCHIVING, (short) 3)), persister.state(KEY).batches());
        }
        RecordingDeadLetters second = new RecordingDeadLetters();
        try (SharePartitionManager manager = new SharePartitionManager(persister, second, groupId -> config, woken::add)) {
            SharePartition reloaded = manager.get("g", partition).join();
            assertEquals(List.of(new DeadLetters("g", TP, TOPIC_ID, 0, 2, (short) 3,
                    DeadLetterCause.DELIVERY_COUNT_EXCEEDED)), second.sent, "sent again: at least once");
            assertFalse(reloaded.fenceIfIdle(), "not idle while letters are on their way");
            second.futures.get(0).complete(null);
            assertEquals(3, persister.state(KEY).startOffset());
        }
    }
}
