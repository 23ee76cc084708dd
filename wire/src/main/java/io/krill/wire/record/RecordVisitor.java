package io.krill.wire.record;

/**
 * Receives the records of a batch one at a time from {@link RecordBatch#forEachRecord}. The record is a
 * flyweight re-pointed at each call: copy what must outlive the call.
 */
@FunctionalInterface
public interface RecordVisitor {
    /** @return {@code false} to stop the iteration after this record */
    boolean visit(Record record);
}
