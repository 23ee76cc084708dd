package io.krill.wire.record;

import io.netty.buffer.ByteBuf;

/**
 * Static helpers over a buffer region holding consecutive batches. For a loop without a lambda, or to
 * reuse the flyweight across calls, use {@link RecordBatchCursor}.
 *
 * <p>Stateless, thread-safe (each call has its own flyweight).
 */
public final class RecordBatches {
    private RecordBatches() {
    }

    /**
     * Visits each complete batch in absolute indexes {@code [from, to)} of {@code buffer} until the
     * visitor returns {@code false} or a partial trailing batch is reached.
     *
     * @return the absolute index after the last batch visited: {@code to} if every byte was consumed,
     *         otherwise the start of the partial batch or of the first batch not visited
     * @throws CorruptRecordException if a length field or magic byte cannot start a batch
     */
    public static int forEach(ByteBuf buffer, int from, int to, BatchVisitor visitor) {
        RecordBatchCursor cursor = new RecordBatchCursor().reset(buffer, from, to);
        while (cursor.next()) {
            if (!visitor.visit(cursor.batch())) {
                break;
            }
        }
        return cursor.position();
    }

    /**
     * Bytes of {@code [from, to)} made of complete batches, counted from {@code from}: the size a log
     * segment's recovery keeps. Batches are framed, not validated.
     */
    public static int completeBytes(ByteBuf buffer, int from, int to) {
        return forEach(buffer, from, to, batch -> true) - from;
    }
}
