package io.krill.wire.record;

/**
 * Receives each complete batch of a buffer from {@link RecordBatches#forEach}. The batch is a flyweight
 * re-pointed at each call.
 */
@FunctionalInterface
public interface BatchVisitor {
    /** @return {@code false} to stop after this batch */
    boolean visit(RecordBatch batch);
}
