package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.wire.message.FetchRequest;
import java.util.List;

/**
 * A long-poll fetch: waits until {@code min.bytes} are there, or {@code max.wait.ms}, and answers with
 * whatever there is then.
 *
 * <p>It is woken by every change of any of its partitions (an append, a high-watermark move, a new
 * leader epoch), and a follower's fetch names every partition it follows: thousands of partitions mean
 * thousands of wake-ups per second, almost all for partitions with nothing new. So a wake-up first
 * compares, per partition, the offsets that bound this fetch's read (the log end for a follower, the
 * last stable offset under read_committed, else the high watermark), the log start and the leader
 * epoch with what it saw last, with no index lookup and no allocation; only when one of them moved
 * does it read the partitions again (index lookups and file positions, no data copied) to count the
 * bytes. Positions are remembered as of the first read, which the handler made before parking it.
 *
 * <p>Thread-safety: {@link #tryComplete} can run on several threads at once (whoever changed a
 * partition). The remembered positions are a hint kept without a lock: a thread stores a value it read
 * from the partition only before a full read of its own, which sees at least that much, so nothing
 * seen is ever skipped; a stale value costs one extra read. Completion is decided once by the base
 * class.
 */
final class DelayedFetch extends DelayedOperation {
    private final Request request;
    private final FetchHandler handler;
    private final PartitionManager partitions;
    private final boolean follower;
    private final boolean readCommitted;
    private final Partition[] leaders;
    private final long[] ends;
    private final long[] starts;
    private final int[] epochs;

    /** @param first the read the handler made, whose partitions this fetch now watches */
    DelayedFetch(long maxWaitMs, Request request, FetchHandler handler, FetchHandler.Read first,
                 PartitionManager partitions, boolean follower, boolean readCommitted) {
        super(maxWaitMs);
        this.request = request;
        this.handler = handler;
        this.partitions = partitions;
        this.follower = follower;
        this.readCommitted = readCommitted;
        List<Partition> read = first.leaders;
        int n = read.size();
        this.leaders = read.toArray(new Partition[0]);
        this.ends = new long[n];
        this.starts = new long[n];
        this.epochs = new int[n];
        for (int i = 0; i < n; i++) {
            Partition partition = leaders[i];
            FetchRequest.FetchPartition asked = first.asked.get(i);
            // as of the first read: anything past the fetch offset was already counted by it
            ends[i] = Math.min(end(partition), Math.max(asked.fetchOffset(), 0));
            starts[i] = partition.logStartOffset();
            epochs[i] = partition.leaderEpoch();
        }
    }

    @Override
    public boolean tryComplete() {
        if (!anyMoved()) {
            return false;
        }
        FetchRequest body = request.body();
        FetchHandler.Read read = handler.read(request, false);
        boolean enough = read.bytes >= body.minBytes() || read.errors;
        read.discard();
        return enough && forceComplete();
    }

    /** Whether any partition's bounds, log start, leadership or epoch changed since the last look. */
    private boolean anyMoved() {
        boolean moved = false;
        for (int i = 0; i < leaders.length; i++) {
            Partition partition = leaders[i];
            long end = end(partition);
            long start = partition.logStartOffset();
            int epoch = partition.leaderEpoch();
            if (end != ends[i] || start != starts[i] || epoch != epochs[i] || !partition.isLeader()
                    || !partitions.isHosted(partition)) {
                ends[i] = end;
                starts[i] = start;
                epochs[i] = epoch;
                moved = true;
            }
        }
        return moved;
    }

    private long end(Partition partition) {
        return follower ? partition.logEndOffset() : readCommitted ? partition.lastStableOffset()
                : partition.highWatermark();
    }

    @Override
    protected void onComplete() {
        handler.respond(request, handler.read(request, false));
    }
}
