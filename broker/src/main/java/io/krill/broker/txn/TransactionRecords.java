package io.krill.broker.txn;

import io.krill.broker.coordinator.CoordinatorRecords;
import io.krill.log.TopicPartition;
import io.krill.wire.coordinator.TransactionLogKey;
import io.krill.wire.coordinator.TransactionLogValue;
import io.krill.wire.protocol.RawTaggedField;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The records the transaction coordinator keeps in {@code __transaction_state}, in Kafka's format (the
 * generated {@link TransactionLogKey} and {@link TransactionLogValue}), so that Kafka's
 * {@code TransactionLogMessageFormatter} reads them. The topic is compacted: the key names the
 * transactional id, the latest value is its state, and a null value (a tombstone) forgets an expired id.
 *
 * <pre>
 * key   := int16 0 (TransactionLogKey's record type), TransactionLogKey v0 (string TransactionalId)
 * value := int16 1, TransactionLogValue v1 (flexible) as Kafka 4.4 writes it: ProducerId, ProducerEpoch,
 *          TransactionTimeoutMs, TransactionStatus ({@link TransactionState#id()}, Kafka's ids),
 *          TransactionPartitions (by topic), TransactionLastUpdateTimestampMs, TransactionStartTimestampMs;
 *          tagged: PreviousProducerId (0), NextProducerId (1), ClientTransactionVersion (2: 1 or 2),
 *          and Krill's own tag 10000: int16 lastProducerEpoch, written only when it is not -1 (Kafka does
 *          not keep it; its readers keep unknown tags without interpreting them)
 * </pre>
 *
 * <p>Before, Krill wrote its own layout (legacy, read only, for the one-time conversion on load): key
 * {@code int16 1, string transactionalId} (key type 1, which Kafka's transaction log never uses), value
 * {@code int16 version (0 or 1), int64 producerId, int64 previousProducerId, int16 producerEpoch,
 * int16 lastProducerEpoch, int32 timeoutMs, int8 state, int64 txnStartTimestamp, int64 lastUpdateTimestamp,
 * int32 topicCount, topicCount x (string topic, int32 count, count x int32), [version 1] int64
 * nextProducerId, int8 transactionVersion} (strings: int16 length, UTF-8). The key type tells the layouts
 * apart: a value under key type 1 is always Krill's legacy layout, under key type 0 always Kafka's.
 *
 * <p>A reader skips keys of other types (returns null) and rejects values it cannot interpret. Stateless;
 * thread-safe.
 */
public final class TransactionRecords {
    /** Kafka's TransactionLogKey record type. */
    public static final short TRANSACTION_KEY = TransactionLogKey.API_KEY;
    /** The key type of Krill's legacy layout. */
    public static final short LEGACY_TRANSACTION_KEY = 1;
    /** The TransactionLogValue version Kafka 4.4 writes (transaction.version 1 and up). */
    static final short VALUE_VERSION = 1;
    /** Krill's tagged field in TransactionLogValue: the epoch before the last bump (int16). */
    static final int LAST_PRODUCER_EPOCH_TAG = 10_000;

    private TransactionRecords() {
    }

    /** A decoded key: the transactional id, and whether it is of Krill's legacy layout. */
    public record Key(String transactionalId, boolean legacy) {
    }

    public static byte[] key(String transactionalId) {
        return CoordinatorRecords.key(new TransactionLogKey().setTransactionalId(transactionalId));
    }

    /** A key of Krill's legacy layout (to tombstone it once converted). */
    public static byte[] legacyKey(String transactionalId) {
        byte[] id = transactionalId.getBytes(StandardCharsets.UTF_8);
        ByteBuf buf = io.netty.buffer.Unpooled.buffer(4 + id.length);
        buf.writeShort(LEGACY_TRANSACTION_KEY);
        buf.writeShort(id.length);
        buf.writeBytes(id);
        return toBytes(buf);
    }

    /**
     * Decodes a key (the reader index is not moved), or returns null for a key of another type.
     *
     * @throws IllegalArgumentException for a malformed key
     */
    public static Key readKey(ByteBuf key) {
        short type = CoordinatorRecords.recordType(key);
        if (type == TRANSACTION_KEY) {
            return new Key(CoordinatorRecords.readKey(key, new TransactionLogKey()).transactionalId(), false);
        }
        if (type == LEGACY_TRANSACTION_KEY) {
            ByteBuf buf = key.duplicate().skipBytes(2);
            String id = readString(buf);
            if (buf.isReadable()) {
                throw new IllegalArgumentException(buf.readableBytes() + " bytes after a legacy transaction key");
            }
            return new Key(id, true);
        }
        return null;
    }

    /** The transactional id of a key (Kafka's or legacy), or null for a key of another type. */
    public static String readTransactionalId(ByteBuf key) {
        Key decoded = readKey(key);
        return decoded == null ? null : decoded.transactionalId();
    }

    public static byte[] value(TransactionValue value) {
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : value.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        List<TransactionLogValue.PartitionsSchema> partitions = new ArrayList<>(byTopic.size());
        byTopic.forEach((topic, ps) -> partitions.add(new TransactionLogValue.PartitionsSchema()
                .setTopic(topic).setPartitionIds(ps)));
        TransactionLogValue v = new TransactionLogValue()
                .setProducerId(value.producerId())
                .setPreviousProducerId(value.previousProducerId())
                .setNextProducerId(value.nextProducerId())
                .setProducerEpoch(value.producerEpoch())
                .setTransactionTimeoutMs(value.timeoutMs())
                .setTransactionStatus(value.state().id())
                .setTransactionPartitions(partitions)
                .setTransactionLastUpdateTimestampMs(value.lastUpdateTimestamp())
                .setTransactionStartTimestampMs(value.txnStartTimestamp())
                .setClientTransactionVersion(value.transactionVersion());
        if (value.lastProducerEpoch() != RecordBatch.NO_PRODUCER_EPOCH) {
            short epoch = value.lastProducerEpoch();
            v.unknownTaggedFields().add(new RawTaggedField(LAST_PRODUCER_EPOCH_TAG,
                    new byte[] {(byte) (epoch >> 8), (byte) epoch}));
        }
        return CoordinatorRecords.value(v, VALUE_VERSION);
    }

    /**
     * Reads a value of Kafka's layout (versions 0 and 1).
     *
     * @throws IllegalArgumentException for a version Kafka does not define or a malformed value
     */
    public static TransactionValue readValue(ByteBuf buf) {
        TransactionLogValue v = CoordinatorRecords.readValue(buf, new TransactionLogValue());
        short lastEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        for (RawTaggedField tag : v.unknownTaggedFields()) {
            if (tag.tag() == LAST_PRODUCER_EPOCH_TAG && tag.data().length == 2) {
                lastEpoch = (short) (((tag.data()[0] & 0xff) << 8) | (tag.data()[1] & 0xff));
            }
        }
        TreeSet<TopicPartition> partitions = new TreeSet<>();
        if (v.transactionPartitions() != null) {
            for (TransactionLogValue.PartitionsSchema p : v.transactionPartitions()) {
                for (int partition : p.partitionIds()) {
                    partitions.add(new TopicPartition(p.topic(), partition));
                }
            }
        }
        // Kafka's client transaction version is the feature level (0, 1 or 2); levels 0 and 1 are both the
        // version 1 protocol.
        byte transactionVersion = (byte) Math.max(1, v.clientTransactionVersion());
        return new TransactionValue(v.producerId(), v.previousProducerId(), v.producerEpoch(), lastEpoch,
                v.transactionTimeoutMs(), TransactionState.forId(v.transactionStatus()), partitions,
                v.transactionStartTimestampMs(), v.transactionLastUpdateTimestampMs(), v.nextProducerId(),
                transactionVersion);
    }

    /**
     * Reads a value of Krill's legacy layout (the value of a legacy key).
     *
     * @throws IllegalArgumentException for an unknown legacy version or a malformed value
     */
    public static TransactionValue readLegacyValue(ByteBuf value) {
        ByteBuf buf = value.duplicate();
        try {
            short version = buf.readShort();
            if (version < 0 || version > 1) {
                throw new IllegalArgumentException("unknown legacy transaction value version " + version);
            }
            long producerId = buf.readLong();
            long previousProducerId = buf.readLong();
            short producerEpoch = buf.readShort();
            short lastProducerEpoch = buf.readShort();
            int timeoutMs = buf.readInt();
            TransactionState state = TransactionState.forId(buf.readByte());
            long txnStart = buf.readLong();
            long lastUpdate = buf.readLong();
            int topics = buf.readInt();
            if (topics < 0 || topics > buf.readableBytes()) {
                throw new IllegalArgumentException("transaction value with " + topics + " topics");
            }
            TreeSet<TopicPartition> partitions = new TreeSet<>();
            for (int t = 0; t < topics; t++) {
                String topic = readString(buf);
                int count = buf.readInt();
                if (count < 0 || count > buf.readableBytes() / 4) {
                    throw new IllegalArgumentException("transaction value with " + count + " partitions of " + topic);
                }
                for (int i = 0; i < count; i++) {
                    partitions.add(new TopicPartition(topic, buf.readInt()));
                }
            }
            long nextProducerId = version >= 1 ? buf.readLong() : RecordBatch.NO_PRODUCER_ID;
            byte transactionVersion = version >= 1 ? buf.readByte() : 1;
            return new TransactionValue(producerId, previousProducerId, producerEpoch, lastProducerEpoch, timeoutMs,
                    state, partitions, txnStart, lastUpdate, nextProducerId, transactionVersion);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated legacy transaction value", e);
        }
    }

    private static String readString(ByteBuf buf) {
        int length = buf.readShort();
        if (length < 0 || length > buf.readableBytes()) {
            throw new IllegalArgumentException("string of " + length + " bytes");
        }
        String s = buf.toString(buf.readerIndex(), length, StandardCharsets.UTF_8);
        buf.skipBytes(length);
        return s;
    }

    private static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
