package io.krill.broker.share.dlq;

import io.krill.wire.record.CompressionType;
import io.krill.wire.record.Header;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The dead-letter records of one {@link DeadLetters}, as Kafka 4.4 writes them
 * ({@code ShareGroupDLQStateManager.ProduceRequestHandler}): one record per offset, timestamp now, no
 * compression, no producer id; the headers, in this order, with UTF-8 string values:
 * {@value #TOPIC} (the source topic), {@value #PARTITION}, {@value #OFFSET}, {@value #GROUP},
 * {@value #DELIVERY_COUNT} and {@value #MESSAGE} (the cause's message). Key and value are null, or, when the
 * group copies records, the original record's (its headers are not copied, as in Kafka); an offset whose
 * original could not be read gets the headers alone.
 *
 * <p>Records go in batches of at most the dead-letter topic's {@code max.message.bytes} (the 61-byte batch
 * header and every record's encoded size counted, as Kafka counts them), at least one record each, so a
 * record too large on its own goes alone (and the leader refuses it with RECORD_TOO_LARGE).
 *
 * <p>Stateless; thread-safe.
 */
public final class DeadLetterRecords {
    public static final String TOPIC = "__dlq.errors.topic";
    public static final String PARTITION = "__dlq.errors.partition";
    public static final String OFFSET = "__dlq.errors.offset";
    public static final String GROUP = "__dlq.errors.group";
    public static final String DELIVERY_COUNT = "__dlq.errors.delivery.count";
    public static final String MESSAGE = "__dlq.errors.message";

    private DeadLetterRecords() {
    }

    /** An original record's key and value (each possibly null), copied out of the source log. Immutable. */
    public record Original(byte[] key, byte[] value) {
        /** A copy of {@code key} and {@code value}'s readable bytes (each may be null). */
        public static Original copyOf(ByteBuf key, ByteBuf value) {
            return new Original(key == null ? null : ByteBufUtil.getBytes(key),
                    value == null ? null : ByteBufUtil.getBytes(value));
        }

        int sizeInBytes() {
            return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        }
    }

    /**
     * What was read of the originals from some offset on: the records found at offsets up to
     * {@code coveredTo} (inclusive); an offset up to there without one was not readable. Immutable.
     */
    public record Originals(NavigableMap<Long, Original> records, long coveredTo) {
        public Originals {
            records = new TreeMap<>(records);
        }

        /** No originals (copying is off, or nothing is readable) for every offset up to {@code coveredTo}. */
        public static Originals none(long coveredTo) {
            return new Originals(new TreeMap<>(), coveredTo);
        }
    }

    /**
     * One batch of dead-letter records: for the source offsets {@code [firstOffset, lastOffset]}.
     *
     * @param bytes a whole v2 record batch (base offset 0; the leader assigns offsets)
     */
    public record Batch(long firstOffset, long lastOffset, byte[] bytes) {
        public int recordCount() {
            return (int) (lastOffset - firstOffset + 1);
        }
    }

    /** The headers of the dead-letter record of {@code offset}, in Kafka's order. */
    public static Header[] headers(DeadLetters letters, long offset) {
        return new Header[] {
            header(TOPIC, letters.source().topic()),
            header(PARTITION, Integer.toString(letters.source().partition())),
            header(OFFSET, Long.toString(offset)),
            header(GROUP, letters.groupId()),
            header(DELIVERY_COUNT, Short.toString(letters.deliveryCount())),
            header(MESSAGE, letters.cause().message())
        };
    }

    private static Header header(String key, String value) {
        return new Header(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The next batch of {@code letters}' dead-letter records from source offset {@code from}: records for
     * {@code from}, {@code from + 1}, ... up to {@code letters.lastOffset()} and {@code originals.coveredTo()},
     * while the batch stays within {@code maxBatchBytes} (at least one record).
     *
     * @param originals the original records from {@code from} on ({@link Originals#none} when not copying)
     * @param now       every record's timestamp
     */
    public static Batch nextBatch(DeadLetters letters, long from, Originals originals, long now, int maxBatchBytes) {
        if (from < letters.firstOffset() || from > letters.lastOffset()) {
            throw new IllegalArgumentException("offset " + from + " is not in " + letters.firstOffset() + ".."
                    + letters.lastOffset());
        }
        long end = Math.max(from, Math.min(letters.lastOffset(), originals.coveredTo()));
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.compression(CompressionType.NONE).createTime().baseTimestamp(now);
            int size = RecordBatch.HEADER_SIZE;
            long offset = from;
            for (; offset <= end; offset++) {
                Original original = originals.records().get(offset);
                byte[] key = original == null ? null : original.key();
                byte[] value = original == null ? null : original.value();
                Header[] headers = headers(letters, offset);
                int recordSize = recordSize((int) (offset - from), key, value, headers);
                if (offset > from && size + recordSize > maxBatchBytes) {
                    break;
                }
                builder.append(now, key, value, headers);
                size += recordSize;
            }
            ByteBuf built = builder.build();
            try {
                return new Batch(from, offset - 1, ByteBufUtil.getBytes(built));
            } finally {
                built.release();
            }
        }
    }

    /** A record's encoded size in a batch (timestamp delta 0), its length prefix included. */
    static int recordSize(int offsetDelta, byte[] key, byte[] value, Header[] headers) {
        int keyLength = key == null ? -1 : key.length;
        int valueLength = value == null ? -1 : value.length;
        int body = 1 + varintSize(0) + varintSize(offsetDelta)
                + varintSize(keyLength) + Math.max(keyLength, 0)
                + varintSize(valueLength) + Math.max(valueLength, 0)
                + varintSize(headers.length);
        for (Header h : headers) {
            int k = h.key().getBytes(StandardCharsets.UTF_8).length;
            int v = h.value() == null ? -1 : h.value().length;
            body += varintSize(k) + k + varintSize(v) + Math.max(v, 0);
        }
        return varintSize(body) + body;
    }

    /** Size of a zigzag varint. */
    private static int varintSize(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xffffff80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }
}
