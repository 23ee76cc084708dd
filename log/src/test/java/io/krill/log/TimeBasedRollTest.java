package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * segment.ms as Kafka counts it: from the max timestamp of a segment's first batch to an append's max
 * timestamp, so an append carrying a timestamp more than segment.ms after the segment's first starts a new
 * segment whatever the wall clock says; by wall-clock time since the segment was opened when its first
 * batch has no timestamp.
 */
class TimeBasedRollTest {
    private static final long SEGMENT_MS = 1_000;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    private PartitionLog open(LogConfig.Builder config) throws IOException {
        return PartitionLog.builder(tmp.resolve("topic-0")).config(config.segmentMs(SEGMENT_MS).build()).time(time)
                .open();
    }

    private static void append(PartitionLog log, long timestamp) {
        ByteBuf batch = TestBatches.batch().records(2, 8, timestamp).build();
        log.appendAsLeader(batch, 0, AppendOrigin.CLIENT);
    }

    @Test
    void recordTimeRollsASegmentAndTheWallClockDoesNot() throws IOException {
        long t = 1_600_000_000_000L; // record time, years before the (mock) wall clock
        try (PartitionLog log = open(LogConfig.builder())) {
            append(log, t);                                  // 0-1
            append(log, t + SEGMENT_MS);                     // 2-3: exactly segment.ms later stays
            time.sleep(10 * SEGMENT_MS);
            append(log, t + 5);                              // 4-5: the wall clock does not roll
            assertEquals(List.of(0L), log.segmentBaseOffsets());

            append(log, t + SEGMENT_MS + 1);                 // 6-7: past segment.ms of record time
            assertEquals(List.of(0L, 6L), log.segmentBaseOffsets());
            append(log, t);                                  // 8-9: older records stay
            assertEquals(List.of(0L, 6L), log.segmentBaseOffsets());

            // A marker stamped now after records of long ago: the marker opens a segment, as in Kafka.
            log.appendAsLeader(TestBatches.marker(1L, (short) 0, false, 0, time.milliseconds()), 0,
                    AppendOrigin.COORDINATOR);
            assertEquals(List.of(0L, 6L, 10L), log.segmentBaseOffsets());
        }
    }

    @Test
    void withoutATimestampTheWallClockRollsFromTheSegmentsOpening() throws IOException {
        try (PartitionLog log = open(LogConfig.builder())) {
            append(log, RecordBatch.NO_TIMESTAMP);           // 0-1
            time.sleep(SEGMENT_MS);
            append(log, RecordBatch.NO_TIMESTAMP);           // 2-3
            assertEquals(List.of(0L), log.segmentBaseOffsets());
            time.sleep(1);
            append(log, time.milliseconds());                // 4-5: the first batch had none: wall clock
            assertEquals(List.of(0L, 4L), log.segmentBaseOffsets());
        }
    }

    @Test
    void logAppendTimeRollsByTheWallClock() throws IOException {
        try (PartitionLog log = open(LogConfig.builder().timestampType(TimestampType.LOG_APPEND_TIME))) {
            append(log, 5);
            time.sleep(SEGMENT_MS);
            append(log, 5);
            time.sleep(1);
            append(log, 5);
            assertEquals(List.of(0L, 4L), log.segmentBaseOffsets());
        }
    }

    @Test
    void aReopenedSegmentCountsFromItsFirstBatch() throws IOException {
        long t = 1_600_000_000_000L;
        try (PartitionLog log = open(LogConfig.builder())) {
            append(log, t);
        }
        time.sleep(10 * SEGMENT_MS);
        try (PartitionLog log = open(LogConfig.builder())) {
            append(log, t + SEGMENT_MS);
            assertEquals(List.of(0L), log.segmentBaseOffsets());
            append(log, t + SEGMENT_MS + 1);
            assertEquals(List.of(0L, 4L), log.segmentBaseOffsets());
        }
    }

    @Test
    void aSegmentTruncatedEmptyCountsAnew() throws IOException {
        try (PartitionLog log = open(LogConfig.builder())) {
            append(log, RecordBatch.NO_TIMESTAMP);           // 0-1
            log.roll();
            append(log, RecordBatch.NO_TIMESTAMP);           // 2-3, the active segment
            time.sleep(2 * SEGMENT_MS);
            log.truncateTo(2);
            append(log, RecordBatch.NO_TIMESTAMP);           // 2-3 again
            append(log, RecordBatch.NO_TIMESTAMP);           // 4-5
            assertEquals(List.of(0L, 2L), log.segmentBaseOffsets());
        }
    }
}
