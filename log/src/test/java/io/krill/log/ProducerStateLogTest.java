package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.producer.ProducerSnapshotFile;
import io.krill.log.producer.ProducerStateEntry;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Producer state, transactions and the aborted-transaction index through the partition log. */
class ProducerStateLogTest {
    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    private PartitionLog open(LogConfig cfg, boolean clean, long recoveryPoint) throws IOException {
        return PartitionLog.builder(tmp.resolve("txn-0")).config(cfg).time(time).hadCleanShutdown(clean)
                .recoveryPoint(recoveryPoint).open();
    }

    private static ByteBuf idempotent(long pid, short epoch, int seq, int n) {
        return TestBatches.batch().producer(pid, epoch, seq).records(n, 8, 1000).build();
    }

    private static ByteBuf txnData(long pid, int seq, int n) {
        return TestBatches.batch().producer(pid, (short) 0, seq).transactional().records(n, 8, 1000).build();
    }

    @Test
    void duplicatesAndSequenceErrors() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT, false, 0)) {
            AppendInfo first = log.appendAsLeader(idempotent(7, (short) 0, 0, 3), 0, AppendOrigin.CLIENT);
            assertEquals(List.of(new ProducerAppend(7, (short) 0, 0, 2, 0, 2, false)), first.producers());
            log.appendAsLeader(idempotent(8, (short) 0, 0, 2), 0, AppendOrigin.CLIENT);
            AppendInfo retry = log.appendAsLeader(idempotent(7, (short) 0, 0, 3), 0, AppendOrigin.CLIENT);
            assertTrue(retry.duplicate());
            assertEquals(0, retry.firstOffset());
            assertEquals(2, retry.lastOffset());
            assertEquals(first.maxTimestamp(), retry.logAppendTime(), "a duplicate's log append time, as Kafka's");
            assertEquals(5, log.logEndOffset());
            assertThrows(OutOfOrderSequenceException.class,
                    () -> log.appendAsLeader(idempotent(7, (short) 0, 5, 1), 0, AppendOrigin.CLIENT));
            assertEquals(5, log.logEndOffset());
            log.appendAsLeader(idempotent(7, (short) 0, 3, 1), 0, AppendOrigin.CLIENT);
            assertEquals(3, log.producerState(7).orElseThrow().lastSeq());
        }
    }

    @Test
    void markersMaintainAbortedIndexAcrossReopenRecoveryAndTruncation() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(400).build();
        List<AbortedTxn> aborted;
        Map<Long, ProducerStateEntry> producers;
        try (PartitionLog log = open(cfg, false, 0)) {
            log.appendAsLeader(txnData(1, 0, 3), 0, AppendOrigin.CLIENT); // 0..2
            log.appendAsLeader(txnData(2, 0, 2), 0, AppendOrigin.CLIENT); // 3..4
            assertEquals(OptionalLong.of(0), log.firstUnstableOffset());
            log.appendAsLeader(TestBatches.marker(1, (short) 0, false, 5, 2000), 0, AppendOrigin.COORDINATOR); // 5
            assertEquals(OptionalLong.of(3), log.firstUnstableOffset());
            log.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT); // 6..7 plain
            log.appendAsLeader(TestBatches.marker(2, (short) 0, true, 5, 2000), 0, AppendOrigin.COORDINATOR); // 8
            log.appendAsLeader(txnData(1, 3, 1), 0, AppendOrigin.CLIENT); // 9
            log.appendAsLeader(TestBatches.marker(1, (short) 0, false, 5, 2000), 0, AppendOrigin.COORDINATOR); // 10
            assertTrue(log.firstUnstableOffset().isEmpty());
            aborted = log.collectAbortedTransactions(0, 11);
            assertEquals(List.of(new AbortedTxn(1, 0, 5, 3), new AbortedTxn(1, 9, 10, 11)), aborted);
            assertEquals(List.of(new AbortedTxn(1, 9, 10, 11)), log.collectAbortedTransactions(6, 11));
            assertTrue(log.numberOfSegments() > 1);
            producers = log.activeProducers();
            assertEquals(5, producers.get(1L).coordinatorEpoch());
        }
        try (PartitionLog log = open(cfg, true, 0)) {
            assertEquals(aborted, log.collectAbortedTransactions(0, 11));
            assertEquals(producers, log.activeProducers());
        }
        // Unclean: every segment recovered, transaction indexes rebuilt from markers.
        try (PartitionLog log = open(cfg, false, 0)) {
            assertEquals(aborted, log.collectAbortedTransactions(0, 11));
            assertEquals(producers, log.activeProducers());
            log.truncateTo(10); // drop the second abort marker
            assertEquals(List.of(new AbortedTxn(1, 0, 5, 3)), log.collectAbortedTransactions(0, 11));
            assertEquals(OptionalLong.of(9), log.firstUnstableOffset());
            log.truncateTo(4);
            assertTrue(log.collectAbortedTransactions(0, 11).isEmpty());
            assertEquals(OptionalLong.of(0), log.firstUnstableOffset());
            assertFalse(log.producerState(1).orElseThrow().batches().isEmpty());
        }
    }

    @Test
    void snapshotsAtRollAndCleanShutdown() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(300).build();
        try (PartitionLog log = open(cfg, false, 0)) {
            for (int i = 0; i < 10; i++) {
                log.appendAsLeader(idempotent(3, (short) 0, i * 2, 2), 0, AppendOrigin.CLIENT);
            }
            assertTrue(log.numberOfSegments() > 2);
            for (long base : log.segmentBaseOffsets().subList(1, log.numberOfSegments())) {
                assertTrue(Files.exists(ProducerSnapshotFile.path(log.dir(), base)), "snapshot at " + base);
            }
        }
        assertTrue(Files.exists(ProducerSnapshotFile.path(tmp.resolve("txn-0"), 20)));
        try (PartitionLog log = open(cfg, true, 20)) {
            assertEquals(19, log.producerState(3).orElseThrow().lastSeq());
            // Delete every snapshot: state is rebuilt from the whole log.
        }
        try (var s = Files.list(tmp.resolve("txn-0"))) {
            for (Path p : s.toList()) {
                if (p.toString().endsWith(".snapshot")) {
                    Files.delete(p);
                }
            }
        }
        try (PartitionLog log = open(cfg, true, 20)) {
            ProducerStateEntry e = log.producerState(3).orElseThrow();
            assertEquals(19, e.lastSeq());
            assertEquals(5, e.batches().size());
        }
    }

    @Test
    void producerExpiry() throws IOException {
        try (PartitionLog log = PartitionLog.builder(tmp.resolve("exp-0")).time(time).producerIdExpirationMs(1000).open()) {
            log.appendAsLeader(TestBatches.batch().producer(4, (short) 0, 0).records(1, 1, time.milliseconds()).build(), 0,
                    AppendOrigin.CLIENT);
            log.removeExpiredProducers(time.milliseconds() + 500);
            assertTrue(log.producerState(4).isPresent());
            log.removeExpiredProducers(time.milliseconds() + 1500);
            assertTrue(log.producerState(4).isEmpty());
        }
    }
}
