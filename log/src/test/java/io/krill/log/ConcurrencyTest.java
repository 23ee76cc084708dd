package io.krill.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers concurrent with an appender that rolls and a retention thread, with a tiny open-file cache so
 * that channels and index mappings are evicted and reopened all the time: readers only ever see whole,
 * valid batches with increasing offsets, and a slice stays readable after its segment is deleted.
 *
 * <p>Bounded: the readers and the retention thread must stop within {@link #STOP_PATIENCE_SECONDS} of the
 * appender's end, and the test as a whole fails after 3 minutes, even if stuck where interrupts do not
 * reach (it runs on a separate thread).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConcurrencyTest {
    private static final long STOP_PATIENCE_SECONDS = 30;

    @TempDir
    Path tmp;

    @Test
    void readersSeeOnlyCompleteBatchesWhileAppendsRollsAndRetentionRun() throws Exception {
        OpenFileCache cache = new OpenFileCache(3);
        LogConfig cfg = LogConfig.builder().segmentBytes(8192).indexIntervalBytes(256).retentionBytes(64 * 1024)
                .retentionMs(-1).fileDeleteDelayMs(0).build();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        // A real scheduler: post-roll flushes and deletions run concurrently with everything else. An I/O
        // error anywhere (a race taken for a disk failure) is the cause to report, not the offline log after it.
        try (KrillScheduler scheduler = new KrillScheduler(2, "test-scheduler");
                PartitionLog log = PartitionLog.builder(tmp.resolve("c-0")).config(cfg).fileCache(cache)
                        .scheduler(scheduler)
                        .failureHandler((dir, reason, cause) -> errors.add(new AssertionError(reason, cause)))
                        .open()) {
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            AtomicLong batchesRead = new AtomicLong();
            int readers = 3;
            CountDownLatch finished = new CountDownLatch(readers + 1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < readers; t++) {
                int id = t;
                threads.add(new Thread(() -> {
                    try {
                        RecordBatch batch = new RecordBatch();
                        while (!done.get()) {
                            long start = log.logStartOffset();
                            long end = log.logEndOffset();
                            long offset = start + (long) (Math.random() * Math.max(1, end - start));
                            try (LogReadResult res = log.read(offset, 1 + (int) (Math.random() * 20000), Long.MAX_VALUE, id == 0)) {
                                ByteBuf buf = res.records().readAll();
                                if (id == 0 && offset < end) {
                                    assertTrue(buf.writerIndex() > 0, "a read with minOneBatch below the log end "
                                            + end + " returned no batch at " + offset);
                                }
                                long prev = -1;
                                for (int i = 0; i < buf.writerIndex(); i += batch.sizeInBytes()) {
                                    batch.wrap(buf, i);
                                    batch.validate(buf.writerIndex() - i);
                                    assertTrue(batch.baseOffset() > prev, "offsets increase within a read");
                                    prev = batch.lastOffset();
                                    batchesRead.incrementAndGet();
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
                }, "concurrency-reader-" + t));
            }
            threads.add(new Thread(() -> {
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
            }, "concurrency-retention"));
            for (Thread thread : threads) {
                thread.setDaemon(true); // a stuck one must not keep the JVM alive
                thread.start();
            }
            FileSlice held = null;
            try {
                for (int i = 0; i < 2000; i++) {
                    log.appendAsLeader(TestBatches.batch().records(1 + i % 7, 1 + i % 300, i).build(), 0, AppendOrigin.CLIENT);
                    if (i == 100) {
                        held = log.read(0, 100_000, Long.MAX_VALUE, true).records();
                    }
                }
            } catch (KafkaStorageException e) {
                throw new AssertionError("the appender failed; the log's failures: " + errors, e);
            } finally {
                done.set(true); // also when the appender failed: the threads must not outlive the log
            }
            assertTrue(finished.await(STOP_PATIENCE_SECONDS, TimeUnit.SECONDS), () -> finished.getCount()
                    + " reader/retention thread(s) still running " + STOP_PATIENCE_SECONDS + " s after the appender finished");
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(STOP_PATIENCE_SECONDS));
                assertFalse(thread.isAlive(), thread.getName() + " did not end");
            }
            assertTrue(errors.isEmpty(), () -> "reader errors: " + errors);
            assertTrue(reads.get() > 100, "reads " + reads.get());
            assertTrue(batchesRead.get() > 100, "batches read: " + batchesRead.get() + " in " + reads.get() + " reads");
            assertTrue(log.logStartOffset() > 0, "retention deleted segments");
            // The slice taken at the start still reads the (now deleted) first segment.
            List<LogTestUtils.ReadBatch> old = LogTestUtils.batches(held.readAll());
            assertFalse(old.isEmpty(), "the held slice still has its batches");
            assertEquals(0, old.get(0).baseOffset());
            held.close();
            assertTrue(cache.size() <= 3, "open inactive files " + cache.size());
            assertFalse(log.isOffline());
            System.out.printf("concurrency: %d reads, %d batches read, log start offset %d%n", reads.get(),
                    batchesRead.get(), log.logStartOffset());
        }
    }
}
