package io.krill.log;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction: random keyed workloads with tombstones against a model of the latest value per key, and a
 * cleaner interrupted at every step of its swap.
 */
class CleanerTest {
    private static final long DELETE_RETENTION = 60_000;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    /** A record read back. */
    record Rec(long offset, String key, String value) {
    }

    /** The model: latest value per key (null = tombstone) and the offset of that latest record. */
    static final class Model {
        final Map<String, String> latest = new LinkedHashMap<>();
        final Map<String, Long> latestOffset = new HashMap<>();
        final Map<String, Long> tombstoneTime = new HashMap<>();
    }

    private static LogConfig compacted() {
        return LogConfig.builder().cleanupPolicy("compact").segmentBytes(2048).indexIntervalBytes(128)
                .deleteRetentionMs(DELETE_RETENTION).build();
    }

    private PartitionLog open(Path dir, boolean clean) throws IOException {
        return PartitionLog.builder(dir).config(compacted()).time(time).hadCleanShutdown(clean).open();
    }

    private void writeWorkload(PartitionLog log, Random random, Model model, int batches, int keys) {
        writeWorkload(log, random, model, batches, keys, new CompressionType[] {CompressionType.NONE});
    }

    private void writeWorkload(PartitionLog log, Random random, Model model, int batches, int keys,
            CompressionType[] codecs) {
        for (int i = 0; i < batches; i++) {
            TestBatches b = TestBatches.batch().compression(codecs[random.nextInt(codecs.length)]);
            int n = 1 + random.nextInt(4);
            List<String[]> recs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                String key = "k" + random.nextInt(keys);
                String value = random.nextInt(7) == 0 ? null : "v" + i + "." + r + "." + "x".repeat(random.nextInt(40));
                b.add(key, value, time.milliseconds());
                recs.add(new String[] {key, value});
            }
            AppendInfo info = log.appendAsLeader(b.build(), 0, AppendOrigin.CLIENT);
            for (int r = 0; r < n; r++) {
                String key = recs.get(r)[0];
                model.latest.put(key, recs.get(r)[1]);
                model.latestOffset.put(key, info.firstOffset() + r);
                if (recs.get(r)[1] == null) {
                    model.tombstoneTime.put(key, time.milliseconds());
                } else {
                    model.tombstoneTime.remove(key);
                }
            }
            time.sleep(1);
        }
    }

    static List<Rec> readRecords(PartitionLog log) throws IOException {
        List<Rec> out = new ArrayList<>();
        for (LogTestUtils.ReadBatch b : LogTestUtils.readAll(log, log.logStartOffset())) {
            ByteBuf buf = Unpooled.wrappedBuffer(b.bytes());
            RecordBatch batch = new RecordBatch().wrap(buf, 0);
            batch.validate(b.bytes().length);
            batch.forEachRecord(r -> {
                String key = r.hasKey() ? r.buffer().toString(r.keyIndex(), r.keySize(), StandardCharsets.UTF_8) : null;
                String value = r.hasValue() ? r.buffer().toString(r.valueIndex(), r.valueSize(), StandardCharsets.UTF_8) : null;
                out.add(new Rec(r.offset(), key, value));
                return true;
            });
        }
        return out;
    }

    /** Cleans until the whole cleanable range is done (several passes when the map is small). */
    private static long cleanFully(Cleaner cleaner, PartitionLog log, long firstDirty) throws IOException {
        long end = firstDirty;
        for (int pass = 0; pass < 100; pass++) {
            Cleaner.Result r = cleaner.clean(log, end);
            if (r.skipped()) {
                return end;
            }
            end = r.endOffset();
        }
        throw new AssertionError("cleaning does not converge");
    }

    private static void assertCompacted(List<Rec> records, Model model, long end, Set<String> expiredTombstones, String what) {
        Set<String> seen = new HashSet<>();
        Map<String, String> lastWins = new HashMap<>();
        for (Rec r : records) {
            lastWins.put(r.key(), r.value());
            if (r.offset() >= end) {
                continue;
            }
            assertTrue(seen.add(r.key()), what + ": key " + r.key() + " twice below " + end);
            assertEquals(model.latestOffset.get(r.key()), r.offset(), what + ": stale version of " + r.key());
            assertEquals(model.latest.get(r.key()), r.value(), what + ": value of " + r.key());
        }
        for (Map.Entry<String, String> e : model.latest.entrySet()) {
            if (expiredTombstones.contains(e.getKey())) {
                assertFalse(lastWins.containsKey(e.getKey()), what + ": expired tombstone of " + e.getKey() + " kept");
            } else {
                assertTrue(lastWins.containsKey(e.getKey()), what + ": key " + e.getKey() + " lost");
                assertEquals(e.getValue(), lastWins.get(e.getKey()), what + ": latest of " + e.getKey());
            }
        }
    }

    @ParameterizedTest(name = "dedupe buffer {0} bytes")
    @ValueSource(ints = {1 << 20, 24 * 40})
    void randomKeyedWorkloadsCompactToTheLatestValuePerKey(int dedupeBytes) throws IOException {
        for (long seed = 1; seed <= 4; seed++) {
            String what = "seed " + seed + " dedupe " + dedupeBytes;
            Random random = new Random(seed);
            Model model = new Model();
            Path dir = tmp.resolve("compact" + seed + "x" + dedupeBytes + "-0");
            long end;
            try (PartitionLog log = open(dir, false); Cleaner cleaner = new Cleaner(dedupeBytes, 4096, time)) {
                writeWorkload(log, random, model, 300, 10 + random.nextInt(40));
                log.roll();
                long leo = log.logEndOffset();
                List<LogTestUtils.ReadBatch> before = LogTestUtils.readAll(log, 0);
                end = cleanFully(cleaner, log, 0);
                assertEquals(leo, end, what);
                assertEquals(leo, log.logEndOffset(), what);
                assertCompacted(readRecords(log), model, end, Set.of(), what + " first cleaning");
                // Offsets are preserved: every original offset still resolves to a batch covering it or after it.
                for (LogTestUtils.ReadBatch b : before) {
                    try (LogReadResult r = log.read(b.lastOffset(), 1, Long.MAX_VALUE, true)) {
                        assertTrue(r.firstBatchOffset() >= 0 && r.nextOffset() > b.lastOffset(), what + " read at " + b.lastOffset());
                    }
                }
                // Tombstones stay until delete.retention.ms, then go with the next cleaning, which also merges
                // the segments the first one shrank.
                time.sleep(DELETE_RETENTION + 1);
                Set<String> expired = new HashSet<>();
                for (Map.Entry<String, String> e : model.latest.entrySet()) {
                    if (e.getValue() == null) {
                        expired.add(e.getKey());
                    }
                }
                Model more = new Model();
                writeWorkload(log, random, more, 30, 60);
                for (String k : more.latest.keySet()) {
                    model.latest.put(k, more.latest.get(k));
                    model.latestOffset.put(k, more.latestOffset.get(k));
                    expired.remove(k);
                }
                log.roll();
                int segmentsBefore = log.numberOfSegments();
                end = cleanFully(cleaner, log, end);
                // With a map too small for the dirty range, earlier passes have merged already.
                assertTrue(dedupeBytes < (1 << 20) ? log.numberOfSegments() <= segmentsBefore
                        : log.numberOfSegments() < segmentsBefore, what + ": " + log.numberOfSegments() + " segments");
                assertCompacted(readRecords(log), model, end, expired, what + " after delete.retention.ms");
            }
            // The cleaned log reads the same after a clean and after an unclean restart.
            List<Rec> cleaned;
            try (PartitionLog log = open(dir, true)) {
                cleaned = readRecords(log);
            }
            try (PartitionLog log = open(dir, false)) {
                assertEquals(cleaned, readRecords(log), what);
            }
        }
    }

    @ParameterizedTest(name = "crash state {0}")
    @ValueSource(strings = {"cleaned", "cleaned+index-swap", "swap", "swap+old-partly-deleted", "swap-indexes-renamed",
            "done"})
    void anInterruptedSwapLeavesACorrectLog(String state) throws IOException {
        Path original = tmp.resolve("orig-0");
        Random random = new Random(99);
        Model model = new Model();
        try (PartitionLog log = open(original, false)) {
            writeWorkload(log, random, model, 200, 20);
            log.roll();
            try (Cleaner c = new Cleaner(1 << 20, 4096, time)) {
                c.clean(log, 0); // shrinks the segments: the next cleaning merges
            }
            writeWorkload(log, random, model, 30, 20);
            log.roll();
        }
        Path before = tmp.resolve("before-0");
        copyDir(original, before);
        try (PartitionLog log = open(original, true)) {
            try (Cleaner c = new Cleaner(1 << 20, 4096, time)) {
                assertFalse(c.clean(log, 200).skipped());
            }
        }
        List<LogTestUtils.ReadBatch> batchesBefore;
        List<Long> basesBefore;
        try (PartitionLog log = open(before, true)) {
            batchesBefore = LogTestUtils.readAll(log, 0);
            basesBefore = log.segmentBaseOffsets();
        }
        List<LogTestUtils.ReadBatch> batchesAfter;
        List<Long> basesAfter;
        try (PartitionLog log = open(original, true)) {
            batchesAfter = LogTestUtils.readAll(log, 0);
            basesAfter = log.segmentBaseOffsets();
        }
        long x = basesAfter.get(0);
        long nextX = basesAfter.get(1);
        assertTrue(basesBefore.stream().filter(b -> b >= x && b < nextX).count() > 1, "the first group merges segments");
        // The crash state: the old files plus the cleaned segment X at some step of the swap.
        Path crashed = tmp.resolve("crashed-0");
        copyDir(before, crashed);
        String[] types = {LogFileNames.INDEX, LogFileNames.TIME_INDEX, LogFileNames.TXN_INDEX, LogFileNames.LOG};
        boolean committed = !state.startsWith("cleaned");
        for (String type : types) {
            Path cleanedFile = original.resolve(LogFileNames.prefix(x) + type);
            String suffix = switch (state) {
                case "cleaned" -> LogFileNames.CLEANED;
                case "cleaned+index-swap" -> type.equals(LogFileNames.INDEX) ? LogFileNames.SWAP : LogFileNames.CLEANED;
                case "swap", "swap+old-partly-deleted" -> LogFileNames.SWAP;
                case "swap-indexes-renamed" -> type.equals(LogFileNames.LOG) ? LogFileNames.SWAP : "";
                default -> "";
            };
            if (suffix.isEmpty()) {
                Files.deleteIfExists(crashed.resolve(LogFileNames.prefix(x) + type));
            }
            Files.copy(cleanedFile, crashed.resolve(LogFileNames.prefix(x) + type + suffix), StandardCopyOption.REPLACE_EXISTING);
        }
        List<Long> oldGroup = basesBefore.stream().filter(b -> b >= x && b < nextX).toList();
        if (state.equals("swap+old-partly-deleted") || state.equals("swap-indexes-renamed") || state.equals("done")) {
            List<Long> toDelete = state.equals("swap+old-partly-deleted") ? oldGroup.subList(0, 1) : oldGroup;
            for (long base : toDelete) {
                for (String type : types) {
                    Path f = crashed.resolve(LogFileNames.prefix(base) + type);
                    if (Files.exists(f) && !(base == x && !state.equals("swap+old-partly-deleted"))) {
                        Files.move(f, crashed.resolve(LogFileNames.prefix(base) + type + LogFileNames.DELETED));
                    }
                }
            }
        }
        List<LogTestUtils.ReadBatch> expected = new ArrayList<>();
        if (committed) {
            batchesAfter.stream().filter(b -> b.baseOffset() < nextX).forEach(expected::add);
            batchesBefore.stream().filter(b -> b.baseOffset() >= nextX).forEach(expected::add);
        } else {
            expected.addAll(batchesBefore);
        }
        try (PartitionLog log = open(crashed, false)) {
            List<LogTestUtils.ReadBatch> got = LogTestUtils.readAll(log, 0);
            assertEquals(expected.size(), got.size(), state);
            for (int i = 0; i < got.size(); i++) {
                assertArrayEquals(expected.get(i).bytes(), got.get(i).bytes(), state + " batch " + i);
            }
            assertEquals(batchesBefore.get(batchesBefore.size() - 1).lastOffset() + 1, log.logEndOffset(), state);
            Map<String, String> lastWins = new HashMap<>();
            for (Rec r : readRecords(log)) {
                lastWins.put(r.key(), r.value());
            }
            assertEquals(model.latest, lastWins, state);
        }
        try (Stream<Path> s = Files.list(crashed)) {
            List<String> stray = s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".swap") || n.endsWith(".cleaned") || n.endsWith(".deleted")).toList();
            assertTrue(stray.isEmpty(), state + ": stray files " + stray);
        }
    }

    @org.junit.jupiter.api.Test
    void compressedBatchesAreCompactedWithTheirCodec() throws IOException {
        CompressionType[] codecs = CompressionType.values();
        Random random = new Random(17);
        Model model = new Model();
        try (PartitionLog log = open(tmp.resolve("codecs-0"), false); Cleaner cleaner = new Cleaner(1 << 20, 4096, time)) {
            writeWorkload(log, random, model, 200, 25, codecs);
            log.roll();
            Map<Long, CompressionType> codecByBase = new HashMap<>();
            RecordBatch flyweight = new RecordBatch();
            for (LogTestUtils.ReadBatch b : LogTestUtils.readAll(log, 0)) {
                codecByBase.put(b.baseOffset(), flyweight.wrap(Unpooled.wrappedBuffer(b.bytes()), 0).compression());
            }
            assertEquals(Set.of(codecs), Set.copyOf(codecByBase.values()));
            long end = cleanFully(cleaner, log, 0);
            assertCompacted(readRecords(log), model, end, Set.of(), "codecs");
            for (LogTestUtils.ReadBatch b : LogTestUtils.readAll(log, 0)) {
                RecordBatch batch = flyweight.wrap(Unpooled.wrappedBuffer(b.bytes()), 0);
                batch.validate(b.bytes().length);
                assertEquals(codecByBase.get(b.baseOffset()), batch.compression(), "codec of batch " + b.baseOffset());
            }
            // Exact record offsets by timestamp inside compressed batches.
            for (Rec r : readRecords(log)) {
                TimestampAndOffset t = log.fetchOffsetByTimestamp(time.milliseconds() - 1000).orElseThrow();
                assertTrue(t.offset() >= 0);
                assertEquals(r.offset(), log.fetchOffsetByTimestamp(timestampOf(log, r.offset())).orElseThrow().offset());
                break;
            }
        }
    }

    private static long timestampOf(PartitionLog log, long offset) throws IOException {
        try (LogReadResult r = log.read(offset, 1, Long.MAX_VALUE, true)) {
            RecordBatch batch = new RecordBatch().wrap(r.records().readAll(), 0);
            long[] ts = {-1};
            batch.forEachRecord(rec -> {
                if (rec.offset() == offset) {
                    ts[0] = rec.timestamp();
                    return false;
                }
                return true;
            });
            return ts[0];
        }
    }

    @org.junit.jupiter.api.Test
    void theCleanerThreadCompactsDirtyLogs() throws IOException {
        LogConfig cfg = compacted().toBuilder().minCleanableDirtyRatio(0.1).build();
        LogManagerConfig mc = LogManagerConfig.builder(List.of(tmp.resolve("mgr"))).defaultLogConfig(cfg)
                .cleanerBackoffMs(20).cleanerDedupeBufferSize(1 << 20).build();
        LogManager manager = new LogManager(mc, time, t -> cfg);
        manager.startup();
        Model model = new Model();
        try {
            PartitionLog log = manager.getOrCreateLog(new TopicPartition("compacted", 0), cfg);
            Random random = new Random(5);
            writeWorkload(log, random, model, 200, 15);
            log.roll();
            await().atMost(Duration.ofSeconds(20)).until(() -> manager.cleaner().firstDirtyOffset(log) == activeBase(log));
            // New dirty data is cleaned in turn (merging is covered by the deterministic tests above).
            writeWorkload(log, random, model, 10, 15);
            log.roll();
            await().atMost(Duration.ofSeconds(20)).until(() -> manager.cleaner().firstDirtyOffset(log) == activeBase(log));
            Map<String, String> lastWins = new HashMap<>();
            for (Rec r : readRecords(log)) {
                lastWins.put(r.key(), r.value());
            }
            assertEquals(model.latest, lastWins);
            assertCompacted(readRecords(log), model, activeBase(log), Set.of(), "cleaner thread");
        } finally {
            manager.close();
        }
        var checkpoint = new io.krill.log.checkpoint.OffsetCheckpointFile(
                tmp.resolve("mgr").resolve(io.krill.log.checkpoint.OffsetCheckpointFile.CLEANER_OFFSET)).readOffsets();
        assertTrue(checkpoint.get(new TopicPartition("compacted", 0)) > 0);
    }

    @org.junit.jupiter.api.Test
    void aTruncationMovesTheFirstDirtyOffsetBack() throws IOException {
        LogConfig cfg = compacted().toBuilder().minCleanableDirtyRatio(0.99).build();
        LogManagerConfig mc = LogManagerConfig.builder(List.of(tmp.resolve("trunc"))).defaultLogConfig(cfg)
                .cleanerBackoffMs(3_600_000).build();
        LogManager manager = new LogManager(mc, time, t -> cfg);
        manager.startup();
        try {
            PartitionLog log = manager.getOrCreateLog(new TopicPartition("compacted", 1), cfg);
            Random random = new Random(8);
            writeWorkload(log, random, new Model(), 100, 10);
            log.roll();
            assertTrue(manager.cleaner().clean(log));
            long cleanedTo = manager.cleaner().firstDirtyOffset(log);
            assertEquals(activeBase(log), cleanedTo);
            log.truncateTo(cleanedTo / 3);
            Model model = new Model();
            for (Rec r : readRecords(log)) {
                model.latest.put(r.key(), r.value());
                model.latestOffset.put(r.key(), r.offset());
            }
            // Keys a* only where the old dirty checkpoint says "clean", then other keys: without moving the
            // first dirty offset back, the a* duplicates would never be compacted.
            int i = 0;
            while (log.logEndOffset() < cleanedTo) {
                String key = "a" + (i++ % 4);
                AppendInfo info = log.appendAsLeader(TestBatches.batch().add(key, "x" + i, time.milliseconds()).build(), 0,
                        AppendOrigin.CLIENT);
                model.latest.put(key, "x" + i);
                model.latestOffset.put(key, info.firstOffset());
            }
            writeWorkload(log, random, model, 60, 10);
            log.roll();
            assertTrue(log.logEndOffset() > cleanedTo);
            assertTrue(manager.cleaner().clean(log));
            assertCompacted(readRecords(log), model, activeBase(log), Set.of(), "after truncation");
        } finally {
            manager.close();
        }
    }

    private static long activeBase(PartitionLog log) {
        List<Long> bases = log.segmentBaseOffsets();
        return bases.get(bases.size() - 1);
    }

    private static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path f : s.toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
