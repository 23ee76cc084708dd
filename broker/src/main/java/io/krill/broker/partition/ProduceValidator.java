package io.krill.broker.partition;

import io.krill.broker.config.TopicConfig;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;

/**
 * The checks a partition leader makes on a client's records before appending them, from batch headers
 * only (records are decoded only on compacted topics, to require keys): exactly one batch of magic 2,
 * a valid CRC, a size within {@code max.message.bytes}, base offset 0, offsets that match the record
 * count, no control batch, no zstd before Produce v7, timestamps within the topic's limits.
 *
 * <p>Each failure is an {@link ApiException} with the code Kafka answers: CORRUPT_MESSAGE,
 * INVALID_RECORD, MESSAGE_TOO_LARGE, UNSUPPORTED_COMPRESSION_TYPE, INVALID_TIMESTAMP.
 *
 * <p>Not thread-safe: holds a reusable flyweight; one instance per request thread (see {@link #get()}).
 */
public final class ProduceValidator {
    private static final ThreadLocal<ProduceValidator> PER_THREAD = ThreadLocal.withInitial(ProduceValidator::new);

    private final RecordBatch batch = new RecordBatch();

    private ProduceValidator() {
    }

    public static ProduceValidator get() {
        return PER_THREAD.get();
    }

    /** Validates the readable bytes of {@code records} for a Produce request of {@code version}. */
    public void validate(ByteBuf records, short version, TopicConfig topic, long nowMs) {
        int start = records.readerIndex();
        int available = records.readableBytes();
        if (available == 0) {
            throw new ApiException(Errors.INVALID_RECORD, "Produce requests must contain a record batch");
        }
        batch.wrap(records, start);
        try {
            batch.validate(available);
        } catch (CorruptRecordException e) {
            throw new ApiException(Errors.CORRUPT_MESSAGE, e.getMessage());
        }
        int size = batch.sizeInBytes();
        if (size != available) {
            throw new ApiException(Errors.INVALID_RECORD,
                    "Produce requests with version 3 or higher must contain exactly one record batch per partition");
        }
        if (size > topic.maxMessageBytes()) {
            throw new ApiException(Errors.MESSAGE_TOO_LARGE, "The record batch size " + size
                    + " is larger than the topic's max.message.bytes " + topic.maxMessageBytes());
        }
        if (batch.baseOffset() != 0) {
            throw new ApiException(Errors.INVALID_RECORD, "The base offset of a produced batch must be 0, not "
                    + batch.baseOffset());
        }
        if (!batch.hasContiguousOffsets()) {
            throw new ApiException(Errors.INVALID_RECORD, "Inconsistent batch: lastOffsetDelta "
                    + batch.lastOffsetDelta() + " with " + batch.recordCount() + " records");
        }
        if (batch.isControl()) {
            throw new ApiException(Errors.INVALID_RECORD, "Clients are not allowed to write control records");
        }
        if (batch.compression() == CompressionType.ZSTD && version < 7) {
            throw new ApiException(Errors.UNSUPPORTED_COMPRESSION_TYPE,
                    "Produce requests with version " + version + " may not use zstd compression");
        }
        if (batch.timestampType() == TimestampType.CREATE_TIME) {
            checkTimestamp(batch.baseTimestamp(), topic, nowMs);
            checkTimestamp(batch.maxTimestamp(), topic, nowMs);
        }
        if (topic.compact()) {
            requireKeys();
        }
    }

    private static void checkTimestamp(long timestamp, TopicConfig topic, long nowMs) {
        if (timestamp == RecordBatch.NO_TIMESTAMP) {
            return;
        }
        if (nowMs - timestamp > topic.messageTimestampBeforeMaxMs()
                || timestamp - nowMs > topic.messageTimestampAfterMaxMs()) {
            throw new ApiException(Errors.INVALID_TIMESTAMP, "Timestamp " + timestamp + " of a record is out of range"
                    + " of message.timestamp.before.max.ms/after.max.ms around " + nowMs);
        }
    }

    private void requireKeys() {
        try {
            batch.forEachRecord(record -> {
                if (!record.hasKey()) {
                    throw new ApiException(Errors.INVALID_RECORD, "Compacted topic cannot accept message without key");
                }
                return true;
            });
        } catch (CorruptRecordException e) {
            throw new ApiException(Errors.CORRUPT_MESSAGE, e.getMessage());
        }
    }
}
