package io.krill.broker.txn;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.coordinator.LedPartitions;
import io.krill.controller.metadata.MetadataImage;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions of {@code __transaction_state} this broker coordinates: it follows their leadership in
 * the metadata image, loads each partition it comes to lead (replaying its {@link TransactionRecords}) on the
 * coordinator thread, converts Krill's legacy layout once on load, and forgets the transactional ids of a
 * partition it no longer leads, or leads at another epoch. Kept apart from {@link TransactionCoordinator} so
 * that the coordinator is the transaction state machine only; the loader hands it each loaded shard
 * ({@code onLoaded}) to finish the transactions the previous coordinator left prepared.
 *
 * <p>Thread-safety: thread-safe. The shards are a concurrent map; {@link #follow} and {@link #close} are
 * ordered by this object's monitor. A load builds its shard on the coordinator thread and publishes it as
 * loaded only if the shard is still the current one ({@link #isCurrent}), which every later completion checks
 * again too.
 */
final class TransactionPartitionLoader {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionPartitionLoader.class);
    /** Records per batch of the one-time conversion to Kafka's format. */
    static final int CONVERSION_BATCH = 500;

    private final int nodeId;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final Consumer<TransactionShard> onLoaded;
    private final Map<Integer, TransactionShard> shards = new ConcurrentHashMap<>();
    private volatile int partitionCount;
    private volatile boolean closed;

    /**
     * @param partitionCount the partitions of {@code __transaction_state} until an image shows the topic
     * @param onLoaded       called on the coordinator thread with each shard once loaded and current
     */
    TransactionPartitionLoader(int nodeId, CoordinatorLog log, CoordinatorTimer timer, int partitionCount,
                               Consumer<TransactionShard> onLoaded) {
        this.nodeId = nodeId;
        this.log = log;
        this.timer = timer;
        this.partitionCount = partitionCount;
        this.onLoaded = onLoaded;
    }

    /**
     * Takes the image: the partition count, the shards of partitions no longer led at their epoch (dropped),
     * and of partitions newly led (loaded).
     */
    synchronized void follow(MetadataImage image) {
        if (closed) {
            return;
        }
        LedPartitions led = LedPartitions.of(image, TransactionStateTopic.NAME, nodeId);
        if (led.partitionCount() > 0) {
            partitionCount = led.partitionCount();
        }
        for (TransactionShard shard : new ArrayList<>(shards.values())) {
            if (!led.ledAt(shard.partition, shard.coordinatorEpoch)) {
                onResignation(shard);
            }
        }
        led.epochs().forEach((partition, epoch) -> {
            if (!shards.containsKey(partition)) {
                onElection(partition, epoch);
            }
        });
    }

    /** The partitions of {@code __transaction_state}, as the latest image shows them. */
    int partitionCount() {
        return partitionCount;
    }

    /** The shard of {@code partition}, loaded or not, or null if this broker does not lead it. */
    TransactionShard shard(int partition) {
        return shards.get(partition);
    }

    /** The shards of the led partitions, loaded or not. */
    Collection<TransactionShard> shards() {
        return shards.values();
    }

    /** Whether {@code shard} is still the one of its partition: this broker leads it at that epoch, not closed. */
    boolean isCurrent(TransactionShard shard) {
        return !closed && shards.get(shard.partition) == shard;
    }

    boolean isClosed() {
        return closed;
    }

    /** Drops every shard; nothing is loaded afterwards. */
    synchronized void close() {
        closed = true;
        for (TransactionShard shard : new ArrayList<>(shards.values())) {
            onResignation(shard);
        }
    }

    private void onElection(int partition, int coordinatorEpoch) {
        TransactionShard shard = new TransactionShard(partition, coordinatorEpoch);
        if (shards.putIfAbsent(partition, shard) == null) {
            LOG.debug("Loading transaction coordinator partition {}-{} at epoch {}", TransactionStateTopic.NAME,
                    partition, coordinatorEpoch);
            timer.execute(() -> load(shard));
        }
    }

    private void onResignation(TransactionShard shard) {
        if (shards.remove(shard.partition, shard)) {
            LOG.debug("Unloading transaction coordinator partition {}-{}", TransactionStateTopic.NAME,
                    shard.partition);
            shard.txns.clear();
        }
    }

    private void load(TransactionShard shard) {
        long started = System.nanoTime();
        Map<String, TransactionValue> values = new HashMap<>();
        Set<String> legacyKeys = new HashSet<>();
        try {
            log.replay(shard.partition, (key, value) -> {
                TransactionRecords.Key decoded = TransactionRecords.readKey(Unpooled.wrappedBuffer(key));
                if (decoded == null) {
                    return;
                }
                String transactionalId = decoded.transactionalId();
                if (decoded.legacy()) {
                    legacyKeys.add(transactionalId);
                }
                if (value == null) {
                    values.remove(transactionalId);
                } else if (decoded.legacy()) {
                    values.put(transactionalId, TransactionRecords.readLegacyValue(Unpooled.wrappedBuffer(value)));
                } else {
                    values.put(transactionalId, TransactionRecords.readValue(Unpooled.wrappedBuffer(value)));
                }
            });
        } catch (RuntimeException e) {
            LOG.error("Failed to load {}-{}; its transactional ids stay unavailable", TransactionStateTopic.NAME,
                    shard.partition, e);
            return;
        }
        values.forEach((id, value) -> shard.txns.put(id, new TransactionMetadata(id, value)));
        if (!isCurrent(shard)) {
            return;
        }
        if (!legacyKeys.isEmpty()) {
            convertLegacyRecords(shard, values, legacyKeys);
        }
        shard.loaded = true;
        if (!values.isEmpty()) {
            LOG.info("Loaded {}-{}: {} transactional ids in {} ms", TransactionStateTopic.NAME, shard.partition,
                    values.size(), (System.nanoTime() - started) / 1_000_000);
        }
        onLoaded.accept(shard);
    }

    /**
     * The one-time conversion of a partition that held records of Krill's legacy layout: its loaded state is
     * written again in Kafka's format and the legacy keys are tombstoned, so compaction retires them. Appended
     * before the partition serves (the local append is synchronous), so no later transition precedes it; if
     * it fails, the legacy records stay and the next load converts them again.
     */
    private void convertLegacyRecords(TransactionShard shard, Map<String, TransactionValue> values,
                                      Set<String> legacyKeys) {
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        values.forEach((id, value) -> entries.add(new CoordinatorLog.Entry(TransactionRecords.key(id),
                TransactionRecords.value(value))));
        legacyKeys.forEach(id -> entries.add(new CoordinatorLog.Entry(TransactionRecords.legacyKey(id), null)));
        LOG.info("Converting {}-{} to Kafka's record format: {} transactional ids, {} legacy keys tombstoned",
                TransactionStateTopic.NAME, shard.partition, values.size(), legacyKeys.size());
        for (int from = 0; from < entries.size(); from += CONVERSION_BATCH) {
            List<CoordinatorLog.Entry> batch = entries.subList(from, Math.min(entries.size(), from + CONVERSION_BATCH));
            log.append(shard.partition, List.copyOf(batch)).whenComplete((ok, failure) -> {
                if (failure != null) {
                    LOG.warn("Converting {}-{} to Kafka's record format failed ({}); the next load converts again",
                            TransactionStateTopic.NAME, shard.partition, failure.getMessage());
                }
            });
        }
    }
}
