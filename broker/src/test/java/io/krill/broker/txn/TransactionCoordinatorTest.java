package io.krill.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.MockCoordinatorTimer;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ListTransactionsResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transaction coordinator's state machine on a manual clock, an in-memory log and fake markers. */
class TransactionCoordinatorTest {
    private static final int NODE = 1;
    private static final int COORDINATOR_EPOCH = 5;
    private static final String ID = "app";
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final int MAX_TIMEOUT = 60_000;
    private static final long EXPIRATION = 3_600_000;
    private static final long ABORT_CHECK = 1_000;

    private MockCoordinatorTimer timer;
    private FakeCoordinatorLog log;
    private final List<Job> markers = new ArrayList<>();
    private final AtomicLong nextProducerId = new AtomicLong(100);
    private TransactionCoordinator coordinator;

    private record Job(MarkerWriter.Markers markers, Runnable onWritten) {
    }

    @BeforeEach
    void setUp() {
        timer = new MockCoordinatorTimer();
        log = new FakeCoordinatorLog();
        coordinator = start(NODE, COORDINATOR_EPOCH);
    }

    private TransactionCoordinator start(int leader, int epoch) {
        TransactionConfig config = new TransactionConfig(1, (short) 1, 1, 1 << 20, 1 << 20, MAX_TIMEOUT, EXPIRATION,
                ABORT_CHECK, 60_000, true, 30_000);
        TransactionCoordinator c = new TransactionCoordinator(NODE, config, log, timer, nextProducerId::getAndIncrement,
                (m, done) -> markers.add(new Job(m, done)));
        c.startup(image(leader, epoch));
        timer.advance(0);
        return c;
    }

    private static MetadataImage image(int leader, int epoch) {
        TopicImage topic = new TopicImage(TransactionStateTopic.NAME, UUID.randomUUID(),
                List.of(new PartitionState(0, leader, epoch, List.of(1), List.of(1), 0)), Map.of(), true);
        return new MetadataImage("cluster", 1, List.of(), List.of(topic));
    }

    private TransactionCoordinator.InitResult init(int timeoutMs, long expectedPid, short expectedEpoch) {
        AtomicReference<TransactionCoordinator.InitResult> result = new AtomicReference<>();
        coordinator.initProducerId(ID, timeoutMs, expectedPid, expectedEpoch, result::set);
        assertNotNull(result.get(), "answered at once on the in-memory log");
        return result.get();
    }

    private TransactionCoordinator.InitResult init() {
        return init(10_000, -1, (short) -1);
    }

    private Errors add(long pid, short epoch, TopicPartition... partitions) {
        AtomicReference<Errors> result = new AtomicReference<>();
        coordinator.addPartitions(ID, pid, epoch, Set.of(partitions), result::set);
        return result.get();
    }

    private Errors end(long pid, short epoch, boolean commit) {
        AtomicReference<Errors> result = new AtomicReference<>();
        coordinator.endTransaction(ID, pid, epoch, commit, result::set);
        return result.get();
    }

    private Errors addImplicitly(long pid, short epoch, TopicPartition... partitions) {
        AtomicReference<Errors> result = new AtomicReference<>();
        coordinator.addPartitions(ID, pid, epoch, Set.of(partitions), true, result::set);
        return result.get();
    }

    private TransactionCoordinator.EndResult endV2(long pid, short epoch, boolean commit) {
        AtomicReference<TransactionCoordinator.EndResult> result = new AtomicReference<>();
        coordinator.endTransaction(ID, pid, epoch, commit, true, result::set);
        assertNotNull(result.get(), "answered at once on the in-memory log");
        return result.get();
    }

    /** Completes the last marker job, as the leaders acknowledging every marker. */
    private void markersWritten() {
        markers.get(markers.size() - 1).onWritten().run();
        timer.advance(0);
    }

    private String state() {
        return coordinator.describe(ID).transactionState();
    }

    private TransactionValue lastWritten() {
        List<TransactionValue> history = log.history(0, ID);
        return history.get(history.size() - 1);
    }

    @Test
    void initGivesAProducerIdAndBumpsItsEpochOnEveryInit() {
        TransactionCoordinator.InitResult first = init();
        assertEquals(new TransactionCoordinator.InitResult(Errors.NONE, 100, (short) 0), first);
        assertEquals(new TransactionCoordinator.InitResult(Errors.NONE, 100, (short) 1), init());
        assertEquals(2, log.history(0, ID).size(), "each init written");
        assertEquals("Empty", state());
    }

    @Test
    void badRequestsAndMisroutedOnesAreRefused() {
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT, init(MAX_TIMEOUT + 1, -1, (short) -1).error());
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT, init(0, -1, (short) -1).error());
        coordinator.onChange(image(NODE, COORDINATOR_EPOCH), image(2, COORDINATOR_EPOCH + 1));
        assertEquals(Errors.NOT_COORDINATOR, init().error());
        coordinator.onChange(image(2, COORDINATOR_EPOCH + 1), image(NODE, COORDINATOR_EPOCH + 2));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, init().error(), "loading on the coordinator thread");
        timer.advance(0);
        assertEquals(Errors.NONE, init().error());
    }

    @Test
    void commitWritesPrepareThenMarkersThenComplete() {
        TransactionCoordinator.InitResult pid = init();
        assertEquals(Errors.NONE, add(pid.producerId(), pid.producerEpoch(), A0));
        assertEquals(Errors.NONE, add(pid.producerId(), pid.producerEpoch(), A0), "already in: nothing written");
        assertEquals(Errors.NONE, add(pid.producerId(), pid.producerEpoch(), A1));
        assertEquals("Ongoing", state());
        assertEquals(Errors.NONE, end(pid.producerId(), pid.producerEpoch(), true));
        assertEquals("PrepareCommit", state());
        assertEquals(1, markers.size());
        MarkerWriter.Markers job = markers.get(0).markers();
        assertTrue(job.commit());
        assertEquals(Set.of(A0, A1), job.partitions());
        assertEquals(COORDINATOR_EPOCH, job.coordinatorEpoch());
        assertEquals(pid.producerEpoch(), job.producerEpoch());

        assertEquals(Errors.CONCURRENT_TRANSACTIONS, end(pid.producerId(), pid.producerEpoch(), true), "retry while prepared");
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, add(pid.producerId(), pid.producerEpoch(), A0));
        assertEquals(Errors.INVALID_TXN_STATE, end(pid.producerId(), pid.producerEpoch(), false));

        markers.get(0).onWritten().run();
        assertEquals("CompleteCommit", state());
        assertEquals(Set.of(), lastWritten().partitions());
        assertEquals(Errors.NONE, end(pid.producerId(), pid.producerEpoch(), true), "a retried commit");
        assertEquals(Errors.INVALID_TXN_STATE, end(pid.producerId(), pid.producerEpoch(), false));
        assertEquals(Errors.NONE, add(pid.producerId(), pid.producerEpoch(), A1), "the next transaction");
    }

    @Test
    void aNewProducerFencesTheOldOneAndAbortsItsOpenTransaction() {
        TransactionCoordinator.InitResult old = init();
        assertEquals(Errors.NONE, add(old.producerId(), old.producerEpoch(), A0));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, init().error(), "the open transaction is aborted first");
        assertEquals("PrepareAbort", state());
        MarkerWriter.Markers abort = markers.get(0).markers();
        assertFalse(abort.commit());
        assertEquals(old.producerEpoch() + 1, abort.producerEpoch(), "the abort carries the fencing epoch");
        assertEquals(Errors.PRODUCER_FENCED, add(old.producerId(), old.producerEpoch(), A1));
        assertEquals(Errors.PRODUCER_FENCED, end(old.producerId(), old.producerEpoch(), true));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, init().error(), "still aborting");

        markers.get(0).onWritten().run();
        assertEquals("CompleteAbort", state());
        TransactionCoordinator.InitResult next = init();
        assertEquals(Errors.NONE, next.error());
        assertEquals(old.producerId(), next.producerId());
        assertEquals(old.producerEpoch() + 2, next.producerEpoch());
    }

    @Test
    void kip360RetriesAreAnsweredTheSameAndStrangersFenced() {
        TransactionCoordinator.InitResult first = init();
        TransactionCoordinator.InitResult bumped = init(10_000, first.producerId(), first.producerEpoch());
        assertEquals(first.producerEpoch() + 1, bumped.producerEpoch());
        int written = log.history(0, ID).size();
        assertEquals(bumped, init(10_000, first.producerId(), first.producerEpoch()), "the producer missed our answer");
        assertEquals(written, log.history(0, ID).size(), "a retry writes nothing");
        assertEquals(Errors.PRODUCER_FENCED, init(10_000, first.producerId(), (short) 7).error());
        assertEquals(Errors.PRODUCER_FENCED, init(10_000, 999, bumped.producerEpoch()).error());
    }

    @Test
    void anExhaustedEpochRotatesToANewProducerId() {
        TransactionValue worn = new TransactionValue(50, -1, TransactionValue.MAX_EPOCH, (short) -1, 10_000,
                TransactionState.COMPLETE_COMMIT, Set.of(), 0, timer.milliseconds());
        log.partitions.put(0, new ArrayList<>(List.of(new CoordinatorLog.Entry(TransactionRecords.key(ID),
                TransactionRecords.value(worn)))));
        coordinator = start(NODE, COORDINATOR_EPOCH + 1);
        TransactionCoordinator.InitResult rotated = init(10_000, 50, TransactionValue.MAX_EPOCH);
        assertEquals(new TransactionCoordinator.InitResult(Errors.NONE, 100, (short) 0), rotated);
        assertEquals(50, lastWritten().previousProducerId());
        assertEquals(rotated, init(10_000, 50, TransactionValue.MAX_EPOCH), "a retry with the old id and epoch");
    }

    @Test
    void aTransactionOpenPastItsTimeoutIsFencedAndAborted() {
        TransactionCoordinator.InitResult pid = init(5_000, -1, (short) -1);
        assertEquals(Errors.NONE, add(pid.producerId(), pid.producerEpoch(), A0));
        timer.advance(4_000);
        assertTrue(markers.isEmpty(), "not yet");
        timer.advance(2_000);
        assertEquals(1, markers.size());
        assertFalse(markers.get(0).markers().commit());
        assertEquals(pid.producerEpoch() + 1, markers.get(0).markers().producerEpoch());
        markers.get(0).onWritten().run();
        assertEquals("CompleteAbort", state());
        assertEquals(Errors.PRODUCER_FENCED, end(pid.producerId(), pid.producerEpoch(), true));
    }

    @Test
    void aTransactionFoundPreparedOnLoadIsCompleted() {
        TransactionValue prepared = new TransactionValue(60, -1, (short) 3, (short) -1, 10_000,
                TransactionState.PREPARE_COMMIT, Set.of(A0), 0, timer.milliseconds());
        log.partitions.put(0, new ArrayList<>(List.of(new CoordinatorLog.Entry(TransactionRecords.key(ID),
                TransactionRecords.value(prepared)))));
        markers.clear();
        coordinator = start(NODE, COORDINATOR_EPOCH + 1);
        assertEquals(1, markers.size(), "the previous coordinator died mid-commit: its successor finishes");
        MarkerWriter.Markers job = markers.get(0).markers();
        assertTrue(job.commit());
        assertEquals(COORDINATOR_EPOCH + 1, job.coordinatorEpoch());
        assertEquals(Set.of(A0), job.partitions());
        markers.get(0).onWritten().run();
        assertEquals("CompleteCommit", state());
    }

    @Test
    void aPartitionOfKrillsLegacyLayoutIsConvertedOnLoadAndLoadsAgainFromKafkasRecordsAlone() {
        TransactionValue committed = new TransactionValue(60, -1, (short) 3, (short) 2, 10_000,
                TransactionState.COMPLETE_COMMIT, Set.of(), 0, timer.milliseconds(), -1, (byte) 2);
        TransactionValue expired = new TransactionValue(61, -1, (short) 0, (short) -1, 10_000,
                TransactionState.EMPTY, Set.of(), -1, timer.milliseconds());
        log.partitions.put(0, new ArrayList<>(List.of(
                new CoordinatorLog.Entry(LegacyTransactionRecords.key(ID), LegacyTransactionRecords.value(committed, 1)),
                new CoordinatorLog.Entry(LegacyTransactionRecords.key("gone"), LegacyTransactionRecords.value(expired, 0)),
                new CoordinatorLog.Entry(LegacyTransactionRecords.key("gone"), null))));
        coordinator = start(NODE, COORDINATOR_EPOCH + 1);
        assertEquals("CompleteCommit", state());
        List<CoordinatorLog.Entry> all = log.partitions.get(0);
        List<CoordinatorLog.Entry> rewritten = all.subList(3, all.size());
        assertEquals(3, rewritten.size(), "one record in Kafka's format and a tombstone per legacy key");
        assertEquals(new TransactionRecords.Key(ID, false),
                TransactionRecords.readKey(io.netty.buffer.Unpooled.wrappedBuffer(rewritten.get(0).key())));
        assertEquals(committed, TransactionRecords.readValue(io.netty.buffer.Unpooled.wrappedBuffer(rewritten.get(0).value())));
        for (CoordinatorLog.Entry tombstone : rewritten.subList(1, 3)) {
            assertTrue(TransactionRecords.readKey(io.netty.buffer.Unpooled.wrappedBuffer(tombstone.key())).legacy());
            assertNull(tombstone.value());
        }

        // Compaction keeps only the latest record per key: the converted record alone; it loads as before and
        // is not converted again.
        log.partitions.put(0, new ArrayList<>(List.of(rewritten.get(0))));
        coordinator = start(NODE, COORDINATOR_EPOCH + 2);
        assertEquals("CompleteCommit", state());
        assertEquals(1, log.partitions.get(0).size(), "nothing left to convert");
        TransactionCoordinator.InitResult retried = init(10_000, 60, (short) 2);
        assertEquals(new TransactionCoordinator.InitResult(Errors.NONE, 60, (short) 3), retried,
                "the epoch before the last bump survived the conversion: a retry is answered the same");
    }

    @Test
    void markersOfAResignedCoordinatorStop() {
        TransactionCoordinator.InitResult pid = init();
        add(pid.producerId(), pid.producerEpoch(), A0);
        end(pid.producerId(), pid.producerEpoch(), true);
        MarkerWriter.Markers job = markers.get(0).markers();
        assertTrue(job.wanted().getAsBoolean());
        coordinator.onChange(image(NODE, COORDINATOR_EPOCH), image(2, COORDINATOR_EPOCH + 1));
        assertFalse(job.wanted().getAsBoolean());
        int written = log.history(0, ID).size();
        markers.get(0).onWritten().run();
        assertEquals(written, log.history(0, ID).size(), "no CompleteCommit from a deposed coordinator");
    }

    @Test
    void aFailedWriteLeavesTheStateAsItWas() {
        TransactionCoordinator.InitResult pid = init();
        log.failNext = Errors.COORDINATOR_NOT_AVAILABLE;
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, add(pid.producerId(), pid.producerEpoch(), A0));
        assertEquals("Empty", state());
        assertEquals(Errors.NONE, add(pid.producerId(), pid.producerEpoch(), A0));
    }

    @Test
    void verifyTellsWhichPartitionsAreInTheOpenTransaction() {
        TransactionCoordinator.InitResult pid = init();
        assertEquals(Map.of(A0, Errors.TRANSACTION_ABORTABLE), coordinator.verify(ID, pid.producerId(),
                pid.producerEpoch(), Set.of(A0)), "no transaction open");
        add(pid.producerId(), pid.producerEpoch(), A0);
        assertEquals(Map.of(A0, Errors.NONE, A1, Errors.TRANSACTION_ABORTABLE),
                coordinator.verify(ID, pid.producerId(), pid.producerEpoch(), Set.of(A0, A1)));
        assertEquals(Map.of(A0, Errors.PRODUCER_FENCED),
                coordinator.verify(ID, pid.producerId(), (short) (pid.producerEpoch() - 1), Set.of(A0)));
        assertEquals(Map.of(A0, Errors.INVALID_PRODUCER_ID_MAPPING), coordinator.verify("other", 1, (short) 0, Set.of(A0)));
    }

    @Test
    void idleTransactionalIdsExpire() {
        init();
        timer.advance(EXPIRATION + 60_000);
        assertNull(lastWritten(), "tombstoned");
        assertEquals(Errors.TRANSACTIONAL_ID_NOT_FOUND.code(), coordinator.describe(ID).errorCode());
        assertEquals(new TransactionCoordinator.InitResult(Errors.NONE, 101, (short) 0), init(), "a fresh start");
    }

    @Test
    void listFiltersByStateProducerIdAndPattern() {
        TransactionCoordinator.InitResult pid = init();
        add(pid.producerId(), pid.producerEpoch(), A0);
        ListTransactionsResponse all = coordinator.list(Set.of(), Set.of(), -1, null);
        assertEquals(1, all.transactionStates().size());
        assertEquals("Ongoing", all.transactionStates().get(0).transactionState());
        assertEquals(0, coordinator.list(Set.of("CompleteCommit"), Set.of(), -1, null).transactionStates().size());
        assertEquals(1, coordinator.list(Set.of("ongoing"), Set.of(pid.producerId()), -1, null).transactionStates().size());
        assertEquals(0, coordinator.list(Set.of(), Set.of(7L), -1, null).transactionStates().size());
        assertEquals(0, coordinator.list(Set.of(), Set.of(), -1, java.util.regex.Pattern.compile("x.*"))
                .transactionStates().size());
        ListTransactionsResponse unknown = coordinator.list(Set.of("Bogus"), Set.of(), -1, null);
        assertEquals(List.of("Bogus"), unknown.unknownStateFilters());
        assertEquals(0, unknown.transactionStates().size());
    }

    // ------------------------------------------------------------------ transaction version 2 (KIP-890 part 2)

    @Test
    void versionTwoEndsEveryTransactionAtTheNextEpochWithMarkersOfThatEpoch() {
        TransactionCoordinator.InitResult pid = init();
        short e = pid.producerEpoch();
        assertEquals(Errors.NONE, addImplicitly(pid.producerId(), e, A0));
        TransactionCoordinator.EndResult ended = endV2(pid.producerId(), e, true);
        assertEquals(new TransactionCoordinator.EndResult(Errors.NONE, pid.producerId(), (short) (e + 1)), ended);
        MarkerWriter.Markers job = markers.get(0).markers();
        assertEquals(e + 1, job.producerEpoch(), "markers at the bumped epoch fence late writes of epoch " + e);
        assertEquals(2, job.transactionVersion());
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, addImplicitly(pid.producerId(), (short) (e + 1), A1),
                "the next transaction waits for the markers");
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, endV2(pid.producerId(), e, true).error(), "a retry while prepared");
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, endV2(pid.producerId(), (short) (e + 1), false).error(),
                "the next transaction's abort waits for the markers that gave it its epoch");
        markersWritten();
        assertEquals("CompleteCommit", state());
        assertEquals(ended, endV2(pid.producerId(), e, true), "a retry after completion is answered the same");
        assertEquals(Errors.INVALID_TXN_STATE, endV2(pid.producerId(), e, false).error(), "an abort retried as commit");

        assertEquals(Errors.PRODUCER_FENCED, addImplicitly(pid.producerId(), e, A1),
                "a late write of the ended transaction cannot open the next one");
        assertEquals(Errors.NONE, addImplicitly(pid.producerId(), (short) (e + 1), A1));
        assertEquals("Ongoing", state());
        assertEquals(Set.of(A1), lastWritten().partitions(), "the next transaction holds only its own partitions");
        assertEquals(new TransactionCoordinator.EndResult(Errors.NONE, pid.producerId(), (short) (e + 2)),
                endV2(pid.producerId(), (short) (e + 1), false));
        markersWritten();
        assertEquals("CompleteAbort", state());
    }

    @Test
    void versionTwoAbortWithoutAnOpenTransactionStillBumpsTheEpoch() {
        TransactionCoordinator.InitResult pid = init();
        short e = pid.producerEpoch();
        assertEquals(new TransactionCoordinator.EndResult(Errors.NONE, pid.producerId(), (short) (e + 1)),
                endV2(pid.producerId(), e, false));
        assertTrue(markers.get(0).markers().partitions().isEmpty());
        markersWritten();
        assertEquals("CompleteAbort", state());
        assertEquals(Errors.PRODUCER_FENCED, addImplicitly(pid.producerId(), e, A0),
                "a write in flight at the old epoch cannot open a transaction");
        assertEquals(Errors.INVALID_TXN_STATE, endV2(pid.producerId(), (short) (e + 1), true).error(),
                "nothing to commit");
    }

    @Test
    void versionTwoEndAtTheLastEpochContinuesWithANewProducerId() {
        long first = 7;
        short epoch = (short) (Short.MAX_VALUE - 3);
        // A long-lived producer near the end of its epochs, as the coordinator finds it in its log.
        log.append(0, List.of(new CoordinatorLog.Entry(TransactionRecords.key(ID), TransactionRecords.value(
                new TransactionValue(first, -1, epoch, (short) -1, 10_000, TransactionState.COMPLETE_COMMIT, Set.of(),
                        -1, 0, -1, (byte) 2)))));
        coordinator = start(NODE, COORDINATOR_EPOCH + 1);
        while (epoch < Short.MAX_VALUE - 1) {
            assertEquals(Errors.NONE, addImplicitly(first, epoch, A0));
            TransactionCoordinator.EndResult ended = endV2(first, epoch, true);
            assertEquals(new TransactionCoordinator.EndResult(Errors.NONE, first, (short) (epoch + 1)), ended);
            markersWritten();
            epoch = ended.producerEpoch();
        }
        assertEquals(Errors.NONE, addImplicitly(first, epoch, A0));
        TransactionCoordinator.EndResult rotated = endV2(first, epoch, true);
        assertEquals(Errors.NONE, rotated.error());
        assertTrue(rotated.producerId() != first, "a new producer id");
        assertEquals(0, rotated.producerEpoch());
        assertEquals(Short.MAX_VALUE, markers.get(markers.size() - 1).markers().producerEpoch(),
                "the markers still fence the old id's last epoch");
        markersWritten();
        assertEquals(rotated, endV2(first, epoch, true), "a retry with the old id is answered with the new one");
        assertEquals(Errors.NONE, addImplicitly(rotated.producerId(), (short) 0, A1));
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING, addImplicitly(first, epoch, A1));
    }

    @Test
    void aPreparedVersionTwoEndIsFinishedWithItsMarkersAfterACoordinatorMove() {
        TransactionCoordinator.InitResult pid = init();
        assertEquals(Errors.NONE, addImplicitly(pid.producerId(), pid.producerEpoch(), A0));
        assertEquals(Errors.NONE, endV2(pid.producerId(), pid.producerEpoch(), true).error());
        markers.clear();
        coordinator.onChange(image(NODE, COORDINATOR_EPOCH), image(2, COORDINATOR_EPOCH + 1));
        coordinator.onChange(image(2, COORDINATOR_EPOCH + 1), image(NODE, COORDINATOR_EPOCH + 2));
        timer.advance(0);
        assertEquals(1, markers.size(), "the new coordinator writes the markers again");
        assertEquals(pid.producerEpoch() + 1, markers.get(0).markers().producerEpoch());
        assertEquals(2, markers.get(0).markers().transactionVersion());
    }

    @Test
    void addsOfPartitionsArrivingWhileAnotherAddIsWrittenWaitForItInsteadOfBeingRefused() {
        TransactionCoordinator.InitResult pid = init();
        log.hold();
        AtomicReference<Errors> first = new AtomicReference<>();
        AtomicReference<Errors> second = new AtomicReference<>();
        coordinator.addPartitions(ID, pid.producerId(), pid.producerEpoch(), Set.of(A0), true, first::set);
        coordinator.addPartitions(ID, pid.producerId(), pid.producerEpoch(), Set.of(A1), true, second::set);
        assertNull(first.get(), "being written");
        assertNull(second.get(), "waits for the first, not CONCURRENT_TRANSACTIONS");
        assertEquals(Errors.PRODUCER_FENCED, addImplicitly(pid.producerId(), (short) (pid.producerEpoch() + 1), A1),
                "another epoch is still refused at once");
        log.release();
        timer.advance(0);
        log.release();
        timer.advance(0);
        assertEquals(Errors.NONE, first.get());
        assertEquals(Errors.NONE, second.get());
        assertEquals(Set.of(A0, A1), lastWritten().partitions());
    }

    /**
     * The loss the fault campaign found: a producer's EndTxn reached its old coordinator, cut off from the
     * cluster, whose state from before the transaction said "CompleteCommit" at the producer's epoch; it
     * answered NONE, and the transaction (opened at the new coordinator by the leaders' implicit adds) was
     * aborted later. A version 2 commit at the current epoch with nothing open is not a retry.
     */
    @Test
    void aVersionTwoCommitWithNothingOpenIsNotAcknowledgedAndAFencedCoordinatorAnswersNothing() {
        TransactionCoordinator.InitResult pid = init();
        short e = pid.producerEpoch();
        assertEquals(Errors.NONE, addImplicitly(pid.producerId(), e, A0));
        TransactionCoordinator.EndResult ended = endV2(pid.producerId(), e, true);
        markersWritten();
        short next = ended.producerEpoch();
        assertEquals(Errors.INVALID_TXN_STATE, endV2(pid.producerId(), next, true).error(),
                "a commit of the next epoch with nothing added");
        log.fenced = true;
        assertEquals(Errors.NOT_COORDINATOR, endV2(pid.producerId(), next, false).error());
        assertEquals(Errors.NOT_COORDINATOR, addImplicitly(pid.producerId(), next, A0));
        assertEquals(Errors.NOT_COORDINATOR, init().error());
        log.fenced = false;
        assertEquals(Errors.NONE, addImplicitly(pid.producerId(), next, A0));
    }
}
