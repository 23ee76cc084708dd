package io.krill.broker.share.dlq;

import io.krill.broker.share.dlq.DeadLetterRecords.Original;
import io.krill.broker.share.dlq.DeadLetterRecords.Originals;
import io.krill.log.LogReadResult;
import io.krill.log.PartitionLog;
import io.krill.wire.record.DecompressionBuffer;
import io.krill.wire.record.RecordBatches;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads back the original records of archived offsets from the source partition's local log, for a group
 * that copies them to its dead-letter topic ({@code errors.deadletterqueue.copy.record.enable}), as Kafka's
 * {@code ShareGroupDLQRecordFetcher} does: whole batches from the first wanted offset, compressed ones
 * decompressed, the key and value of every data record in the range copied out, up to a byte budget (at
 * least one record). Offsets without a record (compacted away, below the log start offset after retention,
 * control records, past the high watermark, or a read that failed) have no original: their dead-letter
 * records carry the headers alone, as Kafka's do.
 *
 * <p>Stateless; thread-safe as the log's reads are.
 */
final class OriginalRecords {
    private static final Logger LOG = LoggerFactory.getLogger(OriginalRecords.class);

    private OriginalRecords() {
    }

    /**
     * The originals of offsets {@code from..to} of {@code log}, read below {@code bound} (the high
     * watermark), until their keys and values pass {@code budgetBytes}; {@link Originals#coveredTo()} says
     * how far it looked (at least {@code from}).
     */
    static Originals read(PartitionLog log, long bound, long from, long to, int budgetBytes) {
        NavigableMap<Long, Original> found = new TreeMap<>();
        long next = Math.max(from, log.logStartOffset());
        long covered = next - 1;
        int budget = Math.max(1, budgetBytes);
        while (next <= to && next < bound) {
            Collected collected;
            try (LogReadResult read = log.read(next, budget, bound, true)) {
                if (read.isEmpty()) {
                    break;
                }
                ByteBuf bytes = read.records().readAll();
                collected = collect(bytes, next, to, budget, found);
            } catch (IOException | RuntimeException e) {
                LOG.info("Could not read records of {} from offset {} for its dead-letter records ({}); they "
                        + "carry the headers alone", log.topicPartition(), next, e.toString());
                break;
            }
            if (collected.coveredTo() < next) {
                break; // nothing in range: the rest is not readable
            }
            covered = collected.coveredTo();
            budget -= collected.bytes();
            if (collected.full() || budget <= 0) {
                return new Originals(found, Math.max(from, covered));
            }
            next = covered + 1;
        }
        return new Originals(found, to); // past what is readable: no originals up to the end
    }

    /**
     * What {@link #collect} took: how far it covered, the bytes of keys and values it copied, and whether
     * it stopped because the budget was spent.
     */
    record Collected(long coveredTo, int bytes, boolean full) {
    }

    /**
     * Copies into {@code found} the key and value of each data record of {@code batches} (whole v2 batches,
     * possibly compressed) at offsets {@code from..to}, until {@code budgetBytes} is passed (the first
     * record is always taken).
     */
    static Collected collect(ByteBuf batches, long from, long to, int budgetBytes, NavigableMap<Long, Original> found) {
        long[] covered = {from - 1};
        int[] bytes = {0};
        boolean[] full = {false};
        boolean[] first = {found.isEmpty()};
        try (DecompressionBuffer scratch = new DecompressionBuffer()) {
            RecordBatches.forEach(batches, batches.readerIndex(), batches.writerIndex(), batch -> {
                if (batch.lastOffset() < from) {
                    return true;
                }
                if (batch.baseOffset() > to) {
                    return false;
                }
                if (batch.isControl()) {
                    covered[0] = Math.min(batch.lastOffset(), to);
                    return true;
                }
                batch.forEachRecord(record -> {
                    long offset = record.offset();
                    if (offset < from) {
                        return true;
                    }
                    if (offset > to) {
                        return false;
                    }
                    Original original = Original.copyOf(record.hasKey() ? record.key() : null,
                            record.hasValue() ? record.value() : null);
                    if (!first[0] && bytes[0] + original.sizeInBytes() > budgetBytes) {
                        covered[0] = offset - 1;
                        full[0] = true;
                        return false;
                    }
                    first[0] = false;
                    found.put(offset, original);
                    bytes[0] += original.sizeInBytes();
                    covered[0] = offset;
                    return true;
                }, scratch);
                if (full[0]) {
                    return false;
                }
                covered[0] = Math.min(batch.lastOffset(), to); // offsets compacted away inside the batch
                return covered[0] < to;
            });
        }
        return new Collected(covered[0], bytes[0], full[0]);
    }
}
