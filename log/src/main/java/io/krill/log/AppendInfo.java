package io.krill.log;

import java.util.List;

/**
 * The outcome of an append, computed from batch headers only (no record decoding).
 *
 * @param firstOffset          offset of the first record appended (-1 for an empty append)
 * @param lastOffset           offset of the last record appended (-1 for an empty append)
 * @param maxTimestamp         the largest batch max timestamp (-1 if none)
 * @param offsetOfMaxTimestamp last offset of the first batch carrying maxTimestamp (-1 if none)
 * @param logAppendTime        the time stamped on the batches with LogAppendTime, else -1; for a duplicate
 *                             the original batch's max timestamp, as Kafka answers it
 * @param logStartOffset       the log start offset after the append
 * @param batchCount           batches appended
 * @param recordCount          records appended (sum of the headers' record counts)
 * @param sizeInBytes          bytes appended
 * @param producers            one summary per producer id seen, in first-seen order
 * @param duplicate            true when the append was recognised as a retry of an already appended
 *                             idempotent batch: nothing was written, and first/last offset are the
 *                             original batch's (the broker answers success with them)
 */
public record AppendInfo(long firstOffset, long lastOffset, long maxTimestamp, long offsetOfMaxTimestamp,
        long logAppendTime, long logStartOffset, int batchCount, int recordCount, int sizeInBytes,
        List<ProducerAppend> producers, boolean duplicate) {

    public AppendInfo {
        producers = List.copyOf(producers);
    }

    static AppendInfo empty(long logStartOffset) {
        return new AppendInfo(-1, -1, -1, -1, -1, logStartOffset, 0, 0, 0, List.of(), false);
    }
}
