package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Creating a log is a directory and one {@code .log} file; indexes create, size and map their files only
 * with their first entry, and a crash tells a legitimately absent index from a lost one.
 */
@Timeout(60)
class NewLogAndLazyIndexTest {
    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    private static Set<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return new TreeSet<>(s.map(p -> p.getFileName().toString()).toList());
        }
    }

    /** The segment files (the leader-epoch checkpoint and producer snapshots left out). */
    private static Set<String> indexAndLogFiles(Path dir) throws IOException {
        Set<String> all = files(dir);
        all.removeIf(f -> !(f.endsWith(LogFileNames.LOG) || f.endsWith(LogFileNames.INDEX)
                || f.endsWith(LogFileNames.TIME_INDEX) || f.endsWith(LogFileNames.TXN_INDEX)));
        return all;
    }

    private static String name(long base, String type) {
        return LogFileNames.prefix(base) + type;
    }

    private static ByteBuf records(int n, int valueSize, long ts) {
        return TestBatches.batch().records(n, valueSize, ts).build();
    }

    private PartitionLog open(Path dir, LogConfig cfg, boolean clean, long recoveryPoint) throws IOException {
        return PartitionLog.builder(dir).config(cfg).time(time).hadCleanShutdown(clean).recoveryPoint(recoveryPoint)
                .open();
    }

    // ------------------------------------------------------------------ creation

    @Test
    void aNewLogIsItsDirectoryAndOneLogFile() throws IOException {
        Path dir = tmp.resolve("new-0");
        try (PartitionLog log = PartitionLog.builder(dir).time(time).logStartOffset(42).open()) {
            assertTrue(log.loadStats().newDirectory(), "a directory that did not exist takes the creation path");
            assertEquals(Set.of(name(42, LogFileNames.LOG)), files(dir));
            assertEquals(42, log.logStartOffset());
            assertEquals(42, log.logEndOffset());
            assertEquals(42, log.recoveryPoint());
            LogSegment active = log.activeSegment();
            assertTrue(active.isActive());
            assertFalse(active.offsetIndex().exists());
            assertFalse(active.timeIndex().exists());
            assertFalse(active.txnIndex().exists());
            assertFalse(active.offsetIndex().isMappedForWrites(), "a new log maps nothing");
            assertFalse(active.timeIndex().isMappedForWrites());
            assertEquals(42, log.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT).firstOffset());
        }
        // Its parent is made too when missing.
        Path deep = tmp.resolve("a").resolve("b").resolve("deep-0");
        try (PartitionLog log = PartitionLog.builder(deep).time(time).open()) {
            assertTrue(log.loadStats().newDirectory());
            assertEquals(Set.of(name(0, LogFileNames.LOG)), files(deep));
        }
        // A directory that exists, even empty, is loaded (cleaned up, listed, recovered) instead.
        Path existing = Files.createDirectories(tmp.resolve("existing-0"));
        Files.write(existing.resolve(name(0, LogFileNames.INDEX + LogFileNames.DELETED)), new byte[8]);
        try (PartitionLog log = PartitionLog.builder(existing).time(time).open()) {
            assertFalse(log.loadStats().newDirectory());
            assertEquals(Set.of(name(0, LogFileNames.LOG)), files(existing), "left-overs of an existing directory go");
        }
    }

    @Test
    void logManagerCreatesLogsThatMapNothing() throws IOException {
        LogManagerConfig cfg = LogManagerConfig.builder(List.of(tmp.resolve("data"))).cleanerEnabled(false).build();
        LogManager m = new LogManager(cfg, time, t -> cfg.defaultLogConfig());
        try {
            m.startup();
            for (int p = 0; p < 20; p++) {
                PartitionLog log = m.getOrCreateLog(new TopicPartition("idle", p), cfg.defaultLogConfig());
                assertEquals(Set.of(name(0, LogFileNames.LOG)), files(log.dir()));
                assertFalse(log.activeSegment().offsetIndex().isMappedForWrites());
                assertFalse(log.activeSegment().timeIndex().isMappedForWrites());
            }
        } finally {
            m.close();
        }
        // A clean close of an empty log adds nothing but the log dir's checkpoints and marker.
        assertEquals(Set.of(name(0, LogFileNames.LOG)), files(tmp.resolve("data").resolve("idle-7")));
    }

    // ------------------------------------------------------------------ lazy indexes

    @Test
    void lookupsWithoutIndexFilesAnswerLikeEmptyIndexesAndCreateNothing() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(4096).build();
        Path dir = tmp.resolve("lazy-0");
        try (PartitionLog log = open(dir, cfg, false, 0)) {
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(records(2, 20, 1000 + i * 10), 0, AppendOrigin.CLIENT);
            }
            assertTrue(log.size() < 4096);
            for (long o = 0; o < 10; o++) {
                try (LogReadResult r = log.read(o, 1, Long.MAX_VALUE, true)) {
                    assertEquals(o - o % 2, r.firstBatchOffset(), "read at " + o);
                }
            }
            assertEquals(10, LogTestUtils.readAll(log, 0).stream().mapToLong(b -> b.lastOffset() - b.baseOffset() + 1).sum());
            assertEquals(4, log.fetchOffsetByTimestamp(1015).orElseThrow().offset());
            assertEquals(1040, log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().timestamp());
            assertEquals(0, log.fetchOffsetByTimestamp(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset());
            assertTrue(log.fetchOffsetByTimestamp(5000).isEmpty());
            assertTrue(log.collectAbortedTransactions(0, 10).isEmpty());
            log.flush();
            assertEquals(Set.of(name(0, LogFileNames.LOG)), indexAndLogFiles(dir),
                    "no lookup, read or flush created an index file");
            assertFalse(log.activeSegment().offsetIndex().isMappedForWrites());

            // Past index.interval.bytes the first entries create and map both files.
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(records(2, 200, 2000 + i), 0, AppendOrigin.CLIENT);
            }
            LogSegment active = log.activeSegment();
            assertTrue(active.offsetIndex().entries() > 0);
            assertTrue(active.offsetIndex().isMappedForWrites());
            assertTrue(active.timeIndex().isMappedForWrites());
            assertTrue(files(dir).containsAll(Set.of(name(0, LogFileNames.INDEX), name(0, LogFileNames.TIME_INDEX))));
            assertFalse(files(dir).contains(name(0, LogFileNames.TXN_INDEX)));
        }
    }

    @Test
    void aReloadedActiveSegmentMapsItsIndexesOnlyAtItsFirstAppend() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(100).build();
        Path dir = tmp.resolve("reload-0");
        try (PartitionLog log = open(dir, cfg, false, 0)) {
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(records(2, 80, time.milliseconds() + i), 0, AppendOrigin.CLIENT);
            }
        }
        try (PartitionLog log = open(dir, cfg, true, 40)) {
            LogSegment active = log.activeSegment();
            assertTrue(active.offsetIndex().entries() > 0);
            assertFalse(active.offsetIndex().isMappedForWrites(), "an idle log after a restart maps nothing for writes");
            assertFalse(active.timeIndex().isMappedForWrites());
            try (LogReadResult r = log.read(17, 1, Long.MAX_VALUE, true)) {
                assertEquals(16, r.firstBatchOffset());
            }
            assertFalse(active.offsetIndex().isMappedForWrites(), "reads map read-only, through the file cache");
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(records(2, 80, time.milliseconds() + 100 + i), 0, AppendOrigin.CLIENT);
            }
            assertEquals(1, log.numberOfSegments());
            assertTrue(active.offsetIndex().isMappedForWrites());
            for (long o = 0; o < log.logEndOffset(); o++) {
                try (LogReadResult r = log.read(o, 1, Long.MAX_VALUE, true)) {
                    assertEquals(o - o % 2, r.firstBatchOffset(), "read at " + o);
                }
            }
        }
    }

    @Test
    void theTransactionIndexAppearsWithTheFirstAbort() throws IOException {
        Path dir = tmp.resolve("txn-0");
        try (PartitionLog log = open(dir, LogConfig.DEFAULT, false, 0)) {
            log.appendAsLeader(TestBatches.batch().producer(1, (short) 0, 0).transactional().records(2, 8, 1000).build(), 0,
                    AppendOrigin.CLIENT);
            log.appendAsLeader(TestBatches.marker(1, (short) 0, true, 3, 1001), 0, AppendOrigin.COORDINATOR);
            assertFalse(files(dir).contains(name(0, LogFileNames.TXN_INDEX)), "a commit writes no transaction index");
            log.appendAsLeader(TestBatches.batch().producer(1, (short) 0, 2).transactional().records(2, 8, 1002).build(), 0,
                    AppendOrigin.CLIENT);
            log.appendAsLeader(TestBatches.marker(1, (short) 0, false, 3, 1003), 0, AppendOrigin.COORDINATOR);
            assertTrue(files(dir).contains(name(0, LogFileNames.TXN_INDEX)));
            assertEquals(List.of(new AbortedTxn(1, 3, 5, 6)), log.collectAbortedTransactions(0, 6));
        }
    }

    // ------------------------------------------------------------------ crash behaviour

    /**
     * Segments that never wrote an offset index entry (each less than index.interval.bytes) roll without
     * an index file; after a crash past them they are trusted as they are: nothing rebuilt, no file made.
     */
    @Test
    void segmentsWithoutIndexEntriesAreNotRebuiltAfterACrash() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(1024).indexIntervalBytes(4096).build();
        Path dir = tmp.resolve("small-0");
        PartitionLog crashed = open(dir, cfg, false, 0);
        for (int i = 0; i < 40; i++) {
            crashed.appendAsLeader(records(2, 60, 1000 + i), 0, AppendOrigin.CLIENT);
        }
        crashed.flush();
        List<Long> bases = crashed.segmentBaseOffsets();
        assertTrue(bases.size() > 3, "segments " + bases);
        long recoveryPoint = crashed.recoveryPoint();
        assertEquals(bases.get(bases.size() - 1), recoveryPoint);
        List<LogTestUtils.ReadBatch> written = LogTestUtils.readAll(crashed, 0);
        crashed.closeHandles(); // the process dies
        for (long base : bases) {
            assertFalse(Files.exists(dir.resolve(name(base, LogFileNames.INDEX))), "no index file for " + base);
            boolean rolled = base != recoveryPoint;
            assertEquals(rolled, Files.exists(dir.resolve(name(base, LogFileNames.TIME_INDEX))),
                    "a rolled segment has its final time index entry: " + base);
        }
        try (PartitionLog log = open(dir, cfg, false, recoveryPoint)) {
            assertEquals(0, log.loadStats().rebuiltIndexes(), "nothing was lost, nothing is rebuilt");
            assertEquals(1, log.loadStats().recoveredSegments());
            for (long base : bases) {
                assertFalse(Files.exists(dir.resolve(name(base, LogFileNames.INDEX))), "still no index file for " + base);
                assertFalse(log.segmentMap().get(base).needsIndexRebuild());
            }
            assertReads(log, written);
            assertEquals(1000, log.fetchOffsetByTimestamp(1000).orElseThrow().timestamp());
            assertEquals(1039, log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().timestamp());
        }
        // The same after a clean shutdown.
        try (PartitionLog log = open(dir, cfg, true, 80)) {
            assertEquals(0, log.loadStats().rebuiltIndexes());
            assertReads(log, written);
        }
    }

    /** An index that is really missing although entries were due is rebuilt as before. */
    @Test
    void lostIndexesAreStillRebuilt() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(3000).indexIntervalBytes(100).build();
        Path original = tmp.resolve("orig-0");
        List<LogTestUtils.ReadBatch> written;
        List<Long> bases;
        try (PartitionLog log = open(original, cfg, false, 0)) {
            for (int i = 0; i < 60; i++) {
                log.appendAsLeader(records(2, 80, 1000 + i), 0, AppendOrigin.CLIENT);
            }
            written = LogTestUtils.readAll(log, 0);
            bases = log.segmentBaseOffsets();
        }
        assertTrue(bases.size() >= 3, "segments " + bases);
        long victim = bases.get(1);
        for (String type : new String[] {LogFileNames.INDEX, LogFileNames.TIME_INDEX}) {
            Path dir = tmp.resolve("lost" + type.substring(1) + "-0");
            Files.createDirectories(dir);
            for (String f : files(original)) {
                Files.copy(original.resolve(f), dir.resolve(f));
            }
            byte[] before = Files.readAllBytes(dir.resolve(name(victim, type)));
            assertTrue(before.length > 0);
            Files.delete(dir.resolve(name(victim, type)));
            try (PartitionLog log = open(dir, cfg, true, written.get(written.size() - 1).lastOffset() + 1)) {
                assertEquals(1, log.loadStats().rebuiltIndexes(), type);
                assertArrayEquals(before, Files.readAllBytes(dir.resolve(name(victim, type))), type + " rebuilt as it was");
                assertReads(log, written);
                assertEquals(1000 + 25, log.fetchOffsetByTimestamp(1000 + 25).orElseThrow().timestamp(), type);
            }
        }
        // A tiny segment (below index.interval.bytes) that lost its time index: rebuilt too (it had its final entry).
        Path tiny = tmp.resolve("tiny-0");
        try (PartitionLog log = open(tiny, LogConfig.builder().indexIntervalBytes(4096).build(), false, 0)) {
            log.appendAsLeader(records(1, 10, 1234), 0, AppendOrigin.CLIENT);
            log.roll();
            log.appendAsLeader(records(1, 10, 1235), 0, AppendOrigin.CLIENT);
        }
        Files.delete(tiny.resolve(name(0, LogFileNames.TIME_INDEX)));
        try (PartitionLog log = open(tiny, LogConfig.builder().indexIntervalBytes(4096).build(), true, 2)) {
            assertEquals(1, log.loadStats().rebuiltIndexes());
            assertEquals(0, log.fetchOffsetByTimestamp(1234).orElseThrow().offset());
            assertTrue(Files.exists(tiny.resolve(name(0, LogFileNames.TIME_INDEX))));
        }
    }

    /**
     * Segments that could have had an entry but did not (one batch larger than the interval), and segments
     * whose batches carry no timestamp, leave empty index files when they become inactive: the next load
     * can tell them from lost ones.
     */
    @Test
    void indexesWithoutEntriesThatCouldHaveHadOneLeaveEmptyFiles() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(100).build();
        Path dir = tmp.resolve("empty-0");
        PartitionLog crashed = open(dir, cfg, false, 0);
        crashed.appendAsLeader(records(1, 500, 1000), 0, AppendOrigin.CLIENT); // one batch: no entry due
        crashed.roll();
        crashed.appendAsLeader(records(2, 10, -1), 0, AppendOrigin.CLIENT); // no timestamp
        crashed.roll();
        crashed.appendAsLeader(records(1, 10, 2000), 0, AppendOrigin.CLIENT);
        crashed.flush();
        long recoveryPoint = crashed.recoveryPoint();
        assertEquals(3, recoveryPoint);
        crashed.closeHandles();
        assertEquals(0, Files.size(dir.resolve(name(0, LogFileNames.INDEX))), "one large batch: an empty offset index");
        assertTrue(Files.size(dir.resolve(name(0, LogFileNames.TIME_INDEX))) > 0);
        assertFalse(Files.exists(dir.resolve(name(1, LogFileNames.INDEX))), "too small for an entry: no file");
        assertEquals(0, Files.size(dir.resolve(name(1, LogFileNames.TIME_INDEX))), "no timestamp: an empty time index");
        try (PartitionLog log = open(dir, cfg, false, recoveryPoint)) {
            assertEquals(0, log.loadStats().rebuiltIndexes());
            assertEquals(4, log.logEndOffset());
            assertEquals(0, log.fetchOffsetByTimestamp(1000).orElseThrow().offset());
            try (LogReadResult r = log.read(2, 1, Long.MAX_VALUE, true)) {
                assertEquals(1, r.firstBatchOffset());
            }
        }
    }

    // ------------------------------------------------------------------ renames and deletions

    @Test
    void segmentsWithoutIndexFilesRollTruncateAndDelete() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(600).indexIntervalBytes(4096).build();
        Path dir = tmp.resolve("del-0");
        try (PartitionLog log = open(dir, cfg, false, 0)) {
            for (int i = 0; i < 30; i++) {
                log.appendAsLeader(records(2, 40, 1000 + i), 0, AppendOrigin.CLIENT);
            }
            List<Long> bases = log.segmentBaseOffsets();
            assertTrue(bases.size() > 4, "segments " + bases);
            assertFalse(files(dir).stream().anyMatch(f -> f.endsWith(LogFileNames.INDEX)));
            // DeleteRecords: segments renamed to .deleted and deleted (the scheduler runs it at once)
            long start = bases.get(2);
            assertEquals(start, log.deleteRecordsBefore(start));
            assertEquals(bases.subList(2, bases.size()), log.segmentBaseOffsets());
            // follower truncation into an older segment: later segments go, that one becomes active
            long target = bases.get(3) + 2; // a batch boundary (batches hold two records)
            assertTrue(log.truncateTo(target));
            assertEquals(target, log.logEndOffset());
            log.appendAsLeader(records(2, 40, 5000), 0, AppendOrigin.CLIENT);
            log.truncateFullyAndStartAt(500);
            log.appendAsLeader(records(2, 40, 6000), 0, AppendOrigin.CLIENT);
            Set<String> left = files(dir);
            assertFalse(left.stream().anyMatch(f -> f.endsWith(LogFileNames.DELETED)), "left " + left);
            assertTrue(left.contains(name(500, LogFileNames.LOG)), "left " + left);
            assertFalse(left.stream().anyMatch(f -> f.endsWith(LogFileNames.LOG) && !f.equals(name(500, LogFileNames.LOG))),
                    "left " + left);
        }
        try (PartitionLog log = open(dir, cfg, true, 502)) {
            assertEquals(500, log.logStartOffset());
            assertEquals(502, log.logEndOffset());
            assertEquals(0, log.loadStats().rebuiltIndexes());
        }
        // Through the log manager: a log with segments lacking index files is deleted whole.
        LogManagerConfig mcfg = LogManagerConfig.builder(List.of(tmp.resolve("data"))).cleanerEnabled(false).build();
        LogManager m = new LogManager(mcfg, time, t -> cfg);
        try {
            m.startup();
            TopicPartition tp = new TopicPartition("gone", 0);
            PartitionLog log = m.getOrCreateLog(tp, cfg);
            for (int i = 0; i < 10; i++) {
                log.appendAsLeader(records(2, 40, 1000 + i), 0, AppendOrigin.CLIENT);
            }
            m.deleteLog(tp);
            assertTrue(m.getLog(tp).isEmpty());
            assertFalse(Files.exists(tmp.resolve("data").resolve(tp.dirName())));
        } finally {
            m.close();
        }
    }

    /**
     * A roll in an existing directory deletes stale files with the new segment's names: a stray index of
     * an earlier segment with the same base is never taken for the new one's (which has no file yet).
     */
    @Test
    void aStrayIndexFileIsNotTakenForANewSegments() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(4096).build();
        Path dir = tmp.resolve("stray-0");
        try (PartitionLog log = open(dir, cfg, false, 0)) {
            log.appendAsLeader(records(2, 10, 1000), 0, AppendOrigin.CLIENT);
            ByteBuffer stray = ByteBuffer.allocate(4 * OffsetIndex.ENTRY_SIZE);
            for (int i = 0; i < 4; i++) {
                stray.putInt(i + 1).putInt(i * 10 + 1);
            }
            Files.write(dir.resolve(name(2, LogFileNames.INDEX)), stray.array());
            Files.write(dir.resolve(name(2, LogFileNames.TXN_INDEX)), new byte[TransactionIndex.ENTRY_SIZE]);
            log.roll();
            log.appendAsLeader(records(2, 10, 1001), 0, AppendOrigin.CLIENT);
            log.appendAsLeader(records(2, 10, 1002), 0, AppendOrigin.CLIENT);
            assertEquals(0, log.activeSegment().offsetIndex().entries());
            assertFalse(Files.exists(dir.resolve(name(2, LogFileNames.INDEX))), "the stray index was deleted");
            assertFalse(Files.exists(dir.resolve(name(2, LogFileNames.TXN_INDEX))));
        }
        try (PartitionLog log = open(dir, cfg, true, 6)) {
            assertEquals(0, log.loadStats().rebuiltIndexes());
            assertEquals(0, log.activeSegment().offsetIndex().entries());
            assertTrue(log.collectAbortedTransactions(0, 6).isEmpty());
            for (long o = 0; o < 6; o++) {
                try (LogReadResult r = log.read(o, 1, Long.MAX_VALUE, true)) {
                    assertEquals(o - o % 2, r.firstBatchOffset(), "read at " + o);
                }
            }
        }
    }

    /** A compaction swap of a cleaned segment without index entries renames all its files (the loader needs them). */
    @Test
    void aCleanedSegmentWithoutIndexEntriesSwapsAllItsFiles() throws IOException {
        LogConfig cfg = LogConfig.builder().cleanupPolicy("compact").segmentBytes(400).indexIntervalBytes(1 << 20).build();
        Path dir = tmp.resolve("compact-0");
        try (PartitionLog log = open(dir, cfg, false, 0)) {
            for (int i = 0; i < 30; i++) {
                log.appendAsLeader(TestBatches.batch().add("k" + (i % 3), "v" + i, 1000 + i).build(), 0, AppendOrigin.CLIENT);
            }
            assertTrue(log.numberOfSegments() > 3);
            try (Cleaner c = new Cleaner(1 << 20, 4096, time)) {
                c.clean(log, 0);
            }
            long first = log.segmentBaseOffsets().get(0);
            Set<String> names = files(dir);
            for (String type : new String[] {LogFileNames.LOG, LogFileNames.INDEX, LogFileNames.TIME_INDEX,
                    LogFileNames.TXN_INDEX}) {
                assertTrue(names.contains(name(first, type)), type + " of the cleaned segment in " + names);
            }
            assertFalse(names.stream().anyMatch(f -> f.endsWith(LogFileNames.SWAP) || f.endsWith(LogFileNames.CLEANED)),
                    "left " + names);
        }
    }

    private static void assertReads(PartitionLog log, List<LogTestUtils.ReadBatch> written) throws IOException {
        List<LogTestUtils.ReadBatch> read = LogTestUtils.readAll(log, 0);
        assertEquals(written.size(), read.size());
        List<Long> firsts = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            assertArrayEquals(written.get(i).bytes(), read.get(i).bytes(), "batch " + i);
            firsts.add(written.get(i).baseOffset());
        }
        for (LogTestUtils.ReadBatch b : written) {
            try (LogReadResult r = log.read(b.lastOffset(), 1, Long.MAX_VALUE, true)) {
                assertEquals(b.baseOffset(), r.firstBatchOffset(), "read at " + b.lastOffset());
            }
        }
    }
}
