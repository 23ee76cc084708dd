package io.krill.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TxnOffsetCommit at the group coordinator: offsets of an open transaction are pending (invisible,
 * UNSTABLE_OFFSET_COMMIT under require_stable) until the transaction's marker reaches the group's
 * partition; commit makes them the group's, abort drops them; a reload replays markers from the log.
 * Before its first write in a transaction a producer is verified with the transaction coordinator
 * (KIP-890 part 1): a commit outside the transaction is refused and leaves nothing behind.
 */
class TransactionalOffsetsTest {
    private static final long PRODUCER = 42;

    private MockCoordinatorTimer timer;
    private InMemoryCoordinatorLog log;
    private GroupCoordinator coordinator;
    /** What the transaction coordinator answers the verifications; NONE unless a test says otherwise. */
    private CompletableFuture<Errors> verification;
    /** The partitions of __consumer_offsets verified, one per verification. */
    private final List<TopicPartition> verified = new ArrayList<>();

    @BeforeEach
    void setUp() {
        timer = new MockCoordinatorTimer();
        log = new InMemoryCoordinatorLog();
        verification = CompletableFuture.completedFuture(Errors.NONE);
        coordinator = newCoordinator();
    }

    private GroupCoordinator newCoordinator() {
        GroupConfig config = new GroupConfig(1, (short) 1, 1 << 20, 100, 24 * 3600_000L, 600_000L, 6_000, 300_000,
                0, 100, 45_000, 5_000);
        GroupCoordinator c = new GroupCoordinator(1, config, log, timer,
                (partition, transactionalId, producerId, producerEpoch, version) -> {
                    verified.add(partition);
                    return verification;
                });
        c.onElection(0);
        timer.advance(0);
        assertTrue(c.isLoaded(0));
        return c;
    }

    private Errors txnCommit(String group, long offset, String memberId, int generation) {
        AtomicReference<TxnOffsetCommitResponse> result = startTxnCommit(group, offset, memberId, generation);
        assertNotNull(result.get());
        return Errors.forCode(result.get().topics().get(0).partitions().get(0).errorCode());
    }

    /** A TxnOffsetCommit v4 whose answer is set once it comes. */
    private AtomicReference<TxnOffsetCommitResponse> startTxnCommit(String group, long offset, String memberId,
                                                                    int generation) {
        AtomicReference<TxnOffsetCommitResponse> result = new AtomicReference<>();
        coordinator.commitTransactionalOffsets(new TxnOffsetCommitRequest().setTransactionalId("app").setGroupId(group)
                .setProducerId(PRODUCER).setProducerEpoch((short) 3).setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(generation)
                .setTopics(List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic().setName("in").setPartitions(
                        List.of(new TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition().setPartitionIndex(0)
                                .setCommittedOffset(offset).setCommittedMetadata("m"))))), (short) 4, result::set);
        return result;
    }

    private OffsetFetchResponse.OffsetFetchResponsePartitions fetch(String group, boolean requireStable) {
        OffsetFetchResponse.OffsetFetchResponseGroup result = coordinator.fetchOffsets(group, List.of(
                new OffsetFetchRequest.OffsetFetchRequestTopics().setName("in").setPartitionIndexes(List.of(0))),
                requireStable);
        assertEquals(Errors.NONE.code(), result.errorCode());
        return result.topics().get(0).partitions().get(0);
    }

    @Test
    void pendingOffsetsBecomeVisibleOnlyWithTheCommitMarker() {
        assertEquals(Errors.NONE, txnCommit("g", 10, "", -1));
        assertEquals(-1, fetch("g", false).committedOffset(), "not visible while the transaction is open");
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT.code(), fetch("g", true).errorCode());

        coordinator.onTransactionCompleted(0, PRODUCER + 1, true);
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT.code(), fetch("g", true).errorCode(), "another producer's marker");

        coordinator.onTransactionCompleted(0, PRODUCER, true);
        assertEquals(10, fetch("g", true).committedOffset());
        assertEquals(Errors.NONE.code(), fetch("g", true).errorCode());
    }

    @Test
    void anAbortMarkerDropsThePendingOffsets() {
        assertEquals(Errors.NONE, txnCommit("g", 10, "", -1));
        coordinator.onTransactionCompleted(0, PRODUCER, true);
        assertEquals(Errors.NONE, txnCommit("g", 20, "", -1));
        coordinator.onTransactionCompleted(0, PRODUCER, false);
        assertEquals(10, fetch("g", true).committedOffset());
    }

    @Test
    void anUnknownMemberOrStaleGenerationIsRefused() {
        assertEquals(Errors.UNKNOWN_MEMBER_ID, txnCommit("g", 10, "nobody", 1));
    }

    @Test
    void aReloadReplaysMarkersAndKeepsOpenTransactionsPending() {
        assertEquals(Errors.NONE, txnCommit("committed", 10, "", -1));
        assertEquals(Errors.NONE, txnCommit("aborted", 20, "", -1));
        log.appendMarker(0, PRODUCER, true);
        coordinator.onTransactionCompleted(0, PRODUCER, true);
        assertEquals(Errors.NONE, txnCommit("aborted", 30, "", -1));
        log.appendMarker(0, PRODUCER, false);
        coordinator.onTransactionCompleted(0, PRODUCER, false);
        assertEquals(Errors.NONE, txnCommit("open", 40, "", -1));

        coordinator = newCoordinator();
        assertEquals(10, fetch("committed", true).committedOffset());
        assertEquals(20, fetch("aborted", true).committedOffset(), "the aborted transaction's 30 is gone");
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT.code(), fetch("open", true).errorCode());
        coordinator.onTransactionCompleted(0, PRODUCER, true);
        assertEquals(40, fetch("open", true).committedOffset(), "the marker that came after the reload");
    }

    @Test
    void aFailedWriteLeavesNothingPending() {
        log.failNext = Errors.INVALID_PRODUCER_EPOCH;
        assertEquals(Errors.INVALID_PRODUCER_EPOCH, txnCommit("g", 10, "", -1));
        assertEquals(Errors.NONE.code(), fetch("g", true).errorCode());
    }

    @Test
    void aCommitOutsideTheTransactionIsRefusedAndLeavesNothing() {
        verification = CompletableFuture.completedFuture(Errors.TRANSACTION_ABORTABLE);
        assertEquals(Errors.TRANSACTION_ABORTABLE, txnCommit("g", 10, "", -1));
        assertEquals(List.of(new TopicPartition(GroupCoordinator.TOPIC, 0)), verified, "the group's partition");
        assertEquals(0, log.size(), "nothing written");
        assertEquals(Errors.NONE.code(), fetch("g", true).errorCode(), "nothing pending");
        coordinator.onTransactionCompleted(0, PRODUCER, true);
        assertEquals(-1, fetch("g", true).committedOffset(), "nor committed by a later marker");
    }

    @Test
    void aProducerIsVerifiedOncePerTransactionOnThePartition() {
        assertEquals(Errors.NONE, txnCommit("g", 10, "", -1));
        verification = CompletableFuture.completedFuture(Errors.TRANSACTION_ABORTABLE);
        assertEquals(Errors.NONE, txnCommit("other", 11, "", -1), "already in this transaction on the partition");
        assertEquals(1, verified.size());

        log.appendMarker(0, PRODUCER, true);
        coordinator.onTransactionCompleted(0, PRODUCER, true);
        assertEquals(Errors.TRANSACTION_ABORTABLE, txnCommit("g", 12, "", -1), "the next transaction is verified anew");
        assertEquals(2, verified.size());
        assertEquals(10, fetch("g", true).committedOffset());
    }

    @Test
    void aVerificationAnsweredLaterResumesOnTheCoordinatorThread() {
        verification = new CompletableFuture<>();
        AtomicReference<TxnOffsetCommitResponse> result = startTxnCommit("g", 10, "", -1);
        assertNull(result.get(), "waiting for the transaction coordinator");
        verification.complete(Errors.NONE);
        assertNull(result.get(), "not written on the verifier's thread");
        timer.advance(0);
        assertNotNull(result.get());
        assertEquals(Errors.NONE.code(), result.get().topics().get(0).partitions().get(0).errorCode());
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT.code(), fetch("g", true).errorCode());
    }
}
