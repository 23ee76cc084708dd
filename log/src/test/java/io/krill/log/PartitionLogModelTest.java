package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random sequences of appends (leader and follower), rolls, reads, truncations, retention,
 * DeleteRecords and clean/unclean reopens, checked after every step against an in-memory model: the list
 * of batches with their offsets and bytes, the log start offset and the log end offset.
 */
class PartitionLogModelTest {
    private static final int STEPS = 160;

    @TempDir
    Path tmp;

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        long base = Long.getLong("krill.model.seed", 20260101L);
        int count = Integer.getInteger("krill.model.seeds", 24);
        for (int i = 0; i < count; i++) {
            seeds.add(base + i);
        }
        return seeds;
    }

    /** What the log must contain. */
    private static final class Model {
        final List<LogTestUtils.ReadBatch> batches = new ArrayList<>();
        long logStart;
        long leo;

        void dropBelowSegment(long firstBase) {
            batches.removeIf(b -> b.baseOffset() < firstBase);
        }
    }

    private PartitionLog log;
    private Path dir;
    private MockTime time;
    private LogConfig config;

    private PartitionLog open(boolean clean, long recoveryPoint, long logStart) throws IOException {
        return PartitionLog.builder(dir).config(config).time(time).hadCleanShutdown(clean).recoveryPoint(recoveryPoint)
                .logStartOffset(logStart).open();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomOperationsMatchTheModel(long seed) throws Exception {
        Random random = new Random(seed);
        dir = tmp.resolve("model-" + seed % 1000);
        time = new MockTime();
        config = LogConfig.builder()
                .segmentBytes(800 + random.nextInt(1500))
                .indexIntervalBytes(random.nextInt(3) * 100)
                .segmentIndexBytes(random.nextBoolean() ? 10 * 12 : 4096)
                .retentionMs(-1)
                .build();
        Model model = new Model();
        log = open(false, 0, 0);
        String step = "start";
        try {
            for (int i = 0; i < STEPS; i++) {
                int op = random.nextInt(100);
                if (op < 35) {
                    step = appendLeader(random, model);
                } else if (op < 50) {
                    step = appendFollower(random, model);
                } else if (op < 55) {
                    log.roll();
                    step = "roll";
                } else if (op < 65) {
                    step = "reads";
                    randomReads(random, model);
                } else if (op < 72) {
                    step = truncate(random, model);
                } else if (op < 77) {
                    step = retention(random, model);
                } else if (op < 82) {
                    step = deleteRecords(random, model);
                } else if (op < 87) {
                    log.close();
                    log = open(true, log.recoveryPoint(), model.logStart);
                    step = "clean reopen";
                } else if (op < 94) {
                    step = uncleanReopen(random, model);
                } else {
                    log.flush();
                    step = "flush";
                }
                step = "step " + i + " (" + step + ")";
                check(model, random, step);
            }
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + " failed at " + step + ": " + e.getMessage(), e);
        } finally {
            log.close();
        }
    }

    private String appendLeader(Random random, Model model) {
        int n = 1 + random.nextInt(3);
        List<ByteBuf> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(TestBatches.batch().records(1 + random.nextInt(5), random.nextInt(120), time.milliseconds()).build());
        }
        ByteBuf all = TestBatches.concat(parts);
        AppendInfo info = log.appendAsLeader(all, random.nextInt(3), AppendOrigin.CLIENT);
        assertEquals(model.leo, info.firstOffset());
        List<LogTestUtils.ReadBatch> written = LogTestUtils.batches(all);
        model.batches.addAll(written);
        model.leo = info.lastOffset() + 1;
        return "append leader " + n + " batches";
    }

    private String appendFollower(Random random, Model model) {
        int n = 1 + random.nextInt(3);
        List<ByteBuf> parts = new ArrayList<>();
        long next = model.leo + (random.nextInt(4) == 0 ? random.nextInt(50) : 0);
        if (random.nextInt(40) == 0) {
            next = model.leo + Integer.MAX_VALUE + 5L; // beyond a 32-bit relative offset: forces a roll
        }
        for (int i = 0; i < n; i++) {
            int records = 1 + random.nextInt(4);
            int gap = random.nextInt(3) == 0 ? random.nextInt(5) : 0;
            TestBatches b = TestBatches.batch().baseOffset(next).epoch(3);
            for (int r = 0; r < records; r++) {
                b.add(null, new byte[random.nextInt(80)], time.milliseconds(), r * (1 + gap));
            }
            parts.add(b.build());
            next += (long) (records - 1) * (1 + gap) + 1 + (random.nextBoolean() ? random.nextInt(3) : 0);
        }
        ByteBuf all = TestBatches.concat(parts);
        List<LogTestUtils.ReadBatch> written = LogTestUtils.batches(all);
        if (random.nextInt(10) == 0 && model.leo > 0) {
            ByteBuf behind = TestBatches.batch().baseOffset(model.leo - 1).records(1, 1, 0).build();
            assertThrows(UnexpectedAppendOffsetException.class, () -> log.appendAsFollower(behind));
        }
        AppendInfo info = log.appendAsFollower(all);
        assertEquals(written.get(0).baseOffset(), info.firstOffset());
        model.batches.addAll(written);
        model.leo = written.get(written.size() - 1).lastOffset() + 1;
        return "append follower " + n + " batches from " + written.get(0).baseOffset();
    }

    private String truncate(Random random, Model model) {
        long target = random.nextInt(10) == 0 ? Math.max(0, model.logStart - random.nextInt(3))
                : model.logStart + (long) (random.nextDouble() * (model.leo - model.logStart + 1));
        List<Long> bases = log.segmentBaseOffsets();
        boolean changed = log.truncateTo(target);
        if (target >= model.leo) {
            assertTrue(!changed);
            return "truncate to " + target + " (no-op)";
        }
        if (target < bases.get(0) || target < model.logStart) {
            model.batches.clear();
            model.logStart = target;
            model.leo = target;
            return "truncate fully to " + target;
        }
        long floorBase = bases.get(0);
        for (long b : bases) {
            if (b <= target) {
                floorBase = b;
            }
        }
        model.batches.removeIf(b -> b.lastOffset() >= target);
        long leo = floorBase;
        for (LogTestUtils.ReadBatch b : model.batches) {
            if (b.baseOffset() >= floorBase) {
                leo = b.lastOffset() + 1;
            }
        }
        if (leo < model.logStart) {
            model.batches.clear();
            model.logStart = target;
            model.leo = target;
            return "truncate to " + target + " below the log start: fully";
        }
        model.leo = leo;
        return "truncate to " + target;
    }

    private String retention(Random random, Model model) {
        long bytes = random.nextInt(4000);
        log.updateConfig(config.toBuilder().retentionBytes(bytes).build());
        List<Long> before = log.segmentBaseOffsets();
        log.deleteOldSegments();
        log.updateConfig(config);
        List<Long> after = log.segmentBaseOffsets();
        long activeBefore = before.get(before.size() - 1);
        long activeAfter = after.get(after.size() - 1);
        // As in Kafka, retention may take the active segment too: it is rolled, and the log goes on from its end.
        assertTrue(activeAfter == activeBefore || (after.size() == 1 && activeAfter == model.leo),
                "the active segment survives, or the whole log went and a new one starts at the end: " + after);
        long firstBase = after.get(0);
        model.dropBelowSegment(firstBase);
        model.logStart = Math.max(model.logStart, firstBase);
        return "retention " + bytes + " bytes, " + (before.size() - after.size()) + " segments deleted";
    }

    private String deleteRecords(Random random, Model model) {
        long target = model.logStart + (long) (random.nextDouble() * (model.leo - model.logStart + 1));
        long result = log.deleteRecordsBefore(target);
        assertEquals(Math.max(target, model.logStart), result);
        model.logStart = result;
        model.dropBelowSegment(log.segmentBaseOffsets().get(0));
        assertThrows(OffsetOutOfRangeException.class, () -> log.deleteRecordsBefore(model.leo + 1));
        return "delete records before " + target;
    }

    private String uncleanReopen(Random random, Model model) throws IOException {
        long recoveryPoint = random.nextBoolean() ? log.recoveryPoint() : 0;
        List<Long> bases = log.segmentBaseOffsets();
        log.closeHandles();
        boolean garbage = random.nextBoolean();
        if (garbage) {
            Path active = dir.resolve(LogFileNames.prefix(bases.get(bases.size() - 1)) + LogFileNames.LOG);
            byte[] junk = new byte[1 + random.nextInt(100)];
            random.nextBytes(junk);
            junk[0] = (byte) 0xff; // never the start of a valid batch here
            try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(junk), ch.size());
            }
        }
        log = open(false, recoveryPoint, model.logStart);
        return "unclean reopen from " + recoveryPoint + (garbage ? " with garbage" : "");
    }

    private void randomReads(Random random, Model model) {
        for (int i = 0; i < 5; i++) {
            long start = model.logStart + (long) (random.nextDouble() * (model.leo - model.logStart + 1));
            int maxBytes = random.nextBoolean() ? random.nextInt(300) : 1 << 20;
            long maxOffset = random.nextBoolean() ? Long.MAX_VALUE : start + random.nextInt(20);
            boolean minOne = random.nextBoolean();
            checkRead(model, start, maxBytes, maxOffset, minOne);
        }
        if (model.logStart > 0) {
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(model.logStart - 1, 100, Long.MAX_VALUE, true));
        }
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(model.leo + 1, 100, Long.MAX_VALUE, true));
    }

    /** Whole batches, a prefix of the model from the batch holding start, within the bounds. */
    private void checkRead(Model model, long start, int maxBytes, long maxOffset, boolean minOne) {
        List<LogTestUtils.ReadBatch> expected = new ArrayList<>();
        for (LogTestUtils.ReadBatch b : model.batches) {
            if (b.lastOffset() >= start) {
                expected.add(b);
            }
        }
        String what = "read(" + start + ", " + maxBytes + ", " + maxOffset + ", " + minOne + ")";
        try (LogReadResult r = log.read(start, maxBytes, maxOffset, minOne)) {
            List<LogTestUtils.ReadBatch> got = LogTestUtils.batches(r.records().readAll());
            int total = 0;
            for (int i = 0; i < got.size(); i++) {
                assertTrue(i < expected.size(), what + ": more batches than the model");
                assertEquals(expected.get(i).baseOffset(), got.get(i).baseOffset(), what);
                assertArrayEquals(expected.get(i).bytes(), got.get(i).bytes(), what);
                assertTrue(got.get(i).lastOffset() < maxOffset, what + ": batch beyond maxOffset");
                total += got.get(i).bytes().length;
            }
            assertTrue(total <= maxBytes || (minOne && got.size() == 1), what + ": " + total + " bytes");
            if (got.isEmpty() && !expected.isEmpty()) {
                LogTestUtils.ReadBatch first = expected.get(0);
                boolean fits = first.bytes().length <= maxBytes || minOne;
                assertTrue(!fits || first.lastOffset() >= maxOffset, what + ": empty but batch " + first.baseOffset()
                        + " was readable");
            }
            if (!got.isEmpty()) {
                long afterLast = got.get(got.size() - 1).lastOffset() + 1;
                long nextBase = got.size() < expected.size() ? expected.get(got.size()).baseOffset() : afterLast;
                assertTrue(r.nextOffset() >= afterLast && r.nextOffset() <= Math.max(afterLast, nextBase),
                        what + ": next offset " + r.nextOffset() + " after " + afterLast);
            }
        } catch (IOException e) {
            fail(e);
        }
    }

    private void check(Model model, Random random, String step) throws IOException {
        assertEquals(model.leo, log.logEndOffset(), "LEO");
        assertEquals(model.logStart, log.logStartOffset(), "log start offset");
        assertTrue(log.recoveryPoint() <= log.logEndOffset(), "recovery point " + log.recoveryPoint());
        List<LogTestUtils.ReadBatch> all = new ArrayList<>();
        long offset = model.logStart;
        while (offset < model.leo) {
            try (LogReadResult r = log.read(offset, 1 << 20, Long.MAX_VALUE, true)) {
                if (r.isEmpty()) {
                    break;
                }
                all.addAll(LogTestUtils.batches(r.records().readAll()));
                offset = r.nextOffset();
            }
        }
        List<LogTestUtils.ReadBatch> expected = new ArrayList<>();
        for (LogTestUtils.ReadBatch b : model.batches) {
            if (b.lastOffset() >= model.logStart) {
                expected.add(b);
            }
        }
        assertEquals(expected.size(), all.size(), "batch count");
        for (int i = 0; i < all.size(); i++) {
            assertArrayEquals(expected.get(i).bytes(), all.get(i).bytes(), "batch " + i);
        }
        if (!expected.isEmpty()) {
            LogTestUtils.ReadBatch b = expected.get(random.nextInt(expected.size()));
            checkRead(model, b.lastOffset(), 1, Long.MAX_VALUE, true);
        }
        try (var s = Files.list(dir)) {
            List<String> names = s.map(p -> p.getFileName().toString()).toList();
            for (String n : names) {
                assertTrue(!n.endsWith(".swap") && !n.endsWith(".cleaned"), "stray file " + n);
            }
        }
    }
}
