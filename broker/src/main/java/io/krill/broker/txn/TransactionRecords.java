package io.krill.broker.txn;

import io.krill.log.TopicPartition;
import io.krill.wire.record.RecordBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The records the transaction coordinator keeps in {@code __transaction_state}: Krill's own versioned
 * binary layout (Kafka's TransactionLogKey/Value schemas ship only in its server jars). The topic is
 * compacted: the key names the transactional id, the latest value is its state, and a null value (a
 * tombstone) forgets an expired id.
 *
 * <p>Primitives are big-endian; {@code string} is an int16 byte length and UTF-8 bytes.
 *
 * <pre>
 * key   := int16 keyType (1 = transaction), string transactionalId
 * value := int16 version (1; 0 is read too),
 *          int64 producerId, int64 previousProducerId, int16 producerEpoch, int16 lastProducerEpoch,
 *          int32 timeoutMs, int8 state ({@link TransactionState#id()}),
 *          int64 txnStartTimestamp, int64 lastUpdateTimestamp,
 *          int32 topicCount, topicCount x (string topic, int32 partitionCount, partitionCount x int32),
 *          [version 1+] int64 nextProducerId, int8 transactionVersion
 * </pre>
 * A version 0 value (written before transaction version 2) reads as nextProducerId -1, transaction version 1.
 *
 * <p>A reader skips keys of an unknown type (a later Krill's record: {@link #readTransactionalId} returns
 * null) and rejects unknown value versions, which it cannot interpret safely. Stateless; thread-safe.
 */
public final class TransactionRecords {
    public static final short TRANSACTION_KEY = 1;
    static final short VALUE_VERSION = 1;

    private TransactionRecords() {
    }

    public static byte[] key(String transactionalId) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(TRANSACTION_KEY);
        writeString(buf, transactionalId);
        return toBytes(buf);
    }

    /** The transactional id of a key, or null for a key of another type. */
    public static String readTransactionalId(ByteBuf key) {
        short type = key.readShort();
        if (type != TRANSACTION_KEY) {
            return null;
        }
        return readString(key);
    }

    public static byte[] value(TransactionValue value) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(VALUE_VERSION);
        buf.writeLong(value.producerId());
        buf.writeLong(value.previousProducerId());
        buf.writeShort(value.producerEpoch());
        buf.writeShort(value.lastProducerEpoch());
        buf.writeInt(value.timeoutMs());
        buf.writeByte(value.state().id());
        buf.writeLong(value.txnStartTimestamp());
        buf.writeLong(value.lastUpdateTimestamp());
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : value.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        buf.writeInt(byTopic.size());
        byTopic.forEach((topic, partitions) -> {
            writeString(buf, topic);
            buf.writeInt(partitions.size());
            partitions.forEach(buf::writeInt);
        });
        buf.writeLong(value.nextProducerId());
        buf.writeByte(value.transactionVersion());
        return toBytes(buf);
    }

    /**
     * @throws IllegalArgumentException for a value version this Krill does not know or a malformed value
     */
    public static TransactionValue readValue(ByteBuf buf) {
        try {
            short version = buf.readShort();
            if (version < 0 || version > VALUE_VERSION) {
                throw new IllegalArgumentException("unknown transaction value version " + version);
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
            throw new IllegalArgumentException("truncated transaction value", e);
        }
    }

    private static void writeString(ByteBuf buf, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        buf.writeShort(bytes.length);
        buf.writeBytes(bytes);
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
