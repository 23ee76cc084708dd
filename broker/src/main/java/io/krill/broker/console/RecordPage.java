package io.krill.broker.console;

import io.krill.wire.record.ControlRecordType;
import io.krill.wire.record.ControlRecords;
import io.krill.wire.record.DecompressionBuffer;
import io.krill.wire.record.Record;
import io.krill.wire.record.RecordBatch;
import io.krill.wire.record.RecordBatchCursor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * One page of the record browser, filled from the record batches of one or more Fetch responses: the
 * records from {@code fromOffset} on, at most {@code limit}, with control batches skipped and, under
 * read_committed, the batches of aborted transactions too (from each response's aborted transactions, as
 * Kafka's consumer does: a producer is aborted from its transaction's first offset until its ABORT
 * marker). Compressed batches are inflated (at most {@value #MAX_INFLATED_BYTES} bytes per batch). Keys,
 * values and header values are copied as UTF-8 text when valid, else base64, cut at
 * {@value #MAX_FIELD_BYTES} bytes; a page holds at most {@value #MAX_PAGE_BYTES} bytes of them (it ends
 * early, and {@link #nextOffset()} says where the next one starts).
 *
 * <p>Not thread-safe: filled by one thread, then read.
 */
final class RecordPage {
    static final int MAX_FIELD_BYTES = 64 * 1024;
    static final int MAX_INFLATED_BYTES = 16 * 1024 * 1024;
    /** A page ends early once its keys, values and headers hold this many bytes (before base64). */
    static final int MAX_PAGE_BYTES = 4 * 1024 * 1024;

    /** A key, value or header value: its text (null for null), "utf8" or "base64", whether it was cut. */
    record Field(String text, String encoding, boolean truncated) {
        static final Field NULL = new Field(null, null, false);
    }

    record HeaderEntry(String key, Field value) {
    }

    record Entry(long offset, long timestamp, String timestampType, Field key, Field value,
                 List<HeaderEntry> headers) {
    }

    /** An aborted transaction of a Fetch response. */
    record Aborted(long producerId, long firstOffset) {
    }

    private final int limit;
    private final boolean readCommitted;
    private final List<Entry> entries = new ArrayList<>();
    private long nextOffset;
    private long bytes;

    RecordPage(long fromOffset, int limit, boolean readCommitted) {
        this.nextOffset = fromOffset;
        this.limit = limit;
        this.readCommitted = readCommitted;
    }

    boolean isFull() {
        return entries.size() >= limit || bytes >= MAX_PAGE_BYTES;
    }

    /** Where the next page starts: after the last record taken, or after the last batch read or skipped. */
    long nextOffset() {
        return nextOffset;
    }

    List<Entry> entries() {
        return entries;
    }

    /**
     * Adds the records of one Fetch response's batches ({@code records}' readable bytes; a partial batch at
     * the end is ignored).
     *
     * @return whether it read at least one whole batch (false: nothing more to read at this offset)
     */
    boolean add(ByteBuf records, List<Aborted> aborted) {
        if (records == null || !records.isReadable()) {
            return false;
        }
        PriorityQueue<Aborted> pending = new PriorityQueue<>(Comparator.comparingLong(Aborted::firstOffset));
        if (readCommitted && aborted != null) {
            pending.addAll(aborted);
        }
        Set<Long> abortedProducers = new HashSet<>();
        RecordBatchCursor cursor = new RecordBatchCursor().reset(records);
        boolean progressed = false;
        try (DecompressionBuffer scratch = new DecompressionBuffer(ByteBufAllocator.DEFAULT, MAX_INFLATED_BYTES)) {
            while (!isFull() && cursor.next()) {
                RecordBatch batch = cursor.batch();
                progressed = true;
                if (batch.lastOffset() < nextOffset) {
                    continue;
                }
                while (!pending.isEmpty() && pending.peek().firstOffset() <= batch.lastOffset()) {
                    abortedProducers.add(pending.poll().producerId());
                }
                if (batch.isControl()) {
                    if (readCommitted) {
                        batch.forEachRecord(record -> {
                            if (ControlRecords.type(record) == ControlRecordType.ABORT) {
                                abortedProducers.remove(batch.producerId());
                            }
                            return true;
                        }, scratch);
                    }
                    nextOffset = batch.nextOffset();
                    continue;
                }
                if (readCommitted && batch.isTransactional() && abortedProducers.contains(batch.producerId())) {
                    nextOffset = batch.nextOffset();
                    continue;
                }
                String timestampType = batch.timestampType().name();
                boolean whole = batch.forEachRecord(record -> {
                    if (record.offset() >= nextOffset) {
                        entries.add(entry(record, timestampType));
                        bytes += kept(record.keySize()) + kept(record.valueSize()) + record.headersSize();
                        nextOffset = record.offset() + 1;
                    }
                    return !isFull();
                }, scratch);
                if (whole) {
                    nextOffset = Math.max(nextOffset, batch.nextOffset());
                }
            }
        }
        return progressed;
    }

    /** The bytes a field of {@code size} keeps on the page (-1: null). */
    private static int kept(int size) {
        return Math.max(0, Math.min(size, MAX_FIELD_BYTES));
    }

    private static Entry entry(Record record, String timestampType) {
        List<HeaderEntry> headers = new ArrayList<>(record.headerCount());
        record.forEachHeader((buffer, keyAt, keyLength, valueAt, valueLength) -> {
            String key = buffer.toString(keyAt, keyLength, StandardCharsets.UTF_8);
            headers.add(new HeaderEntry(key, valueLength < 0 ? Field.NULL : field(buffer, valueAt, valueLength)));
            return true;
        });
        return new Entry(record.offset(), record.timestamp(), timestampType,
                record.hasKey() ? field(record.buffer(), record.keyIndex(), record.keySize()) : Field.NULL,
                record.hasValue() ? field(record.buffer(), record.valueIndex(), record.valueSize()) : Field.NULL,
                headers);
    }

    /** {@code length} bytes at {@code index}: UTF-8 text when valid, else base64; cut at {@value #MAX_FIELD_BYTES}. */
    static Field field(ByteBuf buffer, int index, int length) {
        boolean truncated = length > MAX_FIELD_BYTES;
        int kept = truncated ? MAX_FIELD_BYTES : length;
        byte[] bytes = new byte[kept];
        buffer.getBytes(index, bytes);
        int textLength = kept;
        if (truncated) {
            // Do not cut a UTF-8 sequence: drop the continuation bytes and lead byte of a character cut short.
            int cut = kept;
            while (cut > kept - 4 && cut > 0 && (buffer.getByte(index + cut) & 0xC0) == 0x80) {
                cut--;
            }
            textLength = cut;
        }
        String text = utf8(bytes, textLength);
        if (text != null) {
            return new Field(text, "utf8", truncated);
        }
        return new Field(Base64.getEncoder().encodeToString(bytes), "base64", truncated);
    }

    /** The first {@code length} bytes as a string, or null when they are not valid UTF-8. */
    private static String utf8(byte[] bytes, int length) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, length))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
