package io.krill.broker.group;

import io.netty.buffer.Unpooled;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The consumer and share groups of a {@code __consumer_offsets} partition as its replay finds them: Kafka's
 * records of each group ({@link ConsumerGroupRecords}, {@link ShareGroupRecords}), the latest value of each
 * key kept and tombstones applied, or Krill's former whole-group record ({@link WholeGroupRecords}), whose
 * keys the conversion tombstones. Of the two for one group, the later in the log wins. Values are read as
 * they are replayed, so a bad one fails the load before any group is built.
 *
 * <p>Not thread-safe: one load uses it, on the coordinator thread.
 */
final class ModernGroupsReplay {
    private final Map<String, Map<GroupRecordLedger.Slot, byte[]>> consumerRecords = new HashMap<>();
    private final Map<String, Map<GroupRecordLedger.Slot, byte[]>> shareRecords = new HashMap<>();
    private final Map<String, WholeGroupRecords.ConsumerGroupValue> wholeConsumer = new HashMap<>();
    private final Map<String, WholeGroupRecords.ShareGroupValue> wholeShare = new HashMap<>();
    /** The keys of whole-group records seen (by their hex), to tombstone. */
    private final Map<String, byte[]> formerKeys = new LinkedHashMap<>();

    /** Replays one of Kafka's consumer or share group records (a value under key type 3 may be a former one). */
    void replay(GroupRecords.ModernKey key, byte[] value) {
        String groupId = key.groupId();
        if (value != null && GroupRecords.isLegacy(key, Unpooled.wrappedBuffer(value))) {
            // Krill's whole consumer group under key type 3; the new ConsumerGroupMetadata replaces it by key.
            wholeConsumer.put(groupId, WholeGroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(value)));
            consumerRecords.remove(groupId);
            return;
        }
        boolean consumer = ConsumerGroupRecords.LAYOUT.valueOrder().contains(key.type());
        Map<String, Map<GroupRecordLedger.Slot, byte[]>> byGroup = consumer ? consumerRecords : shareRecords;
        GroupRecordLedger.Slot slot = new GroupRecordLedger.Slot(key.type(), key.id());
        if (value == null) {
            Map<GroupRecordLedger.Slot, byte[]> records = byGroup.get(groupId);
            if (records != null) {
                records.remove(slot);
                if (records.isEmpty()) {
                    byGroup.remove(groupId);
                }
            }
            if (consumer && key.type() == ConsumerGroupRecords.METADATA) {
                wholeConsumer.remove(groupId); // a tombstone of key type 3 deletes a former whole group too
            }
            return;
        }
        if (consumer) {
            ConsumerGroupRecords.read(key.type(), Unpooled.wrappedBuffer(value)); // fails the load here if bad
        } else {
            ShareGroupRecords.read(key.type(), Unpooled.wrappedBuffer(value));
        }
        byGroup.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).put(slot, value);
        (consumer ? wholeConsumer : wholeShare).remove(groupId);
    }

    /** Replays one of Krill's former whole-group records (key types 1003, 1004 and 4). */
    void replayWhole(GroupRecords.WholeGroupKey key, byte[] keyBytes, byte[] value) {
        String hex = HexFormat.of().formatHex(keyBytes);
        if (value == null) {
            formerKeys.remove(hex); // tombstoned already
        } else {
            formerKeys.put(hex, keyBytes);
        }
        String groupId = key.groupId();
        if (key.share()) {
            if (value == null) {
                wholeShare.remove(groupId);
            } else {
                wholeShare.put(groupId, WholeGroupRecords.readShareGroupValue(Unpooled.wrappedBuffer(value)));
                shareRecords.remove(groupId);
            }
        } else if (value == null) {
            wholeConsumer.remove(groupId);
        } else {
            wholeConsumer.put(groupId, WholeGroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(value)));
            consumerRecords.remove(groupId);
        }
    }

    Set<String> groupIds() {
        Set<String> ids = new HashSet<>(consumerRecords.keySet());
        ids.addAll(shareRecords.keySet());
        ids.addAll(wholeConsumer.keySet());
        ids.addAll(wholeShare.keySet());
        return ids;
    }

    /** The keys of the whole-group records replayed, for the conversion to tombstone. */
    Collection<byte[]> formerKeys() {
        return formerKeys.values();
    }

    /**
     * Restores the group's share or consumer group, if the replay found one; whether it did. Caller holds
     * the group's monitor.
     */
    boolean restore(ClassicGroup group, ConsumerGroupProtocol consumerGroups, ShareGroupProtocol shareGroups, long now) {
        String groupId = group.groupId();
        if (shareRecords.containsKey(groupId)) {
            shareGroups.restore(group, shareRecords.get(groupId));
        } else if (wholeShare.containsKey(groupId)) {
            shareGroups.restoreWhole(group, wholeShare.get(groupId));
        } else if (consumerRecords.containsKey(groupId)) {
            consumerGroups.restore(group, consumerRecords.get(groupId), now);
        } else if (wholeConsumer.containsKey(groupId)) {
            consumerGroups.restoreWhole(group, wholeConsumer.get(groupId), now);
        } else {
            return false;
        }
        return true;
    }
}
