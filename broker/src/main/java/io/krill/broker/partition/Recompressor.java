package io.krill.broker.partition;

import io.krill.broker.config.TopicConfig;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.netty.buffer.ByteBuf;
import java.util.Locale;

/**
 * Honours a topic's {@code compression.type}: with {@code producer} (the default) batches are stored as
 * sent; with a codec ({@code uncompressed}, {@code gzip}, {@code snappy}, {@code lz4}, {@code zstd})
 * a batch in another codec is rebuilt in that one, records copied byte for byte with their offsets,
 * timestamps and headers, the producer id, epoch, sequence and transactional flag kept. This is the one
 * produce path that decodes records, and only for topics that ask for it, as in Kafka.
 *
 * <p>Stateless; thread-safe.
 */
public final class Recompressor {
    private Recompressor() {
    }

    /** The codec the topic stores, or null for {@code producer}. */
    static CompressionType target(TopicConfig topic) {
        String configured = topic.compressionType().toLowerCase(Locale.ROOT);
        return switch (configured) {
            case "producer" -> null;
            case "uncompressed", "none" -> CompressionType.NONE;
            default -> CompressionType.forName(configured);
        };
    }

    /**
     * Returns {@code records} itself when it already has the topic's codec, else a new buffer (the caller
     * releases it) with the batch rebuilt in that codec. {@code records} holds one validated batch.
     */
    public static ByteBuf maybeRecompress(ByteBuf records, TopicConfig topic) {
        CompressionType target = target(topic);
        RecordBatch batch = new RecordBatch().wrap(records, records.readerIndex());
        if (target == null || batch.compression() == target) {
            return records;
        }
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.baseOffset(batch.baseOffset())
                    .compression(target)
                    .producer(batch.producerId(), batch.producerEpoch(), batch.baseSequence())
                    .transactional(batch.isTransactional());
            batch.forEachRecord(record -> {
                builder.appendCopyOf(record);
                return true;
            });
            return builder.build();
        } catch (CorruptRecordException e) {
            throw new ApiException(Errors.CORRUPT_MESSAGE, e.getMessage());
        }
    }
}
