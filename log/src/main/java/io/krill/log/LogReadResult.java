package io.krill.log;

/**
 * A read of whole batches: {@link #records()} is a zero-copy {@link FileSlice} (possibly empty) that the
 * caller must {@link #close()} once sent.
 *
 * @param records            the batches; empty at the log end offset, when the bound or the size
 *                           allows none, or past the last batch
 * @param fetchOffset        the offset asked for
 * @param firstBatchOffset   base offset of the first batch returned (may be below fetchOffset: batches
 *                           are returned whole), or -1 when empty
 * @param nextOffset         where to read on: after the last batch returned, or (when the offset index
 *                           let the read skip headers) the base offset of the batch that did not fit,
 *                           which is equivalent since no offset lies between; fetchOffset when empty
 * @param logStartOffset     the log start offset when read
 * @param logEndOffset       the log end offset when read
 * @param firstBatchTooLarge the first batch alone exceeded maxBytes and minOneBatch was false
 */
public record LogReadResult(FileSlice records, long fetchOffset, long firstBatchOffset, long nextOffset,
        long logStartOffset, long logEndOffset, boolean firstBatchTooLarge) implements AutoCloseable {

    public boolean isEmpty() {
        return records.isEmpty();
    }

    @Override
    public void close() {
        records.close();
    }
}
