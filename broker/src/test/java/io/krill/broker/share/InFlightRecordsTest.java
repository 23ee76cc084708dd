package io.krill.broker.share;

import io.krill.broker.share.dlq.DeadLetterCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.broker.share.state.StateBatch;
import java.util.List;
import org.junit.jupiter.api.Test;

class InFlightRecordsTest {
    private static final int LIMIT = 5;

    @Test
    void acquiresNewRecordsOnceAndCountsTheDelivery() {
        InFlightRecords records = new InFlightRecords(10);
        List<AcquiredRange> first = records.acquire(10, 19, 100, "a", 1_000, LIMIT, false);
        assertEquals(List.of(new AcquiredRange(10, 19, (short) 1)), first);
        assertEquals(20, records.end());
        // nobody else gets them while the lock holds
        assertEquals(List.of(), records.acquire(10, 19, 100, "b", 1_000, LIMIT, false));
        assertTrue(records.acquiredBy(12, 15, "a"));
        assertFalse(records.acquiredBy(12, 15, "b"));
        assertFalse(records.acquiredBy(18, 20, "a"));
    }

    @Test
    void acceptingMovesTheStartAndReleaseRedeliversWithAHigherCount() {
        InFlightRecords records = new InFlightRecords(0);
        records.acquire(0, 9, 100, "a", 1_000, LIMIT, false);
        records.acknowledge(0, 3, AcknowledgeType.ACCEPT, 0, LIMIT, false);
        assertEquals(4, records.start());
        records.acknowledge(4, 5, AcknowledgeType.RELEASE, 0, LIMIT, false);
        assertEquals(4, records.firstAvailable());
        List<AcquiredRange> again = records.acquire(4, 9, 100, "b", 1_000, LIMIT, false);
        assertEquals(List.of(new AcquiredRange(4, 5, (short) 2)), again, "only the released records, count 2");
        assertFalse(records.acquiredBy(4, 9, "b"), "6-9 are still a's");
    }

    @Test
    void aRecordAtTheDeliveryLimitIsArchivedInsteadOfRedelivered() {
        InFlightRecords records = new InFlightRecords(0);
        for (int delivery = 1; delivery <= 2; delivery++) {
            List<AcquiredRange> got = records.acquire(0, 0, 1, "a", 10, 2, false);
            assertEquals(List.of(new AcquiredRange(0, 0, (short) delivery)), got);
            assertEquals(1, records.release(null, 10, 2, false), "the lock ended");
        }
        assertEquals(1, records.start(), "archived after 2 deliveries: the start passed it");
        assertFalse(records.hasAvailable());
    }

    @Test
    void theBudgetSplitsARange() {
        InFlightRecords records = new InFlightRecords(0);
        assertEquals(List.of(new AcquiredRange(0, 2, (short) 1)), records.acquire(0, 9, 3, "a", 10, LIMIT, false));
        assertEquals(10, records.end(), "the read's records are known");
        assertEquals(3, records.firstAvailable());
        assertEquals(List.of(new AcquiredRange(3, 9, (short) 1)), records.acquire(0, 9, 100, "b", 10, LIMIT, false));
    }

    @Test
    void perOffsetAcknowledgementsAndTheStateToPersist() {
        InFlightRecords records = new InFlightRecords(0);
        records.acquire(0, 5, 100, "a", 10, LIMIT, false);
        records.acknowledge(1, 1, AcknowledgeType.ACCEPT, 0, LIMIT, false);
        records.acknowledge(2, 2, AcknowledgeType.REJECT, 0, LIMIT, false);
        records.acknowledge(3, 3, AcknowledgeType.GAP, 0, LIMIT, false);
        assertEquals(0, records.start());
        assertEquals(List.of(
                new StateBatch(0, 0, StateBatch.AVAILABLE, (short) 1),
                new StateBatch(1, 1, StateBatch.ACKNOWLEDGED, (short) 1),
                new StateBatch(2, 3, StateBatch.ARCHIVED, (short) 1),
                new StateBatch(4, 5, StateBatch.AVAILABLE, (short) 1)), records.toStateBatches(),
                "acquired records persist as available with their count");
        records.acknowledge(0, 0, AcknowledgeType.ACCEPT, 0, LIMIT, false);
        assertEquals(4, records.start());
    }

    @Test
    void restoreKeepsCountsAndFillsHolesAsNew() {
        InFlightRecords records = InFlightRecords.restore(100, List.of(
                new StateBatch(90, 101, StateBatch.ACKNOWLEDGED, (short) 1),
                new StateBatch(105, 106, StateBatch.AVAILABLE, (short) 3)));
        assertEquals(102, records.start(), "acknowledged records at the start are passed over");
        assertEquals(107, records.end());
        assertEquals(List.of(new AcquiredRange(102, 104, (short) 1), new AcquiredRange(105, 106, (short) 4)),
                records.acquire(102, 106, 100, "a", 10, LIMIT, false));
    }

    @Test
    void renewExtendsTheLockAndReleaseByMemberFreesOnlyItsRecords() {
        InFlightRecords records = new InFlightRecords(0);
        records.acquire(0, 4, 100, "a", 10, LIMIT, false);
        records.acquire(5, 9, 100, "b", 10, LIMIT, false);
        records.acknowledge(0, 4, AcknowledgeType.RENEW, 50, LIMIT, false);
        assertEquals(5, records.release(null, 20, LIMIT, false), "b's lock ended at 10, a's renewed to 50");
        assertTrue(records.acquiredBy(0, 4, "a"));
        assertEquals(5, records.release("a", 0, LIMIT, false));
        assertEquals(0, records.firstAvailable());
    }

    @Test
    void archivedControlBatchesAreNeverDelivered() {
        InFlightRecords records = new InFlightRecords(0);
        records.archiveAvailable(0, 0);
        assertEquals(1, records.start());
        assertEquals(List.of(new AcquiredRange(1, 3, (short) 1)), records.acquire(0, 3, 10, "a", 10, LIMIT, false));
    }

    @Test
    void withDeadLettersRejectedAndExhaustedRecordsWaitArchivingUntilTheirLettersAreWritten() {
        InFlightRecords records = new InFlightRecords(0);
        records.acquire(0, 5, 100, "a", 10, 2, true);
        records.acknowledge(0, 0, AcknowledgeType.ACCEPT, 0, 2, true);
        records.acknowledge(1, 1, AcknowledgeType.REJECT, 0, 2, true);
        records.acknowledge(2, 2, AcknowledgeType.GAP, 0, 2, true);
        records.acknowledge(3, 5, AcknowledgeType.RELEASE, 0, 2, true);
        assertEquals(1, records.start(), "an ARCHIVING record is not done: the start stays at it");
        assertEquals(List.of(
                new StateBatch(1, 1, StateBatch.ARCHIVING, (short) 1),
                new StateBatch(2, 2, StateBatch.ARCHIVED, (short) 1),
                new StateBatch(3, 5, StateBatch.AVAILABLE, (short) 1)), records.toStateBatches(),
                "a gap has no record: archived at once");
        assertEquals(List.of(new AcquiredRange(3, 5, (short) 2)), records.acquire(0, 5, 100, "b", 10, 2, true),
                "the ARCHIVING record is never delivered again");
        assertEquals(3, records.release(null, 10, 2, true), "the lock ended at the delivery limit");

        assertEquals(List.of(
                new InFlightRecords.Archiving(1, 1, (short) 1, DeadLetterCause.REJECTED),
                new InFlightRecords.Archiving(3, 5, (short) 2, DeadLetterCause.DELIVERY_COUNT_EXCEEDED)),
                records.takeArchiving());
        assertEquals(List.of(), records.takeArchiving(), "each range is taken once");
        assertTrue(records.hasArchiving());
        assertFalse(records.hasArchivingToSend());

        records.finishArchiving(3, 5);
        assertEquals(1, records.start(), "1 still waits for its letters");
        records.finishArchiving(1, 1);
        assertEquals(6, records.start(), "all done");
        assertFalse(records.hasArchiving());
    }

    @Test
    void restoredArchivingRecordsAreTakenAgainWithoutACause() {
        InFlightRecords records = InFlightRecords.restore(10, List.of(
                new StateBatch(10, 11, StateBatch.ARCHIVING, (short) 3),
                new StateBatch(12, 12, StateBatch.AVAILABLE, (short) 1)));
        assertEquals(10, records.start());
        assertEquals(List.of(new AcquiredRange(12, 12, (short) 2)), records.acquire(10, 12, 100, "a", 10, 5, true));
        assertEquals(List.of(new InFlightRecords.Archiving(10, 11, (short) 3, null)), records.takeArchiving());
    }

    @Test
    void withoutDeadLettersNothingIsArchiving() {
        InFlightRecords records = new InFlightRecords(0);
        records.acquire(0, 1, 100, "a", 10, 1, false);
        records.acknowledge(0, 0, AcknowledgeType.REJECT, 0, 1, false);
        records.acknowledge(1, 1, AcknowledgeType.RELEASE, 0, 1, false);
        assertEquals(2, records.start());
        assertEquals(List.of(), records.takeArchiving());
    }
}
