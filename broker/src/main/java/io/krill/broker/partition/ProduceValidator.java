package io.krill.broker.partition;

import io.krill.broker.config.TopicConfig;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.record.CompressionType;
import io.krill.wire.record.CorruptRecordException;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.TimestampType;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks a partition leader makes on a client's records before appending them, from batch headers
 * only (records are decoded only on compacted topics, to require keys): exactly one batch of magic 2,
 * a valid CRC, a size within {@code max.message.bytes}, base offset 0, offsets that match the record
 * count, no control batch, no zstd before Produce v7, timestamps within the topic's limits.
 *
 * <p>Each failure is an {@link ApiException} with the code Kafka answers: CORRUPT_MESSAGE,
 * INVALID_RECORD, MESSAGE_TOO_LARGE, UNSUPPORTED_COMPRESSION_TYPE, INVALID_TIMESTAMP; failures of
 * particular records are a {@link RecordValidationException} that names each of them (KIP-467).
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

    /**
     * Validates the readable bytes of {@code records} for a Produce request of {@code version} to
     * {@code partition} (named in the record errors).
     */
    public void validate(ByteBuf records, short version, TopicConfig topic, long nowMs, Object partition) {
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
        // From the header: the largest timestamp bounds every record's from above, so a record too far in
        // the future shows there. Records too old need their own timestamps (the header has no minimum):
        // they are read only when message.timestamp.before.max.ms is set, or when a bound is crossed, to
        // name the records.
        // A topic on LogAppendTime replaces the client's timestamps: Kafka checks none of them there.
        boolean createTime = batch.timestampType() == TimestampType.CREATE_TIME && !topic.logAppendTime();
        boolean checkEach = createTime && (topic.messageTimestampBeforeMaxMs() != Long.MAX_VALUE
                || outOfRange(batch.baseTimestamp(), topic, nowMs) || outOfRange(batch.maxTimestamp(), topic, nowMs));
        if (checkEach || topic.compact()) {
            checkRecords(topic, nowMs, checkEach, partition);
        }
    }

    private static boolean outOfRange(long timestamp, TopicConfig topic, long nowMs) {
        return timestamp != RecordBatch.NO_TIMESTAMP && (nowMs - timestamp > topic.messageTimestampBeforeMaxMs()
                || timestamp - nowMs > topic.messageTimestampAfterMaxMs());
    }

    /**
     * Reads the records (decompressing a compressed batch) for what only they can show: a key on a
     * compacted topic, each timestamp against the topic's bounds. Refused records are reported all
     * together, each by its index in the batch, as Kafka reports them; a batch with timestamp errors is
     * refused with INVALID_TIMESTAMP.
     */
    private void checkRecords(TopicConfig topic, long nowMs, boolean timestamps, Object partition) {
        List<RecordValidationException.RecordError> keyErrors = new ArrayList<>();
        List<RecordValidationException.RecordError> timestampErrors = new ArrayList<>();
        int[] index = {0};
        try {
            batch.forEachRecord(record -> {
                int i = index[0]++;
                if (topic.compact() && !record.hasKey()) {
                    keyErrors.add(new RecordValidationException.RecordError(i,
                            "Compacted topic cannot accept message without key in topic partition " + partition + "."));
                }
                if (timestamps && outOfRange(record.timestamp(), topic, nowMs)) {
                    timestampErrors.add(new RecordValidationException.RecordError(i, "Timestamp " + record.timestamp()
                            + " of message with offset " + record.offsetDelta() + " is out of range. The timestamp"
                            + " should be within [" + lowest(topic, nowMs) + ", " + highest(topic, nowMs) + "]"));
                }
                return true;
            });
        } catch (CorruptRecordException e) {
            throw new ApiException(Errors.CORRUPT_MESSAGE, e.getMessage());
        }
        if (!timestampErrors.isEmpty()) {
            timestampErrors.addAll(keyErrors);
            throw RecordValidationException.invalidTimestamps(timestampErrors);
        }
        if (!keyErrors.isEmpty()) {
            throw RecordValidationException.invalidRecords(keyErrors);
        }
    }

    private static long lowest(TopicConfig topic, long nowMs) {
        long before = topic.messageTimestampBeforeMaxMs();
        return before >= nowMs ? Long.MIN_VALUE : nowMs - before;
    }

    private static long highest(TopicConfig topic, long nowMs) {
        long after = topic.messageTimestampAfterMaxMs();
        return after >= Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + after;
    }
}
