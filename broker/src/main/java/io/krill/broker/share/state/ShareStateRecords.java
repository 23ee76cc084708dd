package io.krill.broker.share.state;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The records of {@code __share_group_state}, Krill's own layout (big-endian; a string is an int16 byte
 * length and UTF-8). A share-partition's state is one <b>snapshot</b> (its whole state) followed by at most
 * {@code share.coordinator.snapshot.update.records.per.snapshot} <b>updates</b> (one write's batches, and
 * the start offset and epochs it leaves), after which the next write is a snapshot again.
 *
 * <pre>
 * key    := version int16 (0) | type int8 (0 snapshot, 1 update) | groupId string | topicId 16 bytes
 *           | partition int32 | [update: snapshotEpoch int32 | updateIndex int32]
 * snapshot value := version int16 (0) | snapshotEpoch int32 | stateEpoch int32 | leaderEpoch int32
 *           | startOffset int64 | deliveryCompleteCount int32 | createTimestamp int64 | writeTimestamp int64
 *           | batches
 * update value   := version int16 (0) | snapshotEpoch int32 | leaderEpoch int32 | startOffset int64
 *           | deliveryCompleteCount int32 | batches
 * batches := count int32 | count x (firstOffset int64 | lastOffset int64 | deliveryState int8 | deliveryCount int16)
 * </pre>
 *
 * <p>Why updates have keys of their own (snapshot epoch and index): the topic is compacted, and compaction
 * keeps only a key's last record, so an update must never share its key with the snapshot it builds on or
 * with another live update. A new snapshot is written in one batch with tombstones for the updates it
 * replaces, and a deleted share-partition's snapshot and updates are all tombstoned: the log holds at most
 * one snapshot and N updates per live share-partition once cleaned. An update applies only on top of the
 * snapshot of its epoch, so one left over from an older snapshot (not yet cleaned) is ignored.
 *
 * <p>Unknown key or value versions are skipped on replay (a newer broker's records). Decoding checks every
 * length against what is left before allocating. Stateless.
 */
final class ShareStateRecords {
    static final short VERSION = 0;
    static final byte SNAPSHOT = 0;
    static final byte UPDATE = 1;
    private static final int BATCH_BYTES = 8 + 8 + 1 + 2;

    private ShareStateRecords() {
    }

    /** A decoded key: a snapshot's ({@code snapshotEpoch} and {@code updateIndex} 0) or an update's. */
    record Key(byte type, SharePartitionKey partition, int snapshotEpoch, int updateIndex) {
    }

    /** An update record's value. */
    record Update(int snapshotEpoch, int leaderEpoch, long startOffset, int deliveryCompleteCount,
                  List<StateBatch> batches) {
        Update {
            batches = List.copyOf(batches);
        }
    }

    static byte[] snapshotKey(SharePartitionKey key) {
        return key(SNAPSHOT, key, 0, 0);
    }

    static byte[] updateKey(SharePartitionKey key, int snapshotEpoch, int updateIndex) {
        return key(UPDATE, key, snapshotEpoch, updateIndex);
    }

    private static byte[] key(byte type, SharePartitionKey key, int snapshotEpoch, int updateIndex) {
        byte[] group = key.groupId().getBytes(StandardCharsets.UTF_8);
        if (group.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("group id of " + group.length + " bytes");
        }
        ByteBuffer buf = ByteBuffer.allocate(2 + 1 + 2 + group.length + 16 + 4 + (type == UPDATE ? 8 : 0));
        buf.putShort(VERSION).put(type).putShort((short) group.length).put(group)
                .putLong(key.topicId().getMostSignificantBits()).putLong(key.topicId().getLeastSignificantBits())
                .putInt(key.partition());
        if (type == UPDATE) {
            buf.putInt(snapshotEpoch).putInt(updateIndex);
        }
        return buf.array();
    }

    /** The key, or null for a version or type this broker does not know. */
    static Key readKey(byte[] bytes) {
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            if (buf.getShort() != VERSION) {
                return null;
            }
            byte type = buf.get();
            if (type != SNAPSHOT && type != UPDATE) {
                return null;
            }
            int length = buf.getShort();
            if (length < 0 || length > buf.remaining()) {
                throw corrupt("key", "group id of " + length + " bytes");
            }
            byte[] group = new byte[length];
            buf.get(group);
            UUID topicId = new UUID(buf.getLong(), buf.getLong());
            int partition = buf.getInt();
            int snapshotEpoch = type == UPDATE ? buf.getInt() : 0;
            int updateIndex = type == UPDATE ? buf.getInt() : 0;
            return new Key(type, new SharePartitionKey(new String(group, StandardCharsets.UTF_8), topicId, partition),
                    snapshotEpoch, updateIndex);
        } catch (BufferUnderflowException e) {
            throw corrupt("key", "truncated");
        }
    }

    static byte[] snapshotValue(StoredShareState state) {
        ByteBuffer buf = ByteBuffer.allocate(2 + 4 + 4 + 4 + 8 + 4 + 8 + 8 + batchesSize(state.batches()));
        buf.putShort(VERSION).putInt(state.snapshotEpoch()).putInt(state.stateEpoch()).putInt(state.leaderEpoch())
                .putLong(state.startOffset()).putInt(state.deliveryCompleteCount()).putLong(state.createTimestamp())
                .putLong(state.writeTimestamp());
        putBatches(buf, state.batches());
        return buf.array();
    }

    /** A snapshot's state (no updates since it), or null for a version this broker does not know. */
    static StoredShareState readSnapshot(byte[] bytes) {
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            if (buf.getShort() != VERSION) {
                return null;
            }
            int snapshotEpoch = buf.getInt();
            int stateEpoch = buf.getInt();
            int leaderEpoch = buf.getInt();
            long startOffset = buf.getLong();
            int complete = buf.getInt();
            long created = buf.getLong();
            long written = buf.getLong();
            return new StoredShareState(snapshotEpoch, stateEpoch, leaderEpoch, startOffset, complete, created, written,
                    readBatches(buf), 0);
        } catch (BufferUnderflowException e) {
            throw corrupt("snapshot", "truncated");
        }
    }

    static byte[] updateValue(Update update) {
        ByteBuffer buf = ByteBuffer.allocate(2 + 4 + 4 + 8 + 4 + batchesSize(update.batches()));
        buf.putShort(VERSION).putInt(update.snapshotEpoch()).putInt(update.leaderEpoch()).putLong(update.startOffset())
                .putInt(update.deliveryCompleteCount());
        putBatches(buf, update.batches());
        return buf.array();
    }

    /** An update, or null for a version this broker does not know. */
    static Update readUpdate(byte[] bytes) {
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            if (buf.getShort() != VERSION) {
                return null;
            }
            return new Update(buf.getInt(), buf.getInt(), buf.getLong(), buf.getInt(), readBatches(buf));
        } catch (BufferUnderflowException e) {
            throw corrupt("update", "truncated");
        }
    }

    private static int batchesSize(List<StateBatch> batches) {
        return 4 + batches.size() * BATCH_BYTES;
    }

    private static void putBatches(ByteBuffer buf, List<StateBatch> batches) {
        buf.putInt(batches.size());
        for (StateBatch batch : batches) {
            buf.putLong(batch.firstOffset()).putLong(batch.lastOffset()).put(batch.deliveryState())
                    .putShort(batch.deliveryCount());
        }
    }

    private static List<StateBatch> readBatches(ByteBuffer buf) {
        int count = buf.getInt();
        if (count < 0 || (long) count * BATCH_BYTES > buf.remaining()) {
            throw corrupt("batches", count + " batches in " + buf.remaining() + " bytes");
        }
        List<StateBatch> batches = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long first = buf.getLong();
            long last = buf.getLong();
            if (last < first) {
                throw corrupt("batches", "batch " + first + ".." + last);
            }
            batches.add(new StateBatch(first, last, buf.get(), buf.getShort()));
        }
        return batches;
    }

    private static IllegalStateException corrupt(String what, String why) {
        return new IllegalStateException("corrupt " + ShareGroupStateTopic.NAME + " " + what + " record: " + why);
    }
}
