package io.krill.log.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.AppendOrigin;
import io.krill.log.InvalidProducerEpochException;
import io.krill.log.OutOfOrderSequenceException;
import io.krill.log.TransactionCoordinatorFencedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerStateManagerTest {
    @TempDir
    Path dir;

    private static void data(ProducerStateManager m, long pid, short epoch, int firstSeq, int lastSeq, long offset,
            boolean txn, AppendOrigin origin) {
        ProducerAppendInfo info = m.prepareUpdate(pid, origin);
        info.appendDataBatch(epoch, firstSeq, lastSeq, 1000 + offset, offset, offset + lastSeq - firstSeq, txn);
        m.update(info);
    }

    @Test
    void sequenceAndEpochChecks() throws IOException {
        ProducerStateManager m = new ProducerStateManager(dir, 60_000);
        data(m, 1, (short) 0, 5, 9, 0, false, AppendOrigin.CLIENT); // unknown producer: any start sequence
        data(m, 1, (short) 0, 10, 14, 5, false, AppendOrigin.CLIENT);
        assertThrows(OutOfOrderSequenceException.class, () -> data(m, 1, (short) 0, 16, 16, 10, false, AppendOrigin.CLIENT));
        assertThrows(OutOfOrderSequenceException.class, () -> data(m, 1, (short) 1, 3, 3, 10, false, AppendOrigin.CLIENT));
        data(m, 1, (short) 1, 0, 0, 10, false, AppendOrigin.CLIENT); // epoch bump at 0
        assertThrows(InvalidProducerEpochException.class, () -> data(m, 1, (short) 0, 15, 15, 11, false, AppendOrigin.CLIENT));
        data(m, 1, (short) 0, 77, 77, 11, false, AppendOrigin.REPLICATION); // replication is not checked
        ProducerStateEntry e = m.lastEntry(1).orElseThrow();
        assertEquals(77, e.lastSeq());
        // sequence wraps after Integer.MAX_VALUE
        data(m, 2, (short) 0, Integer.MAX_VALUE, Integer.MAX_VALUE, 20, false, AppendOrigin.CLIENT);
        data(m, 2, (short) 0, 0, 1, 21, false, AppendOrigin.CLIENT);
    }

    @Test
    void coordinatorDataBatchesAreFencedByEpochButCarryNoSequence() throws IOException {
        // The group coordinator's transactional offset commits: producer id and epoch, sequence -1.
        ProducerStateManager m = new ProducerStateManager(dir, 60_000);
        data(m, 4, (short) 3, -1, -1, 0, true, AppendOrigin.COORDINATOR);
        data(m, 4, (short) 3, -1, -1, 1, true, AppendOrigin.COORDINATOR);
        assertThrows(InvalidProducerEpochException.class, () -> data(m, 4, (short) 2, -1, -1, 2, true,
                AppendOrigin.COORDINATOR));
        data(m, 4, (short) 4, -1, -1, 2, true, AppendOrigin.COORDINATOR);
        assertEquals(4, m.lastEntry(4).orElseThrow().producerEpoch());
    }

    @Test
    void keepsFiveBatchesForDuplicateDetection() throws IOException {
        ProducerStateManager m = new ProducerStateManager(dir, 60_000);
        for (int i = 0; i < 7; i++) {
            data(m, 9, (short) 2, i * 10, i * 10 + 9, i * 10, false, AppendOrigin.CLIENT);
        }
        ProducerStateEntry e = m.lastEntry(9).orElseThrow();
        assertEquals(5, e.batches().size());
        assertEquals(20, e.firstSeq());
        assertEquals(50, e.findDuplicateBatch((short) 2, 50, 59).orElseThrow().firstOffset());
        assertTrue(e.findDuplicateBatch((short) 2, 10, 19).isEmpty()); // fell out of the window
        assertTrue(e.findDuplicateBatch((short) 3, 50, 59).isEmpty());
    }

    @Test
    void transactionsAndLastStableOffset() throws IOException {
        ProducerStateManager m = new ProducerStateManager(dir, 60_000);
        data(m, 1, (short) 0, 0, 0, 10, true, AppendOrigin.CLIENT);
        data(m, 2, (short) 0, 0, 0, 11, true, AppendOrigin.CLIENT);
        assertEquals(OptionalLong.of(10), m.firstUnstableOffset());
        ProducerAppendInfo marker = m.prepareUpdate(1, AppendOrigin.COORDINATOR);
        CompletedTxn txn = marker.appendEndTxnMarker(true, (short) 0, 3, 12, 2000);
        m.update(marker);
        assertEquals(new CompletedTxn(1, 10, 12, true), txn);
        assertEquals(11, m.lastStableOffset(txn)); // producer 2's open transaction
        m.completeTxn(txn);
        assertEquals(OptionalLong.of(11), m.firstUnstableOffset());
        assertEquals(3, m.lastEntry(1).orElseThrow().coordinatorEpoch());
        ProducerAppendInfo old = m.prepareUpdate(1, AppendOrigin.COORDINATOR);
        assertThrows(TransactionCoordinatorFencedException.class, () -> old.appendEndTxnMarker(false, (short) 0, 2, 13, 0));
    }

    private static CompletedTxn marker(ProducerStateManager m, long pid, AppendOrigin origin, short epoch, long offset) {
        ProducerAppendInfo info = m.prepareUpdate(pid, origin);
        CompletedTxn txn = info.appendEndTxnMarker(false, epoch, 0, offset, 0);
        m.update(info);
        m.completeTxn(txn);
        return txn;
    }

    @Test
    void aTransactionVersionTwoMarkerMustCarryABumpedEpoch() throws IOException {
        ProducerStateManager m = new ProducerStateManager(dir, 60_000);
        AppendOrigin v2 = AppendOrigin.COORDINATOR_BUMPED_EPOCH;
        data(m, 1, (short) 4, 0, 0, 0, true, AppendOrigin.CLIENT);
        assertThrows(InvalidProducerEpochException.class, () -> marker(m, 1, v2, (short) 4, 1),
                "the same epoch cannot end the transaction open at that epoch");
        assertEquals(new CompletedTxn(1, 0, 1, false), marker(m, 1, v2, (short) 5, 1));
        assertEquals(5, m.lastEntry(1).orElseThrow().producerEpoch());
        marker(m, 1, v2, (short) 5, 2); // a repeat with no transaction open: harmless
        assertThrows(OutOfOrderSequenceException.class, () -> data(m, 1, (short) 5, 4, 9, 3, true, AppendOrigin.CLIENT),
                "the epoch the marker set starts at sequence 0: a later batch overtaking the first is a gap");
        data(m, 1, (short) 5, 0, 0, 3, true, AppendOrigin.CLIENT); // the next transaction, at the bumped epoch
        assertThrows(InvalidProducerEpochException.class, () -> marker(m, 1, v2, (short) 5, 4),
                "a stale marker of the last transaction cannot end the next one");
        assertThrows(InvalidProducerEpochException.class, () -> data(m, 1, (short) 4, 1, 1, 4, true, AppendOrigin.CLIENT),
                "a late write of the ended transaction is fenced");
        assertEquals(OptionalLong.of(3), m.firstUnstableOffset());
        marker(m, 1, AppendOrigin.COORDINATOR, (short) 5, 4); // version 1 keeps the epoch
        assertEquals(OptionalLong.empty(), m.firstUnstableOffset());
    }

    @Test
    void snapshotRoundTripAndCorruptSnapshotFallback() throws IOException {
        ProducerStateManager m = new ProducerStateManager(dir, 60_000);
        data(m, 1, (short) 0, 0, 4, 0, false, AppendOrigin.CLIENT);
        data(m, 2, (short) 1, 0, 0, 5, true, AppendOrigin.CLIENT);
        m.updateMapEndOffset(6);
        m.takeSnapshot(true);
        data(m, 1, (short) 0, 5, 5, 6, false, AppendOrigin.CLIENT);
        m.updateMapEndOffset(7);
        m.takeSnapshot(true);
        var at7 = m.activeProducers();

        ProducerStateManager reloaded = new ProducerStateManager(dir, 60_000);
        assertEquals(List.of(6L, 7L), reloaded.snapshotOffsets());
        assertEquals(7, reloaded.loadFromSnapshot(100, 0));
        assertEquals(at7, reloaded.activeProducers());
        assertEquals(OptionalLong.of(5), reloaded.firstUnstableOffset());

        // A torn latest snapshot is deleted and the previous one used.
        Path latest = ProducerSnapshotFile.path(dir, 7);
        byte[] bytes = Files.readAllBytes(latest);
        Files.write(latest, java.util.Arrays.copyOf(bytes, bytes.length - 3));
        ProducerStateManager again = new ProducerStateManager(dir, 60_000);
        assertEquals(6, again.loadFromSnapshot(100, 0));
        assertFalse(Files.exists(latest));
        assertEquals(4, again.lastEntry(1).orElseThrow().lastSeq());
    }

    @Test
    void expiry() throws IOException {
        ProducerStateManager m = new ProducerStateManager(dir, 1000);
        data(m, 1, (short) 0, 0, 0, 0, false, AppendOrigin.CLIENT); // timestamp 1000
        data(m, 2, (short) 0, 0, 0, 1, true, AppendOrigin.CLIENT); // open transaction: never expires
        assertEquals(1, m.removeExpiredProducers(5000));
        assertTrue(m.lastEntry(1).isEmpty());
        assertTrue(m.lastEntry(2).isPresent());
    }
}
