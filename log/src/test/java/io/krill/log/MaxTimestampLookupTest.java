package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets MAX_TIMESTAMP (-3, KIP-734) answered as Kafka 4.4 answers it: the segment with the greatest
 * max timestamp (the first on a tie, -1 counting for a segment without timestamps), its first batch with
 * that max timestamp, that batch's first record carrying it, and the batch's leader epoch; every segment
 * counts, whatever the log start offset.
 */
class MaxTimestampLookupTest {
    private static final long NONE = RecordBatch.NO_TIMESTAMP;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();

    private PartitionLog open(LogConfig config) throws IOException {
        return PartitionLog.builder(tmp.resolve("topic-0")).config(config).time(time).open();
    }

    private static ByteBuf records(int n, long timestamp) {
        return TestBatches.batch().records(n, 8, timestamp).build();
    }

    private static TimestampAndOffset max(PartitionLog log) {
        return log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).orElseThrow();
    }

    private static void assertAnswer(long timestamp, long offset, int epoch, TimestampAndOffset actual) {
        assertEquals(new TimestampAndOffset(timestamp, offset, OptionalInt.of(epoch)), actual);
    }

    @Test
    void anEmptyLogHasNoAnswer() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT)) {
            assertTrue(log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).isEmpty());
            log.appendAsLeader(records(2, NONE), 0, AppendOrigin.CLIENT);
            log.truncateTo(0);
            assertTrue(log.fetchOffsetByTimestamp(PartitionLog.MAX_TIMESTAMP).isEmpty());
        }
    }

    @Test
    void recordsWithoutTimestampsAnswerTheFirstRecordOfTheFirstSegment() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT)) {
            log.appendAsLeader(records(3, NONE), 4, AppendOrigin.CLIENT);
            assertAnswer(NONE, 0, 4, max(log));

            log.roll();
            log.appendAsLeader(records(2, NONE), 7, AppendOrigin.CLIENT);
            log.roll();
            log.appendAsLeader(TestBatches.batch().records(2, 8, NONE).compression(CompressionType.GZIP).build(), 7,
                    AppendOrigin.CLIENT);
            assertEquals(3, log.numberOfSegments());
            assertAnswer(NONE, 0, 4, max(log)); // a tie at -1 keeps the first segment
        }
    }

    @Test
    void theFirstSegmentAndBatchReachingTheLargestTimestampAndItsFirstRecordCarryingIt() throws IOException {
        LogConfig cfg = LogConfig.builder().indexIntervalBytes(64).build();
        try (PartitionLog log = open(cfg)) {
            log.appendAsLeader(records(2, NONE), 1, AppendOrigin.CLIENT);                         // 0-1
            log.roll();
            log.appendAsLeader(TestBatches.batch().add("k", "v", 500).add("k", "v", 900).add("k", "v", 900)
                    .build(), 2, AppendOrigin.CLIENT);                                              // 2-4
            log.appendAsLeader(records(3, 900), 3, AppendOrigin.CLIENT);                          // 5-7, a tie
            assertAnswer(900, 3, 2, max(log));

            log.roll();
            log.appendAsLeader(records(2, 900), 5, AppendOrigin.CLIENT);                          // 8-9, a tie
            assertAnswer(900, 3, 2, max(log));
            log.appendAsLeader(TestBatches.batch().add("k", "v", 950).add("k", "v", 100)
                    .compression(CompressionType.LZ4).build(), 6, AppendOrigin.CLIENT);         // 10-11
            assertAnswer(950, 10, 6, max(log));
        }
    }

    @Test
    void logAppendTimeNamesTheFirstRecordOfTheLastBatch() throws IOException {
        LogConfig cfg = LogConfig.builder().timestampType(TimestampType.LOG_APPEND_TIME).build();
        try (PartitionLog log = open(cfg)) {
            log.appendAsLeader(records(2, NONE), 0, AppendOrigin.CLIENT);
            time.sleep(10);
            log.appendAsLeader(records(3, NONE), 1, AppendOrigin.CLIENT);
            assertAnswer(time.milliseconds(), 2, 1, max(log));
        }
    }

    @Test
    void truncationForgetsTheRecordsItRemoves() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT)) {
            log.appendAsLeader(records(2, NONE), 0, AppendOrigin.CLIENT);  // 0-1
            log.appendAsLeader(records(2, 300), 0, AppendOrigin.CLIENT);   // 2-3
            log.roll();
            log.appendAsLeader(records(2, 700), 1, AppendOrigin.CLIENT);   // 4-5
            assertAnswer(700, 4, 1, max(log));

            log.truncateTo(4);
            assertAnswer(300, 2, 0, max(log));
            log.truncateTo(2);
            assertAnswer(NONE, 0, 0, max(log));
        }
    }

    @Test
    void theLogStartOffsetDoesNotHideARecordOfASegmentTheLogStillHolds() throws IOException {
        try (PartitionLog log = open(LogConfig.DEFAULT)) {
            log.appendAsLeader(records(2, 800), 0, AppendOrigin.CLIENT);   // 0-1
            log.appendAsLeader(records(2, 200), 1, AppendOrigin.CLIENT);   // 2-3
            log.roll();
            log.appendAsLeader(records(2, NONE), 2, AppendOrigin.CLIENT);  // 4-5

            log.deleteRecordsBefore(3);
            assertEquals(0L, log.segmentBaseOffsets().get(0)); // it still holds offsets 0-2
            assertAnswer(800, 0, 0, max(log));
            log.deleteRecordsBefore(5); // the first segment goes: the second, without timestamps, is left
            assertEquals(1, log.numberOfSegments());
            assertAnswer(NONE, 4, 2, max(log));
        }
    }
}
