package io.krill.broker.txn;

import io.krill.log.TopicPartition;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Krill's writer of {@code __transaction_state} records before Kafka's format (kept to test the conversion). */
final class LegacyTransactionRecords {
    private LegacyTransactionRecords() {
    }

    static byte[] key(String transactionalId) {
        return TransactionRecords.legacyKey(transactionalId);
    }

    /** The legacy value at version 1 (version 0 lacks the last two fields). */
    static byte[] value(TransactionValue value, int version) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(version);
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
            byte[] name = topic.getBytes(StandardCharsets.UTF_8);
            buf.writeShort(name.length);
            buf.writeBytes(name);
            buf.writeInt(partitions.size());
            partitions.forEach(buf::writeInt);
        });
        if (version >= 1) {
            buf.writeLong(value.nextProducerId());
            buf.writeByte(value.transactionVersion());
        }
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
