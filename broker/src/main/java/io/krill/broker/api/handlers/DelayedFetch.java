package io.krill.broker.api.handlers;

import io.krill.broker.api.Request;
import io.krill.broker.fetch.FetchContext;
import io.krill.broker.fetch.FetchWaiter;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.purgatory.DelayedOperation;
import io.krill.log.TopicPartition;
import io.krill.wire.message.FetchRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * A wake-up names the partition that changed ({@link #tryComplete(Object)}): only that one is compared
 * (the others' changes wake it on their own), so a leadership move of thousands of partitions costs a
 * compare per partition, not a scan of the whole fetch per partition. The index from partition to
 * position is built at the first such wake-up, not for fetches that are never woken. With {@code min.bytes}
 * of 1 a partition whose bound moved past the offset asked completes the fetch without that counting read.
 *
 * <p>A consumer's incremental fetch in a session waits in its session instead
 * ({@link FetchContext#waitsInSession}): it watches no partition, the session wakes it for any change of
 * any of its partitions ({@link #partitionChanged}), and each look reads only the session's partitions that
 * changed.
 *
 * <p>Thread-safety: {@link #tryComplete} can run on several threads at once (whoever changed a
 * partition). The remembered positions are a hint kept without a lock: a thread stores a value it read
 * from the partition only before a full read of its own, which sees at least that much, so nothing
 * seen is ever skipped; a stale value costs one extra read. The index is immutable once published
 * (racing builders make equal ones). Completion is decided once by the base class.
 */
final class DelayedFetch extends DelayedOperation implements FetchWaiter {
    private final Request request;
    /** What the fetch reads (its session's partitions as of the request) and how it is answered. */
    private final FetchContext fetch;
    private final FetchHandler handler;
    private final PartitionManager partitions;
    private final boolean follower;
    private final boolean readCommitted;
    private final Partition[] leaders;
    private final long[] ends;
    /** The offset asked for each partition. */
    private final long[] fetchOffsets;
    private final long[] starts;
    private final int[] epochs;
    /** Whether this broker led each partition at the first read (a KIP-392 consumer may read from a follower). */
    private final boolean[] leading;
    private volatile Map<TopicPartition, Integer> index;

    /** @param first the read the handler made, whose partitions this fetch now watches */
    DelayedFetch(long maxWaitMs, Request request, FetchContext fetch, FetchHandler handler, FetchHandler.Read first,
                 PartitionManager partitions, boolean follower, boolean readCommitted) {
        super(maxWaitMs);
        this.request = request;
        this.fetch = fetch;
        this.handler = handler;
        this.partitions = partitions;
        this.follower = follower;
        this.readCommitted = readCommitted;
        List<Partition> read = first.leaders;
        int n = read.size();
        this.leaders = read.toArray(new Partition[0]);
        this.ends = new long[n];
        this.fetchOffsets = new long[n];
        this.starts = new long[n];
        this.epochs = new int[n];
        this.leading = new boolean[n];
        for (int i = 0; i < n; i++) {
            Partition partition = leaders[i];
            FetchRequest.FetchPartition asked = first.asked.get(i);
            // as of the first read: anything past the fetch offset was already counted by it
            fetchOffsets[i] = asked.fetchOffset();
            ends[i] = Math.min(end(partition), Math.max(asked.fetchOffset(), 0));
            starts[i] = partition.logStartOffset();
            epochs[i] = partition.leaderEpoch();
            leading[i] = partition.isLeader();
        }
    }

    @Override
    public boolean tryComplete() {
        return (anyMoved() || fetch.hasChanges()) && enoughToAnswer();
    }

    @Override
    public void partitionChanged(TopicPartition tp) {
        if (!isCompleted()) {
            tryComplete(tp);
        }
    }

    @Override
    public boolean tryComplete(Object key) {
        Integer at = key instanceof TopicPartition tp ? index().get(tp) : null;
        if (at == null) {
            return tryComplete();
        }
        if (!moved(at) && partitions.isHosted(leaders[at])) {
            return false;
        }
        if (ends[at] > fetchOffsets[at] && request.<FetchRequest>body().minBytes() <= 1) {
            // Records past the offset asked are readable now: with min.bytes 1 (consumers' and followers'
            // default) that is enough, and the read that counts them would be thrown away; the answer's
            // own read follows.
            return forceComplete();
        }
        return enoughToAnswer();
    }

    private Map<TopicPartition, Integer> index() {
        Map<TopicPartition, Integer> built = index;
        if (built == null) {
            built = new HashMap<>(leaders.length * 2);
            for (int i = 0; i < leaders.length; i++) {
                built.put(leaders[i].topicPartition(), i);
            }
            index = built;
        }
        return built;
    }

    /** Reads the partitions again (no data copied) and completes if there is enough, or an error, to answer. */
    private boolean enoughToAnswer() {
        FetchRequest body = request.body();
        FetchHandler.Read read = handler.read(request, fetch, false);
        if (read.bytes >= body.minBytes() || read.errors) {
            if (completeWith(read)) {
                return true; // answered with this very read
            }
        }
        read.discard();
        return false;
    }

    /** Whether any partition's bounds, log start, leadership or epoch changed since the last look. */
    private boolean anyMoved() {
        boolean moved = false;
        for (int i = 0; i < leaders.length; i++) {
            moved |= moved(i);
        }
        return moved;
    }

    /**
     * Whether partition {@code i}'s bounds, log start, role or epoch changed since the last look. (That it
     * is gone, deleted or moved away, is checked only when a wake-up names it: its removal wakes it.)
     */
    private boolean moved(int i) {
        Partition partition = leaders[i];
        long end = end(partition);
        long start = partition.logStartOffset();
        int epoch = partition.leaderEpoch();
        if (end != ends[i] || start != starts[i] || epoch != epochs[i] || partition.isLeader() != leading[i]) {
            ends[i] = end;
            starts[i] = start;
            epochs[i] = epoch;
            return true;
        }
        return false;
    }

    private long end(Partition partition) {
        return follower ? partition.logEndOffset() : readCommitted ? partition.lastStableOffset()
                : partition.highWatermark();
    }

    @Override
    protected void onComplete(Object found) {
        fetch.unpark(this);
        handler.respond(request, fetch, found instanceof FetchHandler.Read read ? read
                : handler.read(request, fetch, false));
    }

    @Override
    protected void onComplete() {
        onComplete(null);
    }
}
