package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers concurrent with an appender that rolls and a retention thread, with a tiny open-file cache so
 * that channels and index mappings are evicted and reopened all the time: readers only ever see whole,
 * valid batches with increasing offsets, and a slice stays readable after its segment is deleted.
 */
class ConcurrencyTest {
    @TempDir
    Path tmp;

    @Test
    void readersSeeOnlyCompleteBatchesWhileAppendsRollsAndRetentionRun() throws Exception {
        OpenFileCache cache = new OpenFileCache(3);
        LogConfig cfg = LogConfig.builder().segmentBytes(8192).indexIntervalBytes(256).retentionBytes(64 * 1024)
                .retentionMs(-1).fileDeleteDelayMs(0).build();
        // A real scheduler: post-roll flushes and deletions run concurrently with everything else.
        try (KrillScheduler scheduler = new KrillScheduler(2, "test-scheduler");
                PartitionLog log = PartitionLog.builder(tmp.resolve("c-0")).config(cfg).fileCache(cache)
                        .scheduler(scheduler).open()) {
            AtomicBoolean done = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            AtomicLong reads = new AtomicLong();
            int readers = 3;
            CountDownLatch finished = new CountDownLatch(readers + 1);
            for (int t = 0; t < readers; t++) {
                int id = t;
                Thread r = new Thread(() -> {
                    try {
                        RecordBatch batch = new RecordBatch();
                        while (!done.get()) {
                            long start = log.logStartOffset();
                            long end = log.logEndOffset();
                            long offset = start + (long) (Math.random() * Math.max(1, end - start));
                            try (LogReadResult res = log.read(offset, 1 + (int) (Math.random() * 20000), Long.MAX_VALUE, id == 0)) {
                                ByteBuf buf = res.records().readAll();
                                long prev = -1;
                                for (int i = 0; i < buf.writerIndex(); i += batch.sizeInBytes()) {
                                    batch.wrap(buf, i);
                                    batch.validate(buf.writerIndex() - i);
                                    assertTrue(batch.baseOffset() > prev);
                                    prev = batch.lastOffset();
                                }
                                if (reads.incrementAndGet() % 8 == 0) {
                                    Thread.sleep(1); // leave the appender some of the 2 cores
                                }
                            } catch (OffsetOutOfRangeException e) {
                                // retention moved the start meanwhile
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    } finally {
                        finished.countDown();
                    }
                });
                r.start();
            }
            Thread retention = new Thread(() -> {
                try {
                    while (!done.get()) {
                        log.deleteOldSegments();
                        Thread.sleep(1);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    finished.countDown();
                }
            });
            retention.start();
            FileSlice held = null;
            for (int i = 0; i < 2000; i++) {
                log.appendAsLeader(TestBatches.batch().records(1 + i % 7, 1 + i % 300, i).build(), 0, AppendOrigin.CLIENT);
                if (i == 100) {
                    held = log.read(0, 100_000, Long.MAX_VALUE, true).records();
                }
            }
            done.set(true);
            finished.await();
            assertTrue(errors.isEmpty(), () -> "reader errors: " + errors);
            assertTrue(reads.get() > 100, "reads " + reads.get());
            assertTrue(log.logStartOffset() > 0);
            // The slice taken at the start still reads the (now deleted) first segment.
            List<LogTestUtils.ReadBatch> old = LogTestUtils.batches(held.readAll());
            assertEquals(0, old.get(0).baseOffset());
            held.close();
            assertTrue(cache.size() <= 3, "open inactive files " + cache.size());
            assertTrue(!log.isOffline());
        }
    }
}
