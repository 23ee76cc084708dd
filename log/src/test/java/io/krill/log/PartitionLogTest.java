package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.epoch.EpochEndOffset;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {
    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    private PartitionLog open(LogConfig config, boolean clean) throws IOException {
        return PartitionLog.builder(tmp.resolve("topic-0")).config(config).time(time).hadCleanShutdown(clean).open();
    }

    private static ByteBuf records(int n, int size, long ts) {
        return TestBatches.batch().records(n, size, ts).build();
    }

    @Test
    void appendAssignsOffsetsAndReadsBack() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT, false)) {
            AppendInfo a = log.appendAsLeader(records(3, 10, 1000), 5, AppendOrigin.CLIENT);
            assertEquals(0, a.firstOffset());
            assertEquals(2, a.lastOffset());
            assertEquals(3, a.recordCount());
            assertEquals(1, a.batchCount());
            AppendInfo b = log.appendAsLeader(records(2, 10, 2000), 5, AppendOrigin.CLIENT);
            assertEquals(3, b.firstOffset());
            assertEquals(5, log.logEndOffset());
            assertEquals(2000, b.maxTimestamp());
            assertEquals(1, log.numberOfSegments());
            try (LogReadResult r = log.read(0, 1 << 20, Long.MAX_VALUE, false)) {
                List<LogTestUtils.ReadBatch> batches = LogTestUtils.batches(r.records().readAll());
                assertEquals(2, batches.size());
                assertEquals(3, batches.get(1).baseOffset());
                assertEquals(5, r.nextOffset());
            }
            try (LogReadResult r = log.read(4, 1 << 20, Long.MAX_VALUE, false)) {
                assertEquals(3, r.firstBatchOffset());
            }
            try (LogReadResult r = log.read(5, 1 << 20, Long.MAX_VALUE, false)) {
                assertTrue(r.isEmpty());
            }
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(6, 100, Long.MAX_VALUE, false));
            // maxOffset bound excludes the second batch
            try (LogReadResult r = log.read(0, 1 << 20, 3, false)) {
                assertEquals(1, LogTestUtils.batches(r.records().readAll()).size());
            }
            // maxBytes smaller than a batch
            try (LogReadResult r = log.read(0, 10, Long.MAX_VALUE, false)) {
                assertTrue(r.isEmpty());
                assertTrue(r.firstBatchTooLarge());
            }
            try (LogReadResult r = log.read(0, 10, Long.MAX_VALUE, true)) {
                assertEquals(1, LogTestUtils.batches(r.records().readAll()).size());
            }
            assertEquals(new EpochEndOffset(5, 5), log.endOffsetForEpoch(5));
        }
    }

    @Test
    void rollsOnSegmentBytesAndReopensCleanly() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(1024).indexIntervalBytes(100).build();
        long leo;
        List<LogTestUtils.ReadBatch> before;
        try (PartitionLog log = open(cfg, false)) {
            for (int i = 0; i < 50; i++) {
                log.appendAsLeader(records(2, 50, 1000 + i), 1, AppendOrigin.CLIENT);
            }
            assertTrue(log.numberOfSegments() > 5, "segments: " + log.numberOfSegments());
            leo = log.logEndOffset();
            before = LogTestUtils.readAll(log, 0);
            assertEquals(50, before.size());
        }
        try (PartitionLog log = open(cfg, true)) {
            assertEquals(leo, log.logEndOffset());
            List<LogTestUtils.ReadBatch> after = LogTestUtils.readAll(log, 0);
            assertEquals(before.size(), after.size());
            for (int i = 0; i < before.size(); i++) {
                assertArrayEquals(before.get(i).bytes(), after.get(i).bytes());
            }
            for (long o = 0; o < leo; o++) {
                try (LogReadResult r = log.read(o, 1, Long.MAX_VALUE, true)) {
                    assertEquals(o - o % 2, r.firstBatchOffset(), "read at " + o);
                }
            }
            log.appendAsLeader(records(1, 10, 5000), 1, AppendOrigin.CLIENT);
            assertEquals(leo + 1, log.logEndOffset());
        }
        try (PartitionLog log = open(cfg, false)) {
            assertEquals(leo + 1, log.logEndOffset());
        }
    }

    @Test
    void offsetForTimestamp() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(2048).indexIntervalBytes(64).build();
        try (PartitionLog log = open(cfg, false)) {
            for (int i = 0; i < 40; i++) {
                ByteBuf b = TestBatches.batch().add("k", "v", 1000 + 10 * i).add("k", "v", 1000 + 10 * i + 5).build();
                log.appendAsLeader(b, 0, AppendOrigin.CLIENT);
            }
            // offsets 2i (ts 1000+10i) and 2i+1 (ts 1000+10i+5)
            assertEquals(0, log.fetchOffsetByTimestamp(0).orElseThrow().offset());
            assertEquals(1, log.fetchOffsetByTimestamp(1001).orElseThrow().offset());
            assertEquals(1005, log.fetchOffsetByTimestamp(1001).orElseThrow().timestamp());
            assertEquals(20, log.fetchOffsetByTimestamp(1100).orElseThrow().offset());
            assertEquals(21, log.fetchOffsetByTimestamp(1101).orElseThrow().offset());
            assertTrue(log.fetchOffsetByTimestamp(5000).isEmpty());
            assertEquals(79, log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow().offset());
            assertEquals(80, log.fetchOffsetByTimestamp(PartitionLog.LATEST_TIMESTAMP).orElseThrow().offset());
            assertEquals(0, log.fetchOffsetByTimestamp(PartitionLog.EARLIEST_TIMESTAMP).orElseThrow().offset());
            assertTrue(log.numberOfSegments() > 1);
        }
    }

    @Test
    void logAppendTime() throws IOException {
        LogConfig cfg = LogConfig.builder().timestampType(TimestampType.LOG_APPEND_TIME).build();
        try (PartitionLog log = open(cfg, false)) {
            AppendInfo a = log.appendAsLeader(records(2, 5, 10), 0, AppendOrigin.CLIENT);
            assertEquals(time.milliseconds(), a.logAppendTime());
            try (LogReadResult r = log.read(0, 1000, Long.MAX_VALUE, false)) {
                ByteBuf buf = r.records().readAll();
                RecordBatch b = new RecordBatch().wrap(buf, 0);
                assertEquals(time.milliseconds(), b.maxTimestamp());
                assertEquals(TimestampType.LOG_APPEND_TIME, b.timestampType());
                assertTrue(b.isCrcValid());
            }
        }
    }

    @Test
    void followerAppendChecksOffsets() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT, false)) {
            log.appendAsFollower(TestBatches.batch().baseOffset(0).epoch(3).records(5, 5, 1).build());
            assertEquals(5, log.logEndOffset());
            assertThrows(UnexpectedAppendOffsetException.class,
                    () -> log.appendAsFollower(TestBatches.batch().baseOffset(4).records(2, 5, 1).build()));
            ByteBuf outOfOrder = TestBatches.concat(List.of(TestBatches.batch().baseOffset(10).records(2, 5, 1).build(),
                    TestBatches.batch().baseOffset(11).records(2, 5, 1).build()));
            assertThrows(OffsetsOutOfOrderException.class, () -> log.appendAsFollower(outOfOrder));
            // gaps are fine
            log.appendAsFollower(TestBatches.batch().baseOffset(20).epoch(4).records(2, 5, 1).build());
            assertEquals(22, log.logEndOffset());
            assertEquals(new EpochEndOffset(3, 20), log.endOffsetForEpoch(3));
            assertEquals(new EpochEndOffset(4, 22), log.endOffsetForEpoch(4));
        }
    }

    @Test
    void truncateToAndReopen() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(600).indexIntervalBytes(1).build();
        try (PartitionLog log = open(cfg, false)) {
            for (int i = 0; i < 30; i++) {
                log.appendAsLeader(records(3, 20, 1000 + i), i / 10, AppendOrigin.CLIENT);
            }
            assertEquals(90, log.logEndOffset());
            assertTrue(log.truncateTo(50)); // inside batch 48..50: goes whole
            assertEquals(48, log.logEndOffset());
            assertEquals(new EpochEndOffset(1, 48), log.endOffsetForEpoch(1));
            assertEquals(EpochEndOffset.UNDEFINED, log.endOffsetForEpoch(2));
            assertEquals(16, LogTestUtils.readAll(log, 0).size());
            log.appendAsLeader(records(1, 20, 1), 7, AppendOrigin.CLIENT);
            assertEquals(49, log.logEndOffset());
            assertFalse(log.truncateTo(100));
        }
        try (PartitionLog log = open(cfg, false)) {
            assertEquals(49, log.logEndOffset());
            assertEquals(17, LogTestUtils.readAll(log, 0).size());
            assertEquals(new EpochEndOffset(7, 49), log.endOffsetForEpoch(7));
        }
    }

    @Test
    void retentionAndDeleteRecords() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(500).retentionBytes(2000).retentionMs(-1).build();
        try (PartitionLog log = open(cfg, false)) {
            for (int i = 0; i < 40; i++) {
                log.appendAsLeader(records(2, 30, 1000 + i), 0, AppendOrigin.CLIENT);
            }
            long sizeBefore = log.size();
            int deleted = log.deleteOldSegments();
            assertTrue(deleted > 0);
            long firstSize = log.segmentMap().firstEntry().getValue().size();
            assertTrue(log.size() >= 2000 && log.size() - firstSize < 2000, "size " + log.size() + " before " + sizeBefore);
            assertEquals(log.segmentBaseOffsets().get(0), log.logStartOffset());
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 100, Long.MAX_VALUE, true));
            long start = log.deleteRecordsBefore(70);
            assertEquals(70, start);
            try (LogReadResult r = log.read(70, 10000, Long.MAX_VALUE, true)) {
                assertEquals(70, r.firstBatchOffset());
            }
            try (Stream<Path> files = Files.list(tmp.resolve("topic-0"))) {
                assertTrue(files.noneMatch(f -> f.toString().endsWith(".deleted")));
            }
        }
    }

    @Test
    void timeRetention() throws IOException {
        LogConfig cfg = LogConfig.builder().segmentBytes(500).retentionMs(60_000).build();
        try (PartitionLog log = open(cfg, false)) {
            long now = time.milliseconds();
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(records(2, 30, now - 120_000 + i), 0, AppendOrigin.CLIENT);
            }
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(records(2, 30, now), 0, AppendOrigin.CLIENT);
            }
            int segs = log.numberOfSegments();
            int deleted = log.deleteOldSegments();
            assertTrue(deleted > 0 && deleted < segs);
            long start = log.logStartOffset();
            assertTrue(start <= 40 && start >= 30, "start " + start);
        }
    }
    /**
     * A topic that stopped receiving records: its only segment, the active one, expires. Kafka rolls it and
     * deletes it, so the records do not outlive retention.ms; the log goes on from the same offset.
     */
    @Test
    void anExpiredActiveSegmentIsRolledAndDeletedOnceCommitted() throws IOException {
        LogConfig cfg = LogConfig.builder().retentionMs(60_000).build();
        try (PartitionLog log = open(cfg, false)) {
            long now = time.milliseconds();
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(records(2, 30, now - 120_000 + i), 0, AppendOrigin.CLIENT);
            }
            assertEquals(1, log.numberOfSegments());
            log.updateHighWatermark(9);
            assertEquals(0, log.deleteOldSegments(), "a record above the high watermark keeps the segment");
            assertEquals(0, log.logStartOffset());

            log.updateHighWatermark(10);
            assertEquals(1, log.deleteOldSegments());
            assertEquals(10, log.logStartOffset());
            assertEquals(10, log.logEndOffset());
            assertEquals(1, log.numberOfSegments());
            assertEquals(10, log.activeSegment().baseOffset);
            assertEquals(0, log.deleteOldSegments(), "the new, empty active segment stays");

            log.appendAsLeader(records(1, 30, now), 0, AppendOrigin.CLIENT);
            assertEquals(11, log.logEndOffset());
            try (LogReadResult r = log.read(10, 10000, Long.MAX_VALUE, true)) {
                assertEquals(10, r.firstBatchOffset());
            }
            log.updateHighWatermark(11);
            assertEquals(0, log.deleteOldSegments(), "a fresh active segment is kept");
        }
    }
}
