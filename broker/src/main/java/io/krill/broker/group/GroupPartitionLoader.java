package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.LedPartitions;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.Errors;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions of {@code __consumer_offsets} this broker coordinates: it follows their leadership in
 * the metadata image, loads each partition it comes to lead (replaying its group, consumer-group, share-group
 * ({@link ModernGroupsReplay}) and offset records, and the transactional offsets up to their markers) on the coordinator thread, and
 * drops the groups of a partition it no longer leads (their waiting requests get NOT_COORDINATOR).
 * Requests for a partition's groups get COORDINATOR_LOAD_IN_PROGRESS until its load is done.
 *
 * <p>Thread-safety: thread-safe; no state of its own (the shards are {@link GroupContext}'s).
 * {@link #follow} runs under {@link GroupCoordinator}'s monitor, which orders it against close. A load
 * builds each group under that group's monitor and publishes the shard as loaded only if it is still
 * the current one; a resignation takes each group's monitor to answer its waiting members.
 */
final class GroupPartitionLoader {
    private static final Logger LOG = LoggerFactory.getLogger(GroupPartitionLoader.class);
    private static final String TOPIC = GroupCoordinator.TOPIC;
    /** Records per batch of the one-time conversion to Kafka's format. */
    static final int CONVERSION_BATCH = 500;

    private final GroupContext shared;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final ClassicRebalancer rebalancer;
    private final ConsumerGroupProtocol consumerGroups;
    private final ShareGroupProtocol shareGroups;

    GroupPartitionLoader(GroupContext shared, ClassicRebalancer rebalancer, ConsumerGroupProtocol consumerGroups,
                         ShareGroupProtocol shareGroups) {
        this.shareGroups = shareGroups;
        this.shared = shared;
        this.log = shared.log();
        this.timer = shared.timer();
        this.rebalancer = rebalancer;
        this.consumerGroups = consumerGroups;
    }

    private long now() {
        return timer.milliseconds();
    }

    /**
     * Takes the image: the partition count, and the partitions this broker leads (loaded) or no longer
     * leads (dropped). Caller holds {@link GroupCoordinator}'s monitor.
     */
    void follow(MetadataImage image) {
        if (shared.closed()) {
            return;
        }
        shared.image(image);
        LedPartitions led = LedPartitions.of(image, TOPIC, shared.nodeId());
        if (led.partitionCount() > 0) {
            shared.partitionCount(led.partitionCount());
        }
        for (int partition : led.epochs().keySet()) {
            if (shared.shard(partition) == null) {
                onElection(partition);
            }
        }
        for (int partition : shared.ledPartitions()) {
            if (!led.led(partition)) {
                onResignation(partition);
            }
        }
    }

    /** Becomes the coordinator of {@code partition}: loads it on the coordinator thread. */
    void onElection(int partition) {
        GroupShard shard = new GroupShard(partition);
        if (shared.addShard(shard)) {
            LOG.debug("Loading group coordinator partition {}-{}", TOPIC, partition);
            timer.execute(() -> load(shard));
        }
    }

    /** Stops coordinating {@code partition}: its groups are dropped and their waiting requests told. */
    void onResignation(int partition) {
        GroupShard shard = shared.removeShard(partition);
        if (shard == null) {
            return;
        }
        LOG.debug("Unloading group coordinator partition {}-{}", TOPIC, partition);
        for (ClassicGroup group : shard.groups.values()) {
            synchronized (group) {
                for (ClassicMember member : group.members()) {
                    rebalancer.answerJoin(group, member, ClassicRebalancer.joinError(member.memberId(), Errors.NOT_COORDINATOR));
                    ClassicRebalancer.answerSync(group, member, ClassicRebalancer.syncError(Errors.NOT_COORDINATOR));
                }
                group.transitionTo(GroupState.DEAD, now());
            }
        }
        shard.groups.clear();
    }

    private void load(GroupShard shard) {
        long started = System.nanoTime();
        Map<String, GroupRecords.GroupValue> groupValues = new HashMap<>();
        ModernGroupsReplay modern = new ModernGroupsReplay();
        Map<String, Map<String, Map<Integer, OffsetAndMetadata>>> offsets = new HashMap<>();
        AtomicInteger records = new AtomicInteger();
        AtomicInteger legacyRecords = new AtomicInteger();
        // Offsets of transactions without a marker yet, per producer id, in log order.
        Map<Long, List<CoordinatorLog.Entry>> openTxns = new HashMap<>();
        try {
            CoordinatorLog.Replayer plain = (keyBytes, valueBytes) -> {
                records.incrementAndGet();
                GroupRecords.Key key = GroupRecords.readKey(Unpooled.wrappedBuffer(keyBytes));
                if (key != null && GroupRecords.isLegacy(key, valueBytes == null ? null : Unpooled.wrappedBuffer(valueBytes))) {
                    legacyRecords.incrementAndGet();
                }
                if (key instanceof GroupRecords.OffsetKey k) {
                    Map<Integer, OffsetAndMetadata> byPartition = offsets.computeIfAbsent(k.groupId(), g -> new HashMap<>())
                            .computeIfAbsent(k.topic(), t -> new HashMap<>());
                    if (valueBytes == null) {
                        byPartition.remove(k.partition());
                    } else {
                        byPartition.put(k.partition(), GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(valueBytes)));
                    }
                } else if (key instanceof GroupRecords.GroupKey k) {
                    if (valueBytes == null) {
                        groupValues.remove(k.groupId());
                    } else {
                        groupValues.put(k.groupId(), GroupRecords.readGroupValue(Unpooled.wrappedBuffer(valueBytes)));
                    }
                } else if (key instanceof GroupRecords.ModernKey k) {
                    modern.replay(k, valueBytes);
                } else if (key instanceof GroupRecords.WholeGroupKey k) {
                    modern.replayWhole(k, keyBytes, valueBytes);
                }
            };
            log.replay(shard.partition, new CoordinatorLog.Replayer() {
                @Override
                public void replay(byte[] key, byte[] value) {
                    plain.replay(key, value);
                }

                @Override
                public void replayTransactional(long producerId, byte[] key, byte[] value) {
                    openTxns.computeIfAbsent(producerId, p -> new ArrayList<>()).add(new CoordinatorLog.Entry(key, value));
                }

                @Override
                public void replayMarker(long producerId, boolean commit) {
                    List<CoordinatorLog.Entry> entries = openTxns.remove(producerId);
                    if (entries != null && commit) {
                        entries.forEach(e -> plain.replay(e.key(), e.value()));
                    }
                }
            });
        } catch (RuntimeException e) {
            LOG.error("Failed to load {}-{}; its groups stay unavailable", TOPIC, shard.partition, e);
            return;
        }
        long now = now();
        Set<String> groupIds = new HashSet<>(groupValues.keySet());
        groupIds.addAll(modern.groupIds());
        offsets.forEach((groupId, byTopic) -> {
            if (byTopic.values().stream().anyMatch(m -> !m.isEmpty())) {
                groupIds.add(groupId);
            }
        });
        Map<String, List<PendingOffset>> pendingByGroup = pendingTxnOffsets(openTxns);
        groupIds.addAll(pendingByGroup.keySet());
        boolean converting = legacyRecords.get() > 0;
        List<CoordinatorLog.Entry> modernEntries = new ArrayList<>();
        List<ClassicGroup> modernGroups = new ArrayList<>();
        for (String groupId : groupIds) {
            ClassicGroup group = new ClassicGroup(groupId, shard.partition, now);
            synchronized (group) {
                GroupRecords.GroupValue value = groupValues.get(groupId);
                if (!modern.restore(group, consumerGroups, shareGroups, now) && value != null) {
                    rebalancer.restore(group, value, now);
                }
                if (converting && (group.consumer != null || group.share != null)) {
                    modernEntries.addAll(ModernGroupRecordWriter.allRecords(group, shared.image()));
                    modernGroups.add(group);
                }
                Map<String, Map<Integer, OffsetAndMetadata>> byTopic = offsets.getOrDefault(groupId, Map.of());
                byTopic.forEach((topic, byPartition) -> byPartition.forEach((p, o) -> group.putOffset(topic, p, o)));
                for (PendingOffset pending : pendingByGroup.getOrDefault(groupId, List.of())) {
                    group.pendingTxnOffsets.add(pending.producerId(), pending.topic(), pending.partition(),
                            pending.offset());
                }
                shard.groups.put(groupId, group);
            }
        }
        if (shared.shard(shard.partition) != shard) {
            return; // resigned meanwhile
        }
        if (converting) {
            convertLegacyRecords(shard.partition, legacyRecords.get(), groupValues, modernEntries, modernGroups,
                    offsets, modern.formerKeys());
        }
        shard.loaded = true;
        if (records.get() > 0) {
            LOG.info("Loaded {}-{}: {} records, {} groups in {} ms", TOPIC, shard.partition, records.get(),
                    groupIds.size(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    /**
     * The one-time conversion of a partition that held records of Krill's former layouts
     * ({@link GroupRecords#isLegacy}): the committed state it loaded (group metadata, offsets) is written
     * again in the current format, superseding the former records key by key, with the consumer and share
     * groups' records ({@code modernEntries}, Kafka's, all of those loaded from a whole-group record) and
     * tombstones of the whole-group records' keys ({@code formerKeys}), so compaction retires the former
     * layouts. Offsets of transactions still open stay as written (they are read in either layout).
     * Appended before the partition serves (the local append is synchronous), so no later write precedes
     * it; if it fails, the former records stay, the next load converts again and the groups of
     * {@code modernGroups} write all their records again at their next change.
     */
    private void convertLegacyRecords(int partition, int legacy, Map<String, GroupRecords.GroupValue> groupValues,
                                      List<CoordinatorLog.Entry> modernEntries, List<ClassicGroup> modernGroups,
                                      Map<String, Map<String, Map<Integer, OffsetAndMetadata>>> offsets,
                                      Collection<byte[]> formerKeys) {
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        groupValues.forEach((groupId, value) -> entries.add(new CoordinatorLog.Entry(GroupRecords.groupKey(groupId),
                GroupRecords.groupValue(value))));
        entries.addAll(modernEntries);
        offsets.forEach((groupId, byTopic) -> byTopic.forEach((topic, byPartition) -> byPartition.forEach(
                (p, offset) -> entries.add(new CoordinatorLog.Entry(GroupRecords.offsetKey(groupId, topic, p),
                        GroupRecords.offsetValue(offset))))));
        formerKeys.forEach(key -> entries.add(new CoordinatorLog.Entry(key, null)));
        LOG.info("Converting {}-{} to Kafka's record format: {} legacy records, {} records rewritten", TOPIC, partition,
                legacy, entries.size());
        for (int from = 0; from < entries.size(); from += CONVERSION_BATCH) {
            List<CoordinatorLog.Entry> batch = List.copyOf(entries.subList(from, Math.min(entries.size(),
                    from + CONVERSION_BATCH)));
            log.append(partition, batch).whenComplete((ok, failure) -> {
                if (failure != null) {
                    LOG.warn("Converting {}-{} to Kafka's record format failed ({}); the next load converts again",
                            TOPIC, partition, failure.getMessage());
                    modernGroups.forEach(group -> {
                        synchronized (group) {
                            (group.consumer != null ? group.consumer.records : group.share.records).failed();
                        }
                    });
                }
            });
        }
    }

    /** An offset of a transaction still open at the end of a load. */
    private record PendingOffset(long producerId, String topic, int partition, OffsetAndMetadata offset) {
    }

    /** The offsets of transactions without a marker yet, by group (a tombstone cancels an earlier one). */
    private static Map<String, List<PendingOffset>> pendingTxnOffsets(Map<Long, List<CoordinatorLog.Entry>> openTxns) {
        Map<String, List<PendingOffset>> byGroup = new HashMap<>();
        openTxns.forEach((producerId, entries) -> {
            for (CoordinatorLog.Entry entry : entries) {
                if (entry.value() != null
                        && GroupRecords.readKey(Unpooled.wrappedBuffer(entry.key())) instanceof GroupRecords.OffsetKey k) {
                    byGroup.computeIfAbsent(k.groupId(), g -> new ArrayList<>()).add(new PendingOffset(producerId,
                            k.topic(), k.partition(), GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(entry.value()))));
                }
            }
        });
        return byGroup;
    }
}
