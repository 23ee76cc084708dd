package io.krill.log;

import io.krill.log.checkpoint.CleanShutdownFile;
import io.krill.log.checkpoint.OffsetCheckpointFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition logs of a broker across its {@code log.dirs}: loads them at start-up (recovering after an
 * unclean shutdown), creates and deletes them, and owns the background work: the scheduler running
 * retention ({@code log.retention.check.interval.ms}), {@code flush.ms} checks, recovery-point and
 * log-start-offset checkpoints, producer-id expiration and delayed file deletion, and the log cleaner
 * thread for compacted topics.
 *
 * <p>Per log dir: a {@code .lock} file held while running, {@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint}, {@code cleaner-offset-checkpoint}, {@code
 * replication-offset-checkpoint} (high watermarks, written through {@link #checkpointHighWatermarks}) and
 * the {@code .kafka_cleanshutdown} marker written last by {@link #close()}.
 *
 * <p>Scale: the dirs load at once, each on {@code num.recovery.threads.per.data.dir} threads, and each
 * logs one summary line (logs, how many crash recovery re-read and truncated, time); a log after an
 * unclean shutdown is recovered from its recovery point as ordinary work, not reported per log. Creating
 * a log is serialised with other creations only while its dir is reserved (dirs keep a count of their
 * logs, so picking one does not depend on how many logs there are); close runs in parallel like loading.
 *
 * <p>Failure: an I/O error in any log takes its whole directory offline: the directory's logs refuse
 * further calls ({@link KafkaStorageException}), are dropped from {@link #getLog}, and the
 * {@link LogDirFailureHandler}s added with {@link #addFailureListener} are told; the process keeps
 * running on the other directories.
 *
 * <p>Thread-safety: all methods are thread-safe.
 */
public final class LogManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogManager.class);
    private static final String LOCK_FILE = ".lock";
    private static final String DELETE_SUFFIX = "-delete";

    private final LogManagerConfig config;
    private final Time time;
    private final Function<String, LogConfig> topicConfigs;
    private final KrillScheduler scheduler;
    private final OpenFileCache fileCache;
    private final ConcurrentHashMap<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TopicPartition, Path> offlineLogs = new ConcurrentHashMap<>();
    private final Set<Path> offlineDirs = ConcurrentHashMap.newKeySet();
    private final Map<Path, FileLock> dirLocks = new ConcurrentHashMap<>();
    private final List<LogDirFailureHandler> listeners = new CopyOnWriteArrayList<>();
    /** Held briefly to reserve a partition's creation and its dir; the log opens outside it. */
    private final Object createLock = new Object();
    /** Creations in progress (reserved under createLock): a second caller for the same partition waits. */
    private final Map<TopicPartition, CompletableFuture<PartitionLog>> creating = new HashMap<>();
    /** Online logs per dir (key: a member of {@link #dirs}), so that picking a dir is not O(logs). */
    private final ConcurrentHashMap<Path, AtomicInteger> logCounts = new ConcurrentHashMap<>();
    private final List<Path> dirs;
    private volatile LogCleaner cleaner;
    private volatile boolean started;
    private volatile boolean closed;
    /** A dir had no clean-shutdown marker at start-up: the previous run did not close it, or it is new. */
    private volatile boolean uncleanShutdown;

    /**
     * @param topicConfigs the config of a topic's logs by topic name (topic overrides over the defaults);
     *                     used when logs are loaded at start-up
     */
    public LogManager(LogManagerConfig config, Time time, Function<String, LogConfig> topicConfigs) {
        this.config = config;
        this.time = time;
        this.topicConfigs = topicConfigs;
        this.scheduler = new KrillScheduler(config.schedulerThreads(), "krill-log-scheduler");
        this.fileCache = new OpenFileCache(config.maxOpenInactiveFiles());
        List<Path> abs = new ArrayList<>();
        for (Path d : config.logDirs()) {
            abs.add(d.toAbsolutePath().normalize());
        }
        this.dirs = List.copyOf(abs);
    }

    public LogManager(LogManagerConfig config) {
        this(config, Time.SYSTEM, topic -> config.defaultLogConfig());
    }

    // =============================================================== start-up

    /**
     * Whether {@link #startup()} found a log dir without its clean-shutdown marker: the previous run ended
     * without closing it (kill -9, power loss), so records it had not flushed may be gone, or the dir is new
     * (a first start, or a replaced disk that lost everything). The broker tells the controller, which then
     * no longer counts it as an eligible leader replica (harmless on a first start: it is in no ELR yet).
     */
    public boolean hadUncleanShutdown() {
        return uncleanShutdown;
    }

    /** Locks and loads every log dir, then starts the periodic tasks and the cleaner. */
    public synchronized void startup() {
        if (started) {
            return;
        }
        started = true;
        // Every dir loads at once, each with its own num.recovery.threads.per.data.dir threads (as Kafka).
        List<Thread> loaders = new ArrayList<>();
        for (Path dir : dirs) {
            Runnable load = () -> {
                try {
                    loadDir(dir);
                } catch (IOException | RuntimeException e) {
                    IOException io = e instanceof IOException i ? i : new IOException(e);
                    handleLogDirFailure(dir, "loading logs failed", io);
                }
            };
            if (dirs.size() == 1) {
                load.run();
            } else {
                Thread t = new Thread(load, "krill-log-load-" + dir.getFileName());
                t.setDaemon(true);
                t.start();
                loaders.add(t);
            }
        }
        for (Thread t : loaders) {
            boolean interrupted = false;
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        scheduler.schedulePeriodic("log-retention", this::cleanupLogs, config.retentionCheckIntervalMs(),
                config.retentionCheckIntervalMs());
        scheduler.schedulePeriodic("log-flusher", this::flushDirtyLogs, config.flushCheckIntervalMs(),
                config.flushCheckIntervalMs());
        scheduler.schedulePeriodic("recovery-point-checkpoint", this::checkpointRecoveryPoints,
                config.recoveryPointCheckpointIntervalMs(), config.recoveryPointCheckpointIntervalMs());
        scheduler.schedulePeriodic("log-start-offset-checkpoint", this::checkpointLogStartOffsets,
                config.logStartOffsetCheckpointIntervalMs(), config.logStartOffsetCheckpointIntervalMs());
        scheduler.schedulePeriodic("producer-id-expiration", this::removeExpiredProducers,
                config.producerIdExpirationCheckIntervalMs(), config.producerIdExpirationCheckIntervalMs());
        if (config.cleanerEnabled()) {
            cleaner = new LogCleaner(this, config, time);
            cleaner.start();
        }
    }

    private void loadDir(Path dir) throws IOException {
        long startNs = System.nanoTime();
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock = lockChannel.tryLock();
        if (lock == null) {
            lockChannel.close();
            throw new IOException("log dir " + dir + " is locked by another process");
        }
        dirLocks.put(dir, lock);
        boolean clean = CleanShutdownFile.exists(dir);
        Map<TopicPartition, Long> recoveryPoints = readCheckpoint(dir, OffsetCheckpointFile.RECOVERY_POINT);
        Map<TopicPartition, Long> startOffsets = readCheckpoint(dir, OffsetCheckpointFile.LOG_START_OFFSET);
        List<Path> partitionDirs = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (!Files.isDirectory(p)) {
                    continue;
                }
                String name = p.getFileName().toString();
                if (name.endsWith(DELETE_SUFFIX)) {
                    scheduler.schedule("delete-dir-" + name, () -> deleteRecursively(p), 0);
                } else if (TopicPartition.parseDirName(name) != null) {
                    partitionDirs.add(p);
                } else {
                    log.info("ignoring {} in log dir {}: not a partition directory", name, dir);
                }
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(config.recoveryThreadsPerDataDir(), r -> {
            Thread t = new Thread(r, "krill-log-recovery-" + dir.getFileName());
            t.setDaemon(true);
            return t;
        });
        int recoveredLogs = 0;
        int truncatedLogs = 0;
        long truncatedBytes = 0;
        try {
            List<Future<PartitionLog>> loads = new ArrayList<>();
            for (Path p : partitionDirs) {
                TopicPartition tp = TopicPartition.parseDirName(p.getFileName().toString());
                loads.add(pool.submit(() -> openLog(dir, tp, topicConfigs.apply(tp.topic()),
                        recoveryPoints.getOrDefault(tp, 0L), startOffsets.getOrDefault(tp, 0L), clean)));
            }
            for (Future<PartitionLog> f : loads) {
                PartitionLog l = f.get();
                PartitionLog prev = logs.putIfAbsent(l.topicPartition(), l);
                if (prev != null) {
                    throw new IOException("duplicate log for " + l.topicPartition() + " in " + prev.dir() + " and " + l.dir());
                }
                logCount(dir).incrementAndGet();
                LogLoader.LoadStats stats = l.loadStats();
                if (stats.recoveredSegments() > 0) {
                    recoveredLogs++;
                }
                if (stats.truncatedBytes() > 0) {
                    truncatedLogs++;
                    truncatedBytes += stats.truncatedBytes();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while loading " + dir, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? io : new IOException(cause);
        } finally {
            pool.shutdownNow();
        }
        CleanShutdownFile.delete(dir);
        if (!clean) {
            uncleanShutdown = true; // an empty dir too: a replaced disk has lost everything
        }
        long ms = (System.nanoTime() - startNs) / 1_000_000;
        if (clean || partitionDirs.isEmpty()) {
            log.info("loaded {} logs from {} in {} ms ({})", partitionDirs.size(), dir, ms,
                    clean ? "clean shutdown" : "no logs yet");
        } else {
            log.info("loaded {} logs from {} in {} ms (unclean shutdown: {} recovered from their recovery point, "
                    + "{} of them truncated by {} bytes in all)", partitionDirs.size(), dir, ms, recoveredLogs,
                    truncatedLogs, truncatedBytes);
        }
    }

    /** The number of online logs of {@code dir} (one of {@link #dirs}), kept for {@link #pickDir()}. */
    private AtomicInteger logCount(Path dir) {
        return logCounts.computeIfAbsent(dir, d -> new AtomicInteger());
    }

    private Map<TopicPartition, Long> readCheckpoint(Path dir, String name) {
        try {
            return new OffsetCheckpointFile(dir.resolve(name)).readOffsets();
        } catch (IOException e) {
            log.warn("unreadable {} in {} ({}); recovering without it", name, dir, e.getMessage());
            return Map.of();
        }
    }

    private PartitionLog openLog(Path dir, TopicPartition tp, LogConfig cfg, long recoveryPoint, long logStartOffset,
            boolean clean) throws IOException {
        return PartitionLog.builder(dir.resolve(tp.dirName()))
                .config(cfg)
                .time(time)
                .scheduler(scheduler)
                .fileCache(fileCache)
                .failureHandler(this::handleLogDirFailure)
                .recoveryPoint(recoveryPoint)
                .logStartOffset(logStartOffset)
                .hadCleanShutdown(clean)
                .producerIdExpirationMs(config.producerIdExpirationMs())
                .open();
    }

    // =============================================================== logs

    /** The log of {@code tp} if it is online here. */
    public Optional<PartitionLog> getLog(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    /**
     * The log of {@code tp}, created empty in the online log dir holding the fewest logs if missing.
     * Creations of different partitions run concurrently: only reserving the partition and its dir is
     * serialised (a concurrent call for the same partition waits for the first one's log). Creating a log
     * costs one {@code mkdir} and one {@code open} of its {@code .log} file (see {@link LogLoader}), and it
     * maps nothing until its indexes get entries.
     */
    public PartitionLog getOrCreateLog(TopicPartition tp, LogConfig cfg) {
        PartitionLog existing = logs.get(tp);
        if (existing != null) {
            return existing;
        }
        CompletableFuture<PartitionLog> mine;
        CompletableFuture<PartitionLog> other;
        Path dir;
        synchronized (createLock) {
            existing = logs.get(tp);
            if (existing != null) {
                return existing;
            }
            other = creating.get(tp);
            if (other == null) {
                if (offlineLogs.containsKey(tp)) {
                    throw new KafkaStorageException(tp + " is in an offline log dir");
                }
                dir = pickDir();
                logCount(dir).incrementAndGet();
                mine = new CompletableFuture<>();
                creating.put(tp, mine);
            } else {
                dir = null;
                mine = null;
            }
        }
        if (other != null) {
            return awaitCreation(tp, other);
        }
        PartitionLog created = null;
        IOException failure = null;
        try {
            created = openLog(dir, tp, cfg, 0, 0, true);
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException | Error e) {
            failure = new IOException(e);
        }
        synchronized (createLock) {
            creating.remove(tp);
            if (created != null) {
                logs.put(tp, created);
            } else {
                logCount(dir).decrementAndGet();
            }
        }
        if (failure != null) {
            handleLogDirFailure(dir, "creating the log of " + tp + " failed", failure);
            KafkaStorageException e = new KafkaStorageException("creating the log of " + tp + " in " + dir + " failed",
                    failure);
            mine.completeExceptionally(e);
            throw e;
        }
        if (offlineDirs.contains(dir)) {
            // The dir failed while the log was opening: it goes offline with the dir's other logs (checked
            // after publishing it, so that it cannot slip between the failure's sweep and this put).
            if (logs.remove(tp, created)) {
                logCount(dir).decrementAndGet();
            }
            offlineLogs.put(tp, dir);
            created.markOffline();
            KafkaStorageException e = new KafkaStorageException(tp + " is in an offline log dir");
            mine.completeExceptionally(e);
            throw e;
        }
        log.debug("created log for {} in {}", tp, dir); // PartitionManager logs one line per batch
        mine.complete(created);
        return created;
    }

    private static PartitionLog awaitCreation(TopicPartition tp, CompletableFuture<PartitionLog> creation) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return creation.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof KafkaStorageException kse) {
                        throw kse;
                    }
                    throw new KafkaStorageException("creating the log of " + tp + " failed", cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The online dir with the fewest logs (ties: the smallest path); caller holds createLock. */
    private Path pickDir() {
        Path best = null;
        int bestCount = Integer.MAX_VALUE;
        for (Path d : dirs) {
            if (offlineDirs.contains(d)) {
                continue;
            }
            int c = logCount(d).get();
            if (best == null || c < bestCount || (c == bestCount && d.compareTo(best) < 0)) {
                best = d;
                bestCount = c;
            }
        }
        if (best == null) {
            throw new KafkaStorageException("every log dir is offline");
        }
        return best;
    }

    /** The online logs. */
    public Collection<PartitionLog> allLogs() {
        return new ArrayList<>(logs.values());
    }

    /**
     * Deletes the log of {@code tp}: closes it, renames its directory to
     * {@code <topic>-<partition>.<uuid>-delete} and removes that asynchronously (a crash in between leaves
     * a {@code -delete} directory that the next start-up removes).
     */
    public void deleteLog(TopicPartition tp) {
        PartitionLog l;
        CompletableFuture<PartitionLog> inFlight;
        synchronized (createLock) {
            inFlight = creating.get(tp);
        }
        if (inFlight != null) {
            try {
                awaitCreation(tp, inFlight);
            } catch (KafkaStorageException e) {
                log.debug("the creation of {} failed before its deletion", tp, e);
            }
        }
        synchronized (createLock) {
            l = logs.remove(tp);
            if (l != null) {
                logCount(dirOf(l)).decrementAndGet();
            }
        }
        if (l == null) {
            return;
        }
        LogCleaner c = cleaner;
        if (c != null) {
            c.abortAndForget(tp);
        }
        try {
            l.closeHandles();
            Path target = l.dir().resolveSibling(tp.dirName() + "." + UUID.randomUUID().toString().replace("-", "")
                    + DELETE_SUFFIX);
            Files.move(l.dir(), target);
            io.krill.log.checkpoint.AtomicFile.fsyncDirectory(target.getParent());
            scheduler.schedule("delete-dir-" + tp, () -> deleteRecursively(target), 0);
            log.info("deleted log for {}", tp);
        } catch (IOException e) {
            handleLogDirFailure(l.dir().getParent(), "deleting the log of " + tp + " failed", e);
        }
    }

    private static Path dirOf(PartitionLog l) {
        return l.dir().getParent().toAbsolutePath().normalize();
    }

    private static void deleteRecursively(Path p) {
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            log.warn("deleting {} failed", p, e);
        }
    }

    /** Changes the config of every log of {@code topic}. */
    public void updateTopicConfig(String topic, LogConfig cfg) {
        for (PartitionLog l : logs.values()) {
            if (l.topicPartition().topic().equals(topic)) {
                l.updateConfig(cfg);
            }
        }
    }

    public OpenFileCache fileCache() {
        return fileCache;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** The cleaner, or null when disabled (or before start-up). */
    public LogCleaner cleaner() {
        return cleaner;
    }

    public List<Path> logDirs() {
        return dirs;
    }

    // =============================================================== failure

    public void addFailureListener(LogDirFailureHandler listener) {
        listeners.add(listener);
    }

    public Set<Path> offlineLogDirs() {
        return Set.copyOf(offlineDirs);
    }

    public List<Path> liveLogDirs() {
        List<Path> live = new ArrayList<>();
        for (Path d : dirs) {
            if (!offlineDirs.contains(d)) {
                live.add(d);
            }
        }
        return live;
    }

    /** Partitions whose log dir went offline, with the dir. */
    public Map<TopicPartition, Path> offlineLogs() {
        return Map.copyOf(offlineLogs);
    }

    /** Takes {@code logDir} offline (idempotent) and tells the listeners. */
    public void handleLogDirFailure(Path logDir, String reason, IOException cause) {
        Path dir = logDir.toAbsolutePath().normalize();
        if (!offlineDirs.add(dir)) {
            return;
        }
        log.error("log dir {} is offline: {}", dir, reason, cause);
        for (PartitionLog l : logs.values()) {
            if (dirOf(l).equals(dir)) {
                if (logs.remove(l.topicPartition(), l)) {
                    AtomicInteger count = logCounts.get(dir);
                    if (count != null) {
                        count.decrementAndGet();
                    }
                }
                offlineLogs.put(l.topicPartition(), dir);
                l.markOffline();
            }
        }
        FileLock lock = dirLocks.remove(dir);
        if (lock != null) {
            try {
                lock.channel().close();
            } catch (IOException e) {
                log.debug("closing the lock of {} failed", dir, e);
            }
        }
        for (LogDirFailureHandler h : listeners) {
            try {
                h.onLogDirFailure(dir, reason, cause);
            } catch (RuntimeException e) {
                log.warn("log dir failure listener threw", e);
            }
        }
    }

    // =============================================================== background work

    /** Runs retention on every log (the scheduler calls this every log.retention.check.interval.ms). */
    public void cleanupLogs() {
        for (PartitionLog l : logs.values()) {
            try {
                l.deleteOldSegments();
            } catch (KafkaStorageException e) {
                log.debug("retention of {} skipped: {}", l.topicPartition(), e.getMessage());
            }
        }
    }

    /** Flushes logs whose flush.ms passed. */
    public void flushDirtyLogs() {
        long now = time.milliseconds();
        for (PartitionLog l : logs.values()) {
            try {
                l.flushIfDue(now);
            } catch (KafkaStorageException e) {
                log.debug("flush of {} skipped: {}", l.topicPartition(), e.getMessage());
            }
        }
    }

    private void removeExpiredProducers() {
        long now = time.milliseconds();
        for (PartitionLog l : logs.values()) {
            l.removeExpiredProducers(now);
        }
    }

    /** Writes every online dir's recovery-point checkpoint. */
    public void checkpointRecoveryPoints() {
        writeCheckpoints(OffsetCheckpointFile.RECOVERY_POINT, PartitionLog::recoveryPoint);
    }

    /** Writes every online dir's log-start-offset checkpoint. */
    public void checkpointLogStartOffsets() {
        writeCheckpoints(OffsetCheckpointFile.LOG_START_OFFSET, PartitionLog::logStartOffset);
    }

    private void writeCheckpoints(String name, java.util.function.ToLongFunction<PartitionLog> value) {
        for (Map.Entry<Path, Map<TopicPartition, Long>> e : byDir(value).entrySet()) {
            try {
                new OffsetCheckpointFile(e.getKey().resolve(name)).writeOffsets(e.getValue());
            } catch (IOException ex) {
                handleLogDirFailure(e.getKey(), "writing " + name + " failed", ex);
            }
        }
    }

    private Map<Path, Map<TopicPartition, Long>> byDir(java.util.function.ToLongFunction<PartitionLog> value) {
        Map<Path, Map<TopicPartition, Long>> result = new HashMap<>();
        for (Path d : dirs) {
            if (!offlineDirs.contains(d)) {
                result.put(d, new HashMap<>());
            }
        }
        for (PartitionLog l : logs.values()) {
            Map<TopicPartition, Long> m = result.get(l.dir().getParent().toAbsolutePath().normalize());
            if (m != null) {
                m.put(l.topicPartition(), value.applyAsLong(l));
            }
        }
        return result;
    }

    /**
     * Writes the broker's high watermarks to each online dir's {@code replication-offset-checkpoint}
     * (entries for partitions whose log is in that dir).
     */
    public void checkpointHighWatermarks(Map<TopicPartition, Long> highWatermarks) {
        Map<Path, Map<TopicPartition, Long>> perDir = new HashMap<>();
        for (Path d : dirs) {
            if (!offlineDirs.contains(d)) {
                perDir.put(d, new HashMap<>());
            }
        }
        for (Map.Entry<TopicPartition, Long> e : highWatermarks.entrySet()) {
            PartitionLog l = logs.get(e.getKey());
            if (l != null) {
                Map<TopicPartition, Long> m = perDir.get(l.dir().getParent().toAbsolutePath().normalize());
                if (m != null) {
                    m.put(e.getKey(), e.getValue());
                }
            }
        }
        for (Map.Entry<Path, Map<TopicPartition, Long>> e : perDir.entrySet()) {
            try {
                new OffsetCheckpointFile(e.getKey().resolve(OffsetCheckpointFile.REPLICATION_OFFSET))
                        .writeOffsets(e.getValue());
            } catch (IOException ex) {
                handleLogDirFailure(e.getKey(), "writing the high watermark checkpoint failed", ex);
            }
        }
    }

    /** The high watermarks of every online dir's {@code replication-offset-checkpoint}. */
    public Map<TopicPartition, Long> readHighWatermarks() {
        Map<TopicPartition, Long> result = new HashMap<>();
        for (Path d : liveLogDirs()) {
            result.putAll(readCheckpoint(d, OffsetCheckpointFile.REPLICATION_OFFSET));
        }
        return result;
    }

    // =============================================================== shutdown

    /**
     * Clean shutdown: stops the cleaner and the scheduler, closes every log (flush, producer snapshot,
     * trimmed indexes), writes the checkpoints, and finally each online dir's clean-shutdown marker.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LogCleaner c = cleaner;
        if (c != null) {
            c.close();
        }
        scheduler.close();
        Map<Path, Boolean> dirOk = new ConcurrentHashMap<>();
        closeLogsInParallel(dirOk);
        checkpointRecoveryPoints();
        checkpointLogStartOffsets();
        if (c != null) {
            c.checkpointAll();
        }
        for (Path d : dirs) {
            if (offlineDirs.contains(d) || dirOk.containsKey(d) || !started) {
                continue;
            }
            try {
                CleanShutdownFile.write(d);
            } catch (IOException e) {
                log.warn("writing the clean shutdown marker of {} failed", d, e);
            }
        }
        for (FileLock lock : dirLocks.values()) {
            try {
                lock.channel().close();
            } catch (IOException e) {
                log.debug("releasing a log dir lock failed", e);
            }
        }
        dirLocks.clear();
        fileCache.invalidateAll();
        log.info("log manager shut down");
    }

    /**
     * Closes every log on num.recovery.threads.per.data.dir threads per dir, all dirs at once (as Kafka's
     * shutdown); a dir with a log that failed to close is put in {@code dirOk} (false) and gets no
     * clean-shutdown marker.
     */
    private void closeLogsInParallel(Map<Path, Boolean> dirOk) {
        Map<Path, List<PartitionLog>> byDir = new HashMap<>();
        for (PartitionLog l : logs.values()) {
            byDir.computeIfAbsent(dirOf(l), d -> new ArrayList<>()).add(l);
        }
        int threads = Math.max(1, Math.min(config.recoveryThreadsPerDataDir() * Math.max(1, byDir.size()),
                Math.max(1, logs.size())));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "krill-log-close");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> closes = new ArrayList<>();
            for (Map.Entry<Path, List<PartitionLog>> e : byDir.entrySet()) {
                for (PartitionLog l : e.getValue()) {
                    closes.add(pool.submit(() -> {
                        try {
                            l.close();
                        } catch (RuntimeException ex) {
                            dirOk.put(e.getKey(), false);
                            log.warn("closing {} failed", l.topicPartition(), ex);
                        }
                    }));
                }
            }
            boolean interrupted = false;
            for (Future<?> f : closes) {
                while (true) {
                    try {
                        f.get();
                        break;
                    } catch (InterruptedException ex) {
                        interrupted = true;
                    } catch (ExecutionException ex) {
                        log.warn("closing a log failed", ex.getCause());
                        break;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Simulates a crash for tests: drops everything without flushing, checkpointing or marking clean. */
    void crashForTesting() {
        closed = true;
        LogCleaner c = cleaner;
        if (c != null) {
            c.close();
        }
        scheduler.close();
        for (PartitionLog l : logs.values()) {
            l.closeHandles();
        }
        for (FileLock lock : dirLocks.values()) {
            try {
                lock.channel().close();
            } catch (IOException e) {
                log.debug("releasing a log dir lock failed", e);
            }
        }
        dirLocks.clear();
    }
}
