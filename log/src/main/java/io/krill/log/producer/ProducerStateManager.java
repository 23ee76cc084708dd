package io.krill.log.producer;

import io.krill.log.AppendOrigin;
import io.krill.log.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer state of one partition: {@link ProducerStateEntry} per producer id, the open transactions
 * (by first offset, for the first unstable offset and the aborted-transaction index), and the snapshot
 * files ({@link ProducerSnapshotFile}) in the partition directory. The state covers the log below
 * {@link #mapEndOffset()}.
 *
 * <p>Life cycle: on load the partition log calls {@link #loadFromSnapshot} (the latest valid snapshot at
 * or below the log end offset) and replays the batches after it; on truncation it reloads the same way;
 * snapshots are written at each roll and at clean shutdown; {@link #removeExpiredProducers} drops
 * producers idle for {@code producer.id.expiration.ms} (by their last batch's timestamp) that have no
 * open transaction. Entries are not dropped when retention or DeleteRecords move the log start offset past
 * a producer's batches (as since KIP-360): only expiry removes them.
 *
 * <p>Thread-safety: mutations are made by the owner of the partition log's lock; the queries
 * ({@link #lastEntry}, {@link #activeProducers}, {@link #firstUnstableOffset}, {@link #mapEndOffset}) are
 * safe from any thread and see whole entries.
 */
public final class ProducerStateManager {
    private static final Logger log = LoggerFactory.getLogger(ProducerStateManager.class);

    private final Path dir;
    private volatile long producerIdExpirationMs;
    private final ConcurrentHashMap<Long, ProducerStateEntry> producers = new ConcurrentHashMap<>();
    /** Open transactions: first offset to producer id. */
    private final ConcurrentSkipListMap<Long, Long> ongoingTxns = new ConcurrentSkipListMap<>();
    private final ConcurrentSkipListMap<Long, Path> snapshots = new ConcurrentSkipListMap<>();
    private volatile long mapEndOffset;

    /** The state of the partition directory {@code dir}: lists it for snapshot files. */
    public ProducerStateManager(Path dir, long producerIdExpirationMs) throws IOException {
        this(dir, producerIdExpirationMs, listSnapshots(dir));
    }

    private ProducerStateManager(Path dir, long producerIdExpirationMs, Map<Long, Path> snapshotFiles) {
        this.dir = dir;
        this.producerIdExpirationMs = producerIdExpirationMs;
        this.snapshots.putAll(snapshotFiles);
    }

    /** The (empty) state of a log whose directory was just made: nothing to list, no snapshot yet. */
    public static ProducerStateManager forNewLog(Path dir, long producerIdExpirationMs) {
        return new ProducerStateManager(dir, producerIdExpirationMs, Map.of());
    }

    private static Map<Long, Path> listSnapshots(Path dir) throws IOException {
        Map<Long, Path> found = new HashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                long offset = ProducerSnapshotFile.offsetOf(f);
                if (offset >= 0) {
                    found.put(offset, f);
                }
            }
        }
        return found;
    }

    public void setProducerIdExpirationMs(long ms) {
        producerIdExpirationMs = ms;
    }

    /** The state covers offsets below this. */
    public long mapEndOffset() {
        return mapEndOffset;
    }

    public void updateMapEndOffset(long offset) {
        mapEndOffset = offset;
    }

    public Optional<ProducerStateEntry> lastEntry(long producerId) {
        return Optional.ofNullable(producers.get(producerId));
    }

    /** Whether no producer has state here. */
    public boolean isEmpty() {
        return producers.isEmpty();
    }

    /** A copy of every producer's entry. */
    public Map<Long, ProducerStateEntry> activeProducers() {
        return Collections.unmodifiableMap(new HashMap<>(producers));
    }

    /** The first offset of the earliest open transaction, if any: the LSO cannot pass it. */
    public OptionalLong firstUnstableOffset() {
        Map.Entry<Long, Long> first = ongoingTxns.firstEntry();
        return first == null ? OptionalLong.empty() : OptionalLong.of(first.getKey());
    }

    /** Starts staging changes to one producer for an append. */
    public ProducerAppendInfo prepareUpdate(long producerId, AppendOrigin origin) {
        return new ProducerAppendInfo(producerId, producers.get(producerId), origin);
    }

    /** Commits staged changes (after the batches were written). */
    public void update(ProducerAppendInfo info) {
        producers.put(info.producerId(), info.toEntry());
        for (long first : info.startedTxns()) {
            ongoingTxns.put(first, info.producerId());
        }
    }

    /**
     * The last stable offset right after {@code txn} completes: the first offset of the earliest other
     * open transaction, or the offset after the marker.
     */
    public long lastStableOffset(CompletedTxn txn) {
        for (Map.Entry<Long, Long> e : ongoingTxns.entrySet()) {
            if (e.getValue() != txn.producerId()) {
                return Math.min(e.getKey(), txn.lastOffset() + 1);
            }
        }
        return txn.lastOffset() + 1;
    }

    /** Removes a completed transaction from the open ones (after {@link #update}). */
    public void completeTxn(CompletedTxn txn) {
        Long pid = ongoingTxns.get(txn.firstOffset());
        if (pid != null && pid == txn.producerId()) {
            ongoingTxns.remove(txn.firstOffset());
        }
    }

    /** Drops producers without an open transaction whose last batch is older than the expiration. */
    public int removeExpiredProducers(long nowMs) {
        int removed = 0;
        for (ProducerStateEntry e : new ArrayList<>(producers.values())) {
            if (!e.hasOngoingTxn() && nowMs - e.lastTimestamp() >= producerIdExpirationMs) {
                producers.remove(e.producerId(), e);
                removed++;
            }
        }
        return removed;
    }

    // ---------------------------------------------------------------- snapshots

    /** The current state serialized (captured under the log lock, written later). */
    public byte[] snapshotBytes() {
        List<ProducerStateEntry> entries = new ArrayList<>(producers.values());
        entries.sort((a, b) -> Long.compare(a.producerId(), b.producerId()));
        return ProducerSnapshotFile.serialize(entries);
    }

    /** Writes {@code content} as the snapshot at {@code offset} (see {@link ProducerSnapshotFile#write}). */
    public Path writeSnapshot(long offset, byte[] content, boolean durable) throws IOException {
        Path file = ProducerSnapshotFile.path(dir, offset);
        ProducerSnapshotFile.write(file, content, durable);
        snapshots.put(offset, file);
        return file;
    }

    /** Snapshots the current state at {@link #mapEndOffset()}. */
    public Path takeSnapshot(boolean durable) throws IOException {
        return writeSnapshot(mapEndOffset, snapshotBytes(), durable);
    }

    public List<Long> snapshotOffsets() {
        return new ArrayList<>(snapshots.keySet());
    }

    public OptionalLong latestSnapshotOffset() {
        Map.Entry<Long, Path> last = snapshots.lastEntry();
        return last == null ? OptionalLong.empty() : OptionalLong.of(last.getKey());
    }

    /** Deletes snapshots at offsets below {@code offset}. */
    public void deleteSnapshotsBefore(long offset) throws IOException {
        for (Map.Entry<Long, Path> e : new ArrayList<>(snapshots.headMap(offset).entrySet())) {
            Files.deleteIfExists(e.getValue());
            snapshots.remove(e.getKey());
        }
    }

    /** Deletes snapshots at offsets above {@code offset} (they describe a truncated log). */
    public void deleteSnapshotsAfter(long offset) throws IOException {
        for (Map.Entry<Long, Path> e : new ArrayList<>(snapshots.tailMap(offset, false).entrySet())) {
            Files.deleteIfExists(e.getValue());
            snapshots.remove(e.getKey());
        }
    }

    /** Clears the state and loads the latest valid snapshot at or below {@code maxOffset}. */
    public long loadFromSnapshot(long maxOffset, long logStartOffset) throws IOException {
        clear();
        while (true) {
            Map.Entry<Long, Path> e = snapshots.floorEntry(maxOffset);
            if (e == null) {
                mapEndOffset = logStartOffset;
                return -1;
            }
            try {
                List<ProducerStateEntry> entries = ProducerSnapshotFile.read(e.getValue());
                for (ProducerStateEntry entry : entries) {
                    producers.put(entry.producerId(), entry);
                    if (entry.hasOngoingTxn()) {
                        ongoingTxns.put(entry.currentTxnFirstOffset(), entry.producerId());
                    }
                }
                mapEndOffset = e.getKey();
                return e.getKey();
            } catch (CorruptCheckpointException | java.nio.file.NoSuchFileException ex) {
                log.warn("deleting unusable producer snapshot {}: {}", e.getValue(), ex.getMessage());
                Files.deleteIfExists(e.getValue());
                snapshots.remove(e.getKey());
                clear();
            }
        }
    }

    /** Forgets every producer and open transaction (snapshots stay). */
    public void clear() {
        producers.clear();
        ongoingTxns.clear();
    }

    /** Forgets everything and deletes every snapshot (the log restarts at {@code offset}). */
    public void truncateFullyAndStartAt(long offset) throws IOException {
        clear();
        deleteSnapshotsBefore(Long.MAX_VALUE);
        mapEndOffset = offset;
    }
}
