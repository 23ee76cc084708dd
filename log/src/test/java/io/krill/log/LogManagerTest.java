package io.krill.log;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.log.checkpoint.CleanShutdownFile;
import io.krill.log.checkpoint.OffsetCheckpointFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
    @TempDir
    Path tmp;

    private LogManagerConfig.Builder config(int dirs) {
        List<Path> paths = new ArrayList<>();
        for (int i = 0; i < dirs; i++) {
            paths.add(tmp.resolve("dir" + i));
        }
        return LogManagerConfig.builder(paths).cleanerEnabled(false);
    }

    private static LogManager start(LogManagerConfig cfg) {
        LogManager m = new LogManager(cfg, Time.SYSTEM, t -> cfg.defaultLogConfig());
        m.startup();
        return m;
    }

    private static TopicPartition tp(int p) {
        return new TopicPartition("orders", p);
    }

    @Test
    void logsSpreadOverDirsAndSurviveACleanRestart() {
        LogManagerConfig cfg = config(2).build();
        LogManager m = start(cfg);
        assertTrue(m.hadUncleanShutdown(), "a new dir is no clean shutdown: it could be a replaced disk");
        for (int p = 0; p < 4; p++) {
            PartitionLog log = m.getOrCreateLog(tp(p), LogConfig.DEFAULT);
            for (int i = 0; i <= p; i++) {
                log.appendAsLeader(TestBatches.records(), 1, AppendOrigin.CLIENT);
            }
        }
        assertEquals(2, countLogsIn(m, cfg.logDirs().get(0)));
        assertEquals(2, countLogsIn(m, cfg.logDirs().get(1)));
        m.getLog(tp(3)).orElseThrow().deleteRecordsBefore(3);
        m.close();
        for (Path d : cfg.logDirs()) {
            assertTrue(CleanShutdownFile.exists(d));
            assertTrue(Files.exists(d.resolve(OffsetCheckpointFile.RECOVERY_POINT)));
        }
        LogManager again = start(cfg);
        try {
            assertFalse(again.hadUncleanShutdown());
            for (Path d : cfg.logDirs()) {
                assertFalse(CleanShutdownFile.exists(d), "the marker is consumed at start-up");
            }
            for (int p = 0; p < 4; p++) {
                PartitionLog log = again.getLog(tp(p)).orElseThrow();
                assertEquals(2L * (p + 1), log.logEndOffset());
                assertEquals(2L * (p + 1), log.recoveryPoint());
            }
            assertEquals(3, again.getLog(tp(3)).orElseThrow().logStartOffset());
        } finally {
            again.close();
        }
    }

    private static long countLogsIn(LogManager m, Path dir) {
        return m.allLogs().stream().filter(l -> l.dir().getParent().equals(dir.toAbsolutePath().normalize())).count();
    }

    @Test
    void aCrashIsRecoveredFromTheRecoveryPoint() throws IOException {
        LogManagerConfig cfg = config(1).defaultLogConfig(LogConfig.builder().segmentBytes(1000).build()).build();
        LogManager m = start(cfg);
        PartitionLog log = m.getOrCreateLog(tp(0), cfg.defaultLogConfig());
        for (int i = 0; i < 50; i++) {
            log.appendAsLeader(TestBatches.batch().records(2, 50, 1000).build(), 0, AppendOrigin.CLIENT);
        }
        List<Long> bases = log.segmentBaseOffsets();
        m.checkpointRecoveryPoints();
        m.crashForTesting();
        Path active = log.dir().resolve(LogFileNames.prefix(bases.get(bases.size() - 1)) + LogFileNames.LOG);
        try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), ch.size());
        }
        assertFalse(CleanShutdownFile.exists(cfg.logDirs().get(0)));
        LogManager again = start(cfg);
        try {
            assertTrue(again.hadUncleanShutdown(), "told to the controller: this broker leaves every ELR");
            PartitionLog recovered = again.getLog(tp(0)).orElseThrow();
            assertEquals(100, recovered.logEndOffset());
            assertEquals(bases, recovered.segmentBaseOffsets());
            recovered.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT);
            assertEquals(102, recovered.logEndOffset());
        } finally {
            again.close();
        }
    }

    /**
     * Many logs over two dirs, loaded by every dir at once and by several threads per dir: after a clean
     * shutdown and after a crash (active indexes left preallocated) every log is back, with its data, and
     * the dirs stay balanced for new logs (their counts follow loads, creations and deletions).
     */
    @Test
    @Timeout(120)
    void manyLogsLoadInParallelAfterACleanShutdownAndAfterACrash() throws IOException {
        int n = 300;
        LogManagerConfig cfg = config(2).recoveryThreadsPerDataDir(3).build();
        LogManager m = start(cfg);
        for (int p = 0; p < n; p++) {
            PartitionLog log = m.getOrCreateLog(tp(p), LogConfig.DEFAULT);
            if (p % 3 == 0) {
                log.appendAsLeader(TestBatches.records(), 1, AppendOrigin.CLIENT);
            }
        }
        assertEquals(n / 2, countLogsIn(m, cfg.logDirs().get(0)));
        assertEquals(n / 2, countLogsIn(m, cfg.logDirs().get(1)));
        Path emptyDir = m.getLog(tp(1)).orElseThrow().dir();
        Path usedDir = m.getLog(tp(0)).orElseThrow().dir();
        m.close();
        for (Path d : cfg.logDirs()) {
            assertTrue(CleanShutdownFile.exists(d));
        }
        // A log holding nothing gets no producer snapshot at close (loading it replays nothing); one with data does.
        assertEquals(0, snapshotsIn(emptyDir));
        assertEquals(1, snapshotsIn(usedDir));
        LogManager clean = start(cfg);
        assertLoaded(clean, n);
        clean.crashForTesting();
        for (Path d : cfg.logDirs()) {
            assertFalse(CleanShutdownFile.exists(d));
        }
        LogManager crashed = start(cfg);
        try {
            assertLoaded(crashed, n);
            for (PartitionLog log : crashed.allLogs()) {
                assertEquals(log.topicPartition().partition() % 3 == 0 ? 2 : 0, log.logEndOffset(), log.topicPartition().toString());
                assertEquals(1, log.loadStats().recoveredSegments(), log.topicPartition().toString());
            }
            // The per-dir counts are those of the loaded logs: deleting two logs of dir0 sends new logs there.
            List<TopicPartition> inDir0 = new ArrayList<>();
            for (PartitionLog log : crashed.allLogs()) {
                if (log.dir().getParent().equals(cfg.logDirs().get(0).toAbsolutePath().normalize()) && inDir0.size() < 2) {
                    inDir0.add(log.topicPartition());
                }
            }
            for (TopicPartition tp : inDir0) {
                crashed.deleteLog(tp);
            }
            for (int p = n; p < n + 2; p++) {
                PartitionLog log = crashed.getOrCreateLog(tp(p), LogConfig.DEFAULT);
                assertEquals(cfg.logDirs().get(0).toAbsolutePath().normalize(), log.dir().getParent());
            }
        } finally {
            crashed.close();
        }
    }

    private static long snapshotsIn(Path logDir) throws IOException {
        try (Stream<Path> s = Files.list(logDir)) {
            return s.filter(f -> f.getFileName().toString().endsWith(".snapshot")).count();
        }
    }

    private static void assertLoaded(LogManager m, int n) {
        assertEquals(n, m.allLogs().size());
        for (int p = 0; p < n; p++) {
            PartitionLog log = m.getLog(tp(p)).orElseThrow();
            assertEquals(p % 3 == 0 ? 2 : 0, log.logEndOffset(), tp(p).toString());
        }
    }

    /** Concurrent creations: one log per partition whatever the races, spread evenly over the dirs. */
    @Test
    @Timeout(120)
    void concurrentCreationsMakeOneLogPerPartition() throws Exception {
        LogManagerConfig cfg = config(2).build();
        LogManager m = start(cfg);
        int threads = 4;
        int partitions = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<PartitionLog>>> results = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    List<PartitionLog> got = new ArrayList<>();
                    for (int p = 0; p < partitions; p++) {
                        got.add(m.getOrCreateLog(tp(p), LogConfig.DEFAULT));
                    }
                    return got;
                }));
            }
            go.countDown();
            List<PartitionLog> first = results.get(0).get();
            for (Future<List<PartitionLog>> f : results) {
                List<PartitionLog> got = f.get();
                for (int p = 0; p < partitions; p++) {
                    assertSame(first.get(p), got.get(p), "partition " + p);
                }
            }
            assertEquals(partitions, m.allLogs().size());
            assertEquals(partitions / 2, countLogsIn(m, cfg.logDirs().get(0)));
            assertEquals(partitions / 2, countLogsIn(m, cfg.logDirs().get(1)));
        } finally {
            pool.shutdownNow();
            m.close();
        }
    }

    @Test
    void retentionRunsOnTheScheduler() {
        LogConfig logCfg = LogConfig.builder().segmentBytes(500).retentionMs(60_000).build();
        LogManagerConfig cfg = config(1).defaultLogConfig(logCfg).retentionCheckIntervalMs(50).build();
        LogManager m = start(cfg);
        try {
            PartitionLog log = m.getOrCreateLog(tp(0), logCfg);
            long old = System.currentTimeMillis() - 3_600_000;
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(TestBatches.batch().records(2, 40, old).build(), 0, AppendOrigin.CLIENT);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> log.numberOfSegments() == 1);
            assertTrue(log.logStartOffset() > 30, "start " + log.logStartOffset());
            assertEquals(log.segmentBaseOffsets().get(0), log.logStartOffset());
            // deleted files are removed after file.delete.delay.ms; the log keeps working
            log.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT);
        } finally {
            m.close();
        }
    }

    @Test
    void flushMsAdvancesTheRecoveryPoint() {
        LogConfig logCfg = LogConfig.builder().segmentBytes(500).flushMs(10).build();
        LogManagerConfig cfg = config(1).defaultLogConfig(logCfg).flushCheckIntervalMs(20).build();
        LogManager m = start(cfg);
        try {
            PartitionLog log = m.getOrCreateLog(tp(0), logCfg);
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(TestBatches.batch().records(2, 40, 1).build(), 0, AppendOrigin.CLIENT);
            }
            long lastBase = log.segmentBaseOffsets().get(log.numberOfSegments() - 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> log.flushedOffset() == log.logEndOffset());
            assertEquals(lastBase, log.recoveryPoint());
        } finally {
            m.close();
        }
    }

    @Test
    void flushMessagesOneFlushesEveryAppend() throws IOException {
        LogConfig logCfg = LogConfig.builder().flushMessages(1).build();
        try (PartitionLog log = PartitionLog.builder(tmp.resolve("f-0")).config(logCfg).open()) {
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(TestBatches.batch().records(3, 10, 1).build(), 0, AppendOrigin.CLIENT);
                assertEquals(log.logEndOffset(), log.flushedOffset());
            }
        }
        LogConfig lazy = LogConfig.builder().flushMessages(10).build();
        try (PartitionLog log = PartitionLog.builder(tmp.resolve("g-0")).config(lazy).open()) {
            log.appendAsLeader(TestBatches.batch().records(3, 10, 1).build(), 0, AppendOrigin.CLIENT);
            assertEquals(0, log.flushedOffset());
            log.appendAsLeader(TestBatches.batch().records(8, 10, 1).build(), 0, AppendOrigin.CLIENT);
            assertEquals(11, log.flushedOffset());
        }
    }

    @Test
    void anIoErrorTakesTheDirectoryOffline() throws IOException {
        LogConfig logCfg = LogConfig.builder().segmentBytes(300).build();
        LogManagerConfig cfg = config(2).defaultLogConfig(logCfg).build();
        LogManager m = start(cfg);
        List<Path> failed = new CopyOnWriteArrayList<>();
        m.addFailureListener((dir, reason, cause) -> failed.add(dir));
        try {
            PartitionLog victim = m.getOrCreateLog(tp(0), logCfg);
            PartitionLog other = m.getOrCreateLog(tp(1), logCfg);
            assertNotEquals(victim.dir().getParent(), other.dir().getParent());
            victim.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT);
            // The disk "loses" the partition directory: the next roll cannot create its segment.
            deleteRecursively(victim.dir());
            assertThrows(KafkaStorageException.class, () -> {
                for (int i = 0; i < 20; i++) {
                    victim.appendAsLeader(TestBatches.batch().records(2, 60, 1).build(), 0, AppendOrigin.CLIENT);
                }
            });
            assertEquals(List.of(victim.dir().getParent().toAbsolutePath().normalize()), failed);
            assertTrue(victim.isOffline());
            assertThrows(KafkaStorageException.class, () -> victim.read(0, 100, Long.MAX_VALUE, true));
            assertThrows(KafkaStorageException.class, () -> victim.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT));
            assertTrue(m.getLog(tp(0)).isEmpty());
            assertEquals(Map.of(tp(0), victim.dir().getParent().toAbsolutePath().normalize()), m.offlineLogs());
            assertEquals(1, m.liveLogDirs().size());
            // The other directory carries on, and new logs go there.
            other.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT);
            PartitionLog fresh = m.getOrCreateLog(tp(2), logCfg);
            assertEquals(other.dir().getParent(), fresh.dir().getParent());
            m.cleanupLogs();
            m.checkpointRecoveryPoints();
        } finally {
            m.close();
        }
        assertFalse(CleanShutdownFile.exists(cfg.logDirs().get(0)) && CleanShutdownFile.exists(cfg.logDirs().get(1)));
    }

    @Test
    void deleteLogRemovesTheDirectory() {
        LogManagerConfig cfg = config(1).build();
        LogManager m = start(cfg);
        try {
            PartitionLog log = m.getOrCreateLog(tp(0), LogConfig.DEFAULT);
            log.appendAsLeader(TestBatches.records(), 0, AppendOrigin.CLIENT);
            Path dir = log.dir();
            m.deleteLog(tp(0));
            assertTrue(m.getLog(tp(0)).isEmpty());
            assertFalse(Files.exists(dir));
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                try (Stream<Path> s = Files.list(cfg.logDirs().get(0))) {
                    return s.noneMatch(p -> p.getFileName().toString().endsWith("-delete"));
                }
            });
            PartitionLog recreated = m.getOrCreateLog(tp(0), LogConfig.DEFAULT);
            assertEquals(0, recreated.logEndOffset());
        } finally {
            m.close();
        }
    }

    @Test
    void highWatermarkCheckpointAndDirLock() {
        LogManagerConfig cfg = config(1).build();
        LogManager m = start(cfg);
        try {
            m.getOrCreateLog(tp(0), LogConfig.DEFAULT);
            m.getOrCreateLog(tp(1), LogConfig.DEFAULT);
            m.checkpointHighWatermarks(Map.of(tp(0), 5L, tp(1), 7L, tp(9), 1L));
            assertEquals(Map.of(tp(0), 5L, tp(1), 7L), m.readHighWatermarks());
            // A second manager on the same directory cannot lock it.
            LogManager second = start(cfg);
            try {
                assertEquals(1, second.offlineLogDirs().size());
                assertTrue(second.allLogs().isEmpty());
            } finally {
                second.close();
            }
        } finally {
            m.close();
        }
    }

    @Test
    void propertiesUseKafkaNames() {
        LogManagerConfig cfg = LogManagerConfig.fromProperties(Map.of("log.dirs", tmp + "/a," + tmp + "/b",
                "log.retention.hours", "1", "log.segment.bytes", "123456", "log.cleanup.policy", "compact",
                "log.retention.check.interval.ms", "1000", "log.flush.interval.messages", "1"));
        assertEquals(2, cfg.logDirs().size());
        assertEquals(3_600_000, cfg.defaultLogConfig().retentionMs());
        assertEquals(123456, cfg.defaultLogConfig().segmentBytes());
        assertTrue(cfg.defaultLogConfig().compactEnabled());
        assertFalse(cfg.defaultLogConfig().deleteEnabled());
        assertEquals(1, cfg.defaultLogConfig().flushMessages());
        LogConfig topic = LogConfig.fromProperties(Map.of("cleanup.policy", "compact,delete", "retention.ms", "5"),
                cfg.defaultLogConfig());
        assertEquals("compact,delete", topic.cleanupPolicy());
        assertEquals(5, topic.retentionMs());
        assertThrows(IllegalArgumentException.class, () -> LogConfig.fromProperties(Map.of("segment.bytes", "x"), LogConfig.DEFAULT));
    }

    private static void deleteRecursively(Path p) throws IOException {
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
