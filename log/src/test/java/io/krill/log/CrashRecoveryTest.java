package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.epoch.EpochEntry;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Torn writes and garbage at the tail of a segment, and corrupt indexes: recovery keeps exactly the
 * longest valid prefix and rebuilt indexes answer like the originals.
 */
class CrashRecoveryTest {
    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    /** The original log: ~40 batches of varying size in one segment; returns the batches in order. */
    private List<LogTestUtils.ReadBatch> writeOriginal(Path dir, LogConfig cfg, int batches, long seed) throws IOException {
        Random random = new Random(seed);
        try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).open()) {
            for (int i = 0; i < batches; i++) {
                int n = 1 + random.nextInt(4);
                int epoch = i / 10;
                ByteBuf b = TestBatches.batch().records(n, 1 + random.nextInt(200), 1000 + i).build();
                log.appendAsLeader(b, epoch, AppendOrigin.CLIENT);
            }
            return LogTestUtils.readAll(log, 0);
        }
    }

    private static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path f : s.toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void cutAndAppend(Path file, long cut, byte[] garbage) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(cut);
            ch.write(ByteBuffer.wrap(garbage), cut);
        }
    }

    private static byte[] garbage(int kind, Random random, byte[] sampleBatch) {
        return switch (kind) {
            case 0 -> new byte[0];
            case 1 -> { // zeros, as a crash with preallocated or lost pages leaves
                yield new byte[1 + random.nextInt(300)];
            }
            case 2 -> { // random bytes
                byte[] g = new byte[1 + random.nextInt(300)];
                random.nextBytes(g);
                yield g;
            }
            default -> { // a plausible batch with one flipped record byte: the CRC fails
                byte[] g = sampleBatch.clone();
                g[g.length - 1] ^= 0x5a;
                yield g;
            }
        };
    }

    @Test
    void recoveryKeepsTheLongestValidPrefixAtEveryKindOfCut() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(150).build();
        Path original = tmp.resolve("orig-0");
        List<LogTestUtils.ReadBatch> batches = writeOriginal(original, cfg, 30, 42);
        Path logFile = original.resolve(LogFileNames.prefix(0) + LogFileNames.LOG);
        long size = Files.size(logFile);
        byte[] originalBytes = Files.readAllBytes(logFile);
        TreeSet<Long> cuts = new TreeSet<>();
        long pos = 0;
        for (LogTestUtils.ReadBatch b : batches) {
            int len = b.bytes().length;
            for (long d : new long[] {0, 1, 7, 11, 12, 13, 30, 60, 61, 62, len / 2, len - 1}) {
                if (d >= 0 && d < len) {
                    cuts.add(pos + d);
                }
            }
            pos += len;
        }
        cuts.add(size);
        assertEquals(size, pos);
        Random random = new Random(7);
        int run = 0;
        for (long cut : cuts) {
            int kind = run % 4;
            Path dir = tmp.resolve("cut" + run++ + "-0");
            copyDir(original, dir);
            byte[] junk = garbage(kind, random, batches.get(0).bytes());
            if (junk.length > 0 && cut < size && junk[0] == originalBytes[(int) cut]) {
                junk[0] ^= (byte) 0xff; // garbage that happened to complete the torn batch would be valid data
            }
            cutAndAppend(dir.resolve(logFile.getFileName()), cut, junk);
            // Expected: the batches ending at or before the cut.
            List<LogTestUtils.ReadBatch> expected = new ArrayList<>();
            long end = 0;
            for (LogTestUtils.ReadBatch b : batches) {
                if (end + b.bytes().length > cut) {
                    break;
                }
                end += b.bytes().length;
                expected.add(b);
            }
            long expectedLeo = expected.isEmpty() ? 0 : expected.get(expected.size() - 1).lastOffset() + 1;
            try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).hadCleanShutdown(false).open()) {
                String what = "cut at " + cut + " garbage kind " + kind;
                assertEquals(expectedLeo, log.logEndOffset(), what);
                assertEquals(end, log.size(), what);
                List<LogTestUtils.ReadBatch> got = LogTestUtils.readAll(log, 0);
                assertEquals(expected.size(), got.size(), what);
                for (int i = 0; i < got.size(); i++) {
                    assertArrayEquals(expected.get(i).bytes(), got.get(i).bytes(), what);
                }
                for (LogTestUtils.ReadBatch b : expected) {
                    for (long o = b.baseOffset(); o <= b.lastOffset(); o++) {
                        try (LogReadResult r = log.read(o, 1, Long.MAX_VALUE, true)) {
                            assertEquals(b.baseOffset(), r.firstBatchOffset(), what + " read at " + o);
                        }
                    }
                }
                // Leader epochs follow the surviving data.
                for (EpochEntry e : log.leaderEpochCache().entries()) {
                    assertTrue(e.startOffset() < Math.max(expectedLeo, 1), what + " epoch " + e);
                }
                // The log takes appends right after the valid prefix.
                log.appendAsLeader(TestBatches.records(), 9, AppendOrigin.CLIENT);
                assertEquals(expectedLeo + 2, log.logEndOffset(), what);
            }
        }
    }

    @Test
    void corruptionInAnOlderSegmentDropsEverythingAfterIt() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(1000).build();
        Path dir = tmp.resolve("multi-0");
        List<LogTestUtils.ReadBatch> batches = writeOriginal(dir, cfg, 40, 3);
        List<Long> bases;
        try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).hadCleanShutdown(true).open()) {
            bases = log.segmentBaseOffsets();
        }
        assertTrue(bases.size() > 3);
        long victim = bases.get(2);
        Path victimFile = dir.resolve(LogFileNames.prefix(victim) + LogFileNames.LOG);
        long victimSize = Files.size(victimFile);
        // Flip a byte in the middle of the victim segment.
        try (FileChannel ch = FileChannel.open(victimFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, victimSize / 2);
            one.put(0, (byte) (one.get(0) ^ 0xff)).rewind();
            ch.write(one, victimSize / 2);
        }
        try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).hadCleanShutdown(false)
                .recoveryPoint(bases.get(1)).open()) {
            assertEquals(3, log.numberOfSegments());
            List<LogTestUtils.ReadBatch> got = LogTestUtils.readAll(log, 0);
            assertTrue(got.size() < batches.size());
            for (int i = 0; i < got.size(); i++) {
                assertArrayEquals(batches.get(i).bytes(), got.get(i).bytes());
            }
            assertEquals(got.get(got.size() - 1).lastOffset() + 1, log.logEndOffset());
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertTrue(s.noneMatch(p -> LogFileNames.offsetOf(p.getFileName().toString()) > victim
                    && p.toString().endsWith(".log")));
        }
    }

    /**
     * kill -9 leaves the active segment's indexes preallocated (their entries, then zeros). Recovery treats
     * that as ordinary work on a segment after the recovery point: the entries come back as the log
     * dictates, nothing is reported corrupt, the recovery point stays where the checkpoint had it (nothing
     * is fsynced by the load), and appends continue at the LEO.
     */
    /**
     * Leader epochs are written to their checkpoint lazily (no fsync per leadership): after a crash the
     * entries past the recovery point come back from the recovered batches, and those below it were
     * written before the recovery point moved. An epoch that no batch carries may be lost, nothing else.
     */
    @Test
    void leaderEpochsSurviveACrashWithoutAFsyncPerLeadership() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(1024).build();
        Path dir = tmp.resolve("epochs-0");
        PartitionLog crashed = PartitionLog.builder(dir).config(cfg).time(time).open();
        List<EpochEntry> expected = new ArrayList<>();
        int epoch = 0;
        for (int round = 0; round < 6; round++) {
            epoch++;
            crashed.assignLeaderEpochStart(epoch);
            expected.add(new EpochEntry(epoch, crashed.logEndOffset()));
            for (int i = 0; i < 4; i++) {
                crashed.appendAsLeader(TestBatches.batch().records(2, 100, 1000 + i).build(), epoch, AppendOrigin.CLIENT);
            }
            if (round == 3) {
                crashed.flush(); // segments roll every few batches: the recovery point moves past epochs 1-4
            }
        }
        crashed.assignLeaderEpochStart(epoch + 1); // a leadership that appended nothing: lost (no batch has it)
        long recoveryPoint = crashed.recoveryPoint();
        long leo = crashed.logEndOffset();
        assertTrue(recoveryPoint > expected.get(2).startOffset(), "recovery point " + recoveryPoint);
        crashed.closeHandles(); // the process dies: nothing written since the flush

        try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).recoveryPoint(recoveryPoint)
                .hadCleanShutdown(false).open()) {
            assertEquals(leo, log.logEndOffset());
            assertTrue(log.loadStats().recoveredSegments() < log.numberOfSegments(), "only segments past the recovery point"
                    + " are read again");
            assertEquals(expected, log.leaderEpochCache().entries());
            log.assignLeaderEpochStart(epoch + 2);
            log.appendAsLeader(TestBatches.batch().records(2, 100, 2000).build(), epoch + 2, AppendOrigin.CLIENT);
            expected.add(new EpochEntry(epoch + 2, leo));
        }
        // a clean close writes them (the load keeps no recovery scan: they come from the file)
        try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).recoveryPoint(leo + 2)
                .hadCleanShutdown(true).open()) {
            assertEquals(expected, log.leaderEpochCache().entries());
        }
    }

    @Test
    void preallocatedIndexesOfACrashedActiveSegmentAreRecomputed() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(100).build();
        long preallocated = (long) (cfg.segmentIndexBytes() / OffsetIndex.ENTRY_SIZE) * OffsetIndex.ENTRY_SIZE;
        for (int batches : new int[] {0, 1, 40}) {
            Path dir = tmp.resolve("prealloc" + batches + "-0");
            List<OffsetIndex.OffsetPosition> entriesBefore = new ArrayList<>();
            List<LogTestUtils.ReadBatch> written;
            int entriesAtClose;
            PartitionLog crashed = PartitionLog.builder(dir).config(cfg).time(time).open();
            for (int i = 0; i < batches; i++) {
                crashed.appendAsLeader(TestBatches.batch().records(2, 80, 1000 + i).build(), 3, AppendOrigin.CLIENT);
            }
            written = LogTestUtils.readAll(crashed, 0);
            OffsetIndex activeIndex = crashed.activeSegment().offsetIndex();
            for (int i = 0; i < activeIndex.entries(); i++) {
                entriesBefore.add(activeIndex.entry(i));
            }
            long leo = crashed.logEndOffset();
            crashed.closeHandles(); // the process dies: no trim, no flush, no snapshot
            Path indexFile = dir.resolve(LogFileNames.prefix(0) + LogFileNames.INDEX);
            assertEquals(batches > 10, !entriesBefore.isEmpty(), "entries " + entriesBefore);
            if (entriesBefore.isEmpty()) {
                assertFalse(Files.exists(indexFile), "no entry was written: no index file");
            } else {
                assertEquals(preallocated, Files.size(indexFile));
            }

            try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).recoveryPoint(0)
                    .hadCleanShutdown(false).open()) {
                String what = batches + " batches";
                assertEquals(leo, log.logEndOffset(), what);
                assertEquals(0, log.recoveryPoint(), what + ": recovery point unchanged by the load");
                assertEquals(1, log.loadStats().recoveredSegments(), what);
                assertEquals(0, log.loadStats().truncatedBytes(), what);
                LogSegment active = log.activeSegment();
                assertTrue(!active.needsIndexRebuild(), what);
                OffsetIndex index = active.offsetIndex();
                assertEquals(entriesBefore.size(), index.entries(), what);
                for (int i = 0; i < entriesBefore.size(); i++) {
                    assertEquals(entriesBefore.get(i), index.entry(i), what + " entry " + i);
                }
                List<LogTestUtils.ReadBatch> read = LogTestUtils.readAll(log, 0);
                assertEquals(written.size(), read.size(), what);
                for (int i = 0; i < written.size(); i++) {
                    assertEquals(written.get(i).baseOffset(), read.get(i).baseOffset(), what);
                    assertArrayEquals(written.get(i).bytes(), read.get(i).bytes(), what);
                }
                for (LogTestUtils.ReadBatch b : written) {
                    try (LogReadResult r = log.read(b.lastOffset(), 1, Long.MAX_VALUE, true)) {
                        assertEquals(b.baseOffset(), r.firstBatchOffset(), what + " read at " + b.lastOffset());
                    }
                }
                if (batches > 0) {
                    assertEquals(1000 + batches - 1,
                            log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().timestamp(), what);
                }
                AppendInfo next = log.appendAsLeader(TestBatches.records(), 4, AppendOrigin.CLIENT);
                assertEquals(leo, next.firstOffset(), what + ": appends continue at the LEO");
                assertEquals(leo + 2, log.logEndOffset(), what);
                assertEquals(List.of(0L), log.segmentBaseOffsets(), what + ": in the recovered segment");
                entriesAtClose = log.activeSegment().offsetIndex().entries();
            }
            // The clean close after it trims the index and moves the recovery point to the LEO (an index
            // without entries has a file only once the segment could have had one, see LogSegment).
            if (batches == 0) {
                assertFalse(Files.exists(indexFile), "an empty segment has no index file");
            } else {
                assertTrue(entriesAtClose >= entriesBefore.size(), batches + " batches");
                assertEquals((long) entriesAtClose * OffsetIndex.ENTRY_SIZE, Files.size(indexFile),
                        batches + " batches");
            }
            try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).recoveryPoint(leo + 2)
                    .hadCleanShutdown(true).open()) {
                assertEquals(leo + 2, log.logEndOffset());
                assertEquals(leo + 2, log.recoveryPoint());
                assertEquals(0, log.loadStats().recoveredSegments());
            }
        }
    }

    @Test
    void corruptIndexesAreRebuiltNotTrusted() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(3000).indexIntervalBytes(100).build();
        Path original = tmp.resolve("idx-0");
        List<LogTestUtils.ReadBatch> batches = writeOriginal(original, cfg, 60, 11);
        List<Long> bases;
        try (PartitionLog log = PartitionLog.builder(original).config(cfg).time(time).hadCleanShutdown(true).open()) {
            bases = log.segmentBaseOffsets();
        }
        assertTrue(bases.size() >= 3, "segments " + bases);
        String[] corruptions = {"wrong-size", "non-monotonic", "beyond-segment", "missing", "zeros", "time-non-monotonic",
                "time-missing"};
        int run = 0;
        for (String corruption : corruptions) {
            for (long base : List.of(bases.get(0), bases.get(bases.size() - 1))) {
                Path dir = tmp.resolve("idx" + run++ + "-0");
                copyDir(original, dir);
                Path index = dir.resolve(LogFileNames.prefix(base) + LogFileNames.INDEX);
                Path timeIndex = dir.resolve(LogFileNames.prefix(base) + LogFileNames.TIME_INDEX);
                corrupt(corruption, index, timeIndex);
                try (PartitionLog log = PartitionLog.builder(dir).config(cfg).time(time).hadCleanShutdown(true).open()) {
                    String what = corruption + " in segment " + base;
                    List<LogTestUtils.ReadBatch> got = LogTestUtils.readAll(log, 0);
                    assertEquals(batches.size(), got.size(), what);
                    for (LogTestUtils.ReadBatch b : batches) {
                        for (long o = b.baseOffset(); o <= b.lastOffset(); o++) {
                            try (LogReadResult r = log.read(o, 1, Long.MAX_VALUE, true)) {
                                assertEquals(b.baseOffset(), r.firstBatchOffset(), what + " read at " + o);
                            }
                        }
                    }
                    assertEquals(1000 + 59, log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().timestamp(), what);
                    for (int i = 0; i < 60; i += 7) {
                        long ts = 1000 + i;
                        LogTestUtils.ReadBatch expect = batches.get(i);
                        assertEquals(expect.baseOffset(), log.fetchOffsetByTimestamp(ts).orElseThrow().offset(), what + " ts " + ts);
                    }
                }
            }
        }
    }

    private static void corrupt(String how, Path index, Path timeIndex) throws IOException {
        switch (how) {
            case "wrong-size" -> Files.write(index, new byte[] {1, 2, 3}, StandardOpenOption.APPEND);
            case "non-monotonic" -> swapEntries(index, 8);
            case "beyond-segment" -> {
                try (FileChannel ch = FileChannel.open(index, StandardOpenOption.WRITE)) {
                    ByteBuffer e = ByteBuffer.allocate(8).putInt(1_000_000).putInt(1 << 30).flip();
                    ch.write(e, ch.size());
                }
            }
            case "missing" -> Files.delete(index);
            case "zeros" -> {
                long size = Files.size(index);
                Files.write(index, new byte[(int) Math.max(size, 16)]);
            }
            case "time-non-monotonic" -> swapEntries(timeIndex, 12);
            case "time-missing" -> Files.delete(timeIndex);
            default -> throw new IllegalArgumentException(how);
        }
    }

    private static void swapEntries(Path file, int entrySize) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        assertTrue(bytes.length >= entrySize, file + " has " + bytes.length + " bytes");
        if (bytes.length < 2 * entrySize) { // one entry: repeat it, which is just as non-monotonic
            byte[] twice = java.util.Arrays.copyOf(bytes, 2 * entrySize);
            System.arraycopy(bytes, 0, twice, entrySize, entrySize);
            Files.write(file, twice);
            return;
        }
        byte[] first = java.util.Arrays.copyOfRange(bytes, 0, entrySize);
        System.arraycopy(bytes, entrySize, bytes, 0, entrySize);
        System.arraycopy(first, 0, bytes, entrySize, entrySize);
        Files.write(file, bytes);
    }
}
