package io.krill.broker.share;

import io.krill.broker.config.ShareGroupConfig;
import io.krill.broker.partition.Partition;
import io.krill.broker.share.dlq.DeadLetterCause;
import io.krill.broker.share.dlq.DeadLetterQueue;
import io.krill.broker.share.dlq.DeadLetters;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareState;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.log.AbortedTxn;
import io.krill.log.LogReadResult;
import io.krill.log.TimestampAndOffset;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One share-partition on the leader of its topic partition: which records of the log the share group has
 * handed out, to whom, how often, and which are done ({@link InFlightRecords}), loaded from and written to
 * the share coordinator ({@link ShareStatePersister}).
 *
 * <p>Reads: the log is read from the first available offset (a redelivery) or the end offset (new records),
 * up to the high watermark, or the last stable offset under {@code share.isolation.level=read_committed},
 * whole batches sent from the file. Only batch headers are read to decide what is acquired; control batches
 * and, under read_committed, aborted transactions are archived without delivery.
 *
 * <p>Durability: every acknowledgement, release and lock expiry is written to the share coordinator, and an
 * acknowledgement is answered once its write is committed there; acquisitions are not written (a lock ends
 * with its leader; the records become available again with the count last written, as in Kafka). Writes are
 * the whole in-flight state, one at a time per share-partition, so that a later write never lands before an
 * earlier one; changes made while one is in flight go in the next. A failed write fences this object: the
 * manager drops it and the next fetch loads the state the coordinator has, so memory never runs ahead of
 * what was acknowledged durably.
 *
 * <p>Dead letters (KIP-1191): when the group has a dead-letter queue, records a consumer rejects or that
 * reach the delivery limit are ARCHIVING; once a write holding that state is committed, their dead-letter
 * records are sent ({@link DeadLetterQueue}), and when that is done or given up they are archived and
 * written again. A share-partition loaded with ARCHIVING records sends them again: at least once, as Kafka.
 *
 * <p>Valid only while this broker leads the partition at the leader epoch it was loaded at; a leader change
 * fences it too.
 *
 * <p>Thread-safety: thread-safe; its state is guarded by its monitor, log reads and persister calls happen
 * outside it.
 */
public final class SharePartition {
    private static final Logger LOG = LoggerFactory.getLogger(SharePartition.class);

    /** What a fetch got: the batches read (to send, then close) and the ranges acquired in them. */
    public record ShareRead(LogReadResult read, List<AcquiredRange> acquired) {
        static final ShareRead NONE = new ShareRead(null, List.of());

        public int acquiredCount() {
            long n = 0;
            for (AcquiredRange a : acquired) {
                n += a.lastOffset() - a.firstOffset() + 1;
            }
            return (int) n;
        }
    }

    /** One acknowledgement batch of a request, checked for shape by the handler. */
    public record Acknowledgement(long firstOffset, long lastOffset, List<AcknowledgeType> types) {
        AcknowledgeType typeAt(long offset) {
            return types.size() == 1 ? types.get(0) : types.get((int) (offset - firstOffset));
        }
    }

    private record Waiter(long change, CompletableFuture<Void> done) {
    }

    private final SharePartitionKey key;
    private final Partition partition;
    private final int leaderEpoch;
    private final ShareStatePersister persister;
    private final DeadLetterQueue deadLetters;
    private final ShareGroupConfigSource configs;
    private final Runnable onAvailable;
    private int stateEpoch;
    private InFlightRecords records;
    private boolean fenced;
    private long changes;
    private boolean writing;
    private final Deque<Waiter> waiters = new ArrayDeque<>();
    /** When the pending lock check runs (ms), or 0 when none is pending. */
    private long timerAt;

    /** The group's settings now (they may change while the share-partition lives). */
    @FunctionalInterface
    interface ShareGroupConfigSource {
        ShareGroupConfig config();
    }

    /**
     * What a share-partition works with, besides its log.
     *
     * @param persister   the share coordinator's side
     * @param deadLetters where rejected records and those at the delivery limit go, when the group has a DLQ
     * @param configs     the group's settings
     * @param onAvailable called (outside the lock) when records became available again, or room for new ones
     *                    was made, to wake share fetches waiting on the partition
     */
    record Links(ShareStatePersister persister, DeadLetterQueue deadLetters, ShareGroupConfigSource configs,
                 Runnable onAvailable) {
    }

    private SharePartition(SharePartitionKey key, Partition partition, int leaderEpoch, Links links) {
        this.key = key;
        this.partition = partition;
        this.leaderEpoch = leaderEpoch;
        this.persister = links.persister();
        this.deadLetters = links.deadLetters();
        this.configs = links.configs();
        this.onAvailable = links.onAvailable();
    }

    /**
     * Loads the share-partition's state from its share coordinator as the leader at {@code leaderEpoch}; a
     * share-partition never initialized starts where {@code share.auto.offset.reset} says, written before
     * it is used. Records found ARCHIVING have their dead letters sent again.
     */
    static CompletableFuture<SharePartition> load(SharePartitionKey key, Partition partition, int leaderEpoch,
                                                  Links links) {
        SharePartition shared = new SharePartition(key, partition, leaderEpoch, links);
        ShareStatePersister persister = links.persister();
        ShareGroupConfigSource configs = links.configs();
        return persister.read(key, leaderEpoch).thenCompose(state -> {
            shared.stateEpoch = state.stateEpoch();
            if (state.startOffset() != ShareState.UNINITIALIZED) {
                long start = Math.max(state.startOffset(), partition.logStartOffset());
                synchronized (shared) {
                    shared.records = InFlightRecords.restore(state.startOffset(), state.batches());
                    shared.records.moveStartTo(start);
                }
                shared.resumeArchiving();
                return CompletableFuture.completedFuture(shared);
            }
            long start = shared.resetOffset(configs.config());
            synchronized (shared) {
                shared.records = new InFlightRecords(start);
            }
            return persister.write(key, state.stateEpoch(), leaderEpoch, start, List.of()).thenApply(v -> shared);
        });
    }

    /** Where {@code share.auto.offset.reset} starts a share-partition with no state. */
    private long resetOffset(ShareGroupConfig config) {
        String reset = config.autoOffsetReset();
        if ("earliest".equals(reset)) {
            return partition.logStartOffset();
        }
        if (reset != null && reset.startsWith("by_duration:")) {
            long since = System.currentTimeMillis() - Duration.parse(reset.substring("by_duration:".length())).toMillis();
            Optional<TimestampAndOffset> found = partition.log().fetchOffsetByTimestamp(since);
            return found.map(TimestampAndOffset::offset).orElse(bound(config));
        }
        return bound(config);
    }

    private long bound(ShareGroupConfig config) {
        return config.readCommitted() ? partition.lastStableOffset() : partition.highWatermark();
    }

    Partition partition() {
        return partition;
    }

    int leaderEpoch() {
        return leaderEpoch;
    }

    /** Whether this object still stands for the share-partition (no failed write, still the leader at its epoch). */
    synchronized boolean isValid() {
        return !fenced && partition.isLeader() && partition.leaderEpoch() == leaderEpoch;
    }

    /**
     * Whether a fetch could acquire something now: records available again, or new records below the
     * bound with room for more locks.
     */
    boolean canAcquire() {
        ShareGroupConfig config = configs.config();
        long bound = bound(config);
        synchronized (this) {
            if (fenced) {
                return true; // the fetch answers the error
            }
            if (records.hasAvailable()) {
                return true;
            }
            return records.end() < bound && records.inFlight() < config.partitionMaxRecordLocks();
        }
    }

    /**
     * Acquires records for {@code member}: at most {@code maxRecords} (whole batches unless
     * {@code strictLimit}), from a read of at most {@code maxBytes} (the first batch always whole).
     * The read's file slice is returned even when nothing was acquired only if something was; otherwise
     * it is closed here.
     */
    ShareRead acquire(String member, int maxRecords, int maxBytes, boolean strictLimit, long now) {
        ShareGroupConfig config = configs.config();
        boolean dlq = deadLetters.enabled(key.groupId());
        long bound = bound(config);
        long fetchOffset;
        synchronized (this) {
            checkValid();
            if (records.start() < partition.logStartOffset()) {
                records.moveStartTo(partition.logStartOffset()); // retention removed them: nothing to deliver
            }
            fetchOffset = records.firstAvailable();
            if (fetchOffset == records.end() && records.inFlight() >= config.partitionMaxRecordLocks()) {
                return ShareRead.NONE;
            }
        }
        if (fetchOffset >= bound || maxRecords <= 0) {
            return ShareRead.NONE;
        }
        LogReadResult read = partition.log().read(fetchOffset, Math.max(0, maxBytes), bound, true);
        boolean keep = false;
        try {
            if (read.isEmpty()) {
                return ShareRead.NONE;
            }
            List<BatchHeaders.Header> headers = BatchHeaders.of(read.records());
            List<AbortedTxn> aborted = config.readCommitted()
                    ? partition.log().collectAbortedTransactions(fetchOffset, read.nextOffset()) : List.of();
            List<AcquiredRange> acquired;
            synchronized (this) {
                checkValid();
                acquired = acquireFrom(headers, aborted, fetchOffset, member, maxRecords, strictLimit,
                        now + config.recordLockDurationMs(), config, dlq);
                if (records.hasArchivingToSend()) {
                    persist(); // records at the delivery limit: their dead letters go once this is durable
                }
            }
            if (acquired.isEmpty()) {
                return ShareRead.NONE;
            }
            keep = true;
            return new ShareRead(read, acquired);
        } finally {
            if (!keep) {
                read.close();
            }
        }
    }

    private List<AcquiredRange> acquireFrom(List<BatchHeaders.Header> headers, List<AbortedTxn> aborted,
                                                       long fetchOffset, String member, int maxRecords,
                                                       boolean strictLimit, long deadline, ShareGroupConfig config,
                                                       boolean dlq) {
        List<AcquiredRange> acquired = new ArrayList<>();
        int budget = maxRecords;
        long expected = fetchOffset;
        for (BatchHeaders.Header header : headers) {
            if (budget <= 0) {
                break;
            }
            if (header.lastOffset() < records.start()) {
                expected = header.lastOffset() + 1;
                continue;
            }
            if (header.baseOffset() > expected && header.baseOffset() > records.end()) {
                // offsets the log has no record at (compaction): nothing will ever be delivered there
                records.archiveAvailable(Math.max(expected, records.end()), header.baseOffset() - 1);
            }
            expected = header.lastOffset() + 1;
            if (header.control() || isAborted(header, aborted)) {
                records.archiveAvailable(header.baseOffset(), header.lastOffset());
                continue;
            }
            if (header.baseOffset() >= records.end() && records.inFlight() >= config.partitionMaxRecordLocks()) {
                break; // no room for more locks: new records wait (a batch may pass the limit, as in Kafka)
            }
            int max = strictLimit ? budget : Integer.MAX_VALUE;
            List<AcquiredRange> got = records.acquire(header.baseOffset(), header.lastOffset(), max, member,
                    deadline, config.deliveryCountLimit(), dlq);
            for (AcquiredRange a : got) {
                budget -= (int) (a.lastOffset() - a.firstOffset() + 1);
                AcquiredRange previous = acquired.isEmpty() ? null : acquired.get(acquired.size() - 1);
                if (previous != null && previous.lastOffset() + 1 == a.firstOffset()
                        && previous.deliveryCount() == a.deliveryCount()) {
                    acquired.set(acquired.size() - 1,
                            new AcquiredRange(previous.firstOffset(), a.lastOffset(), a.deliveryCount()));
                } else {
                    acquired.add(a);
                }
            }
        }
        return acquired;
    }

    private static boolean isAborted(BatchHeaders.Header header, List<AbortedTxn> aborted) {
        if (!header.transactional()) {
            return false;
        }
        for (AbortedTxn txn : aborted) {
            if (txn.producerId() == header.producerId() && header.baseOffset() >= txn.firstOffset()
                    && header.baseOffset() <= txn.lastOffset()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Applies {@code acks} of {@code member}: all or nothing, INVALID_RECORD_STATE when a record named is
     * not acquired by the member (never delivered to it, its lock ended, or already acknowledged). Completes
     * once the new state is committed at the share coordinator.
     */
    CompletableFuture<Void> acknowledge(String member, List<Acknowledgement> acks, long now) {
        ShareGroupConfig config = configs.config();
        boolean dlq = deadLetters.enabled(key.groupId());
        boolean released = false;
        CompletableFuture<Void> written;
        synchronized (this) {
            checkValid();
            for (Acknowledgement ack : acks) {
                if (!records.acquiredBy(ack.firstOffset(), ack.lastOffset(), member)) {
                    return CompletableFuture.failedFuture(new ApiException(Errors.INVALID_RECORD_STATE,
                            "Records " + ack.firstOffset() + "-" + ack.lastOffset() + " of " + key
                                    + " are not acquired by member " + member));
                }
            }
            boolean durable = false;
            for (Acknowledgement ack : acks) {
                if (ack.types().size() == 1) {
                    AcknowledgeType type = ack.types().get(0);
                    records.acknowledge(ack.firstOffset(), ack.lastOffset(), type,
                            now + config.recordLockDurationMs(), config.deliveryCountLimit(), dlq);
                    released |= type == AcknowledgeType.RELEASE;
                    durable |= type != AcknowledgeType.RENEW;
                    continue;
                }
                for (long offset = ack.firstOffset(); offset <= ack.lastOffset(); offset++) {
                    AcknowledgeType type = ack.typeAt(offset);
                    records.acknowledge(offset, offset, type, now + config.recordLockDurationMs(),
                            config.deliveryCountLimit(), dlq);
                    released |= type == AcknowledgeType.RELEASE;
                    durable |= type != AcknowledgeType.RENEW;
                }
            }
            written = durable ? persist() : CompletableFuture.completedFuture(null);
        }
        if (released) {
            onAvailable.run();
        }
        return written;
    }

    /** Releases every record {@code member} holds here (its share session closed). */
    void releaseMember(String member) {
        ShareGroupConfig config = configs.config();
        boolean dlq = deadLetters.enabled(key.groupId());
        long released;
        synchronized (this) {
            if (fenced) {
                return;
            }
            released = records.release(member, 0, config.deliveryCountLimit(), dlq);
            if (released > 0) {
                persist();
            }
        }
        if (released > 0) {
            onAvailable.run();
        }
    }

    /** Releases records whose acquisition lock ended by {@code now}; returns the next deadline. */
    long expireLocks(long now) {
        ShareGroupConfig config = configs.config();
        boolean dlq = deadLetters.enabled(key.groupId());
        long released;
        long next;
        synchronized (this) {
            if (fenced) {
                return Long.MAX_VALUE;
            }
            released = records.release(null, now, config.deliveryCountLimit(), dlq);
            if (released > 0) {
                persist();
            }
            next = records.nextDeadline();
        }
        if (released > 0) {
            onAvailable.run();
        }
        return next;
    }

    /**
     * Fences this object if nobody holds a record of it and no write is in flight, so that the next use loads
     * the state the share coordinator has now: a member opening its share session must see what
     * AlterShareGroupOffsets or DeleteShareGroupOffsets did to an empty group's state meanwhile. Nothing
     * is lost: every change it made is durable, and no lock is dropped; with dead letters on their way it
     * waits (a new load would send them again). Returns whether it fenced.
     */
    synchronized boolean fenceIfIdle() {
        if (fenced || writing || !waiters.isEmpty() || records.nextDeadline() != Long.MAX_VALUE
                || records.hasArchiving()) {
            return false;
        }
        fenced = true;
        return true;
    }

    /** Whether a lock check must be scheduled for {@code deadline}: none is pending, or only a later one. */
    synchronized boolean armTimer(long deadline) {
        if (timerAt != 0 && timerAt <= deadline) {
            return false;
        }
        timerAt = deadline;
        return true;
    }

    /** Whether the check scheduled for {@code deadline} is still the pending one (it then is no longer). */
    synchronized boolean timerFired(long deadline) {
        if (timerAt != deadline) {
            return false;
        }
        timerAt = 0;
        return true;
    }

    /** Marks this object unusable (a leader change, a failed write); waiting acknowledgements fail. */
    void fence(Errors error) {
        List<Waiter> failed;
        synchronized (this) {
            fenced = true;
            failed = new ArrayList<>(waiters);
            waiters.clear();
        }
        for (Waiter waiter : failed) {
            waiter.done.completeExceptionally(new ApiException(error, "The share-partition " + key + " moved"));
        }
    }

    /** Whether {@code member} holds every record of {@code [first, last]} now (tests). */
    synchronized boolean heldBy(long first, long last, String member) {
        return records.acquiredBy(first, last, member);
    }

    private void checkValid() {
        if (fenced || !partition.isLeader() || partition.leaderEpoch() != leaderEpoch) {
            fenced = true;
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "This broker no longer leads "
                    + partition.topicPartition() + " at epoch " + leaderEpoch);
        }
    }

    // ------------------------------------------------------------------ persistence

    /** Called under the lock after a change to persist: the future completes when a write including it lands. */
    private CompletableFuture<Void> persist() {
        changes++;
        CompletableFuture<Void> done = new CompletableFuture<>();
        waiters.add(new Waiter(changes, done));
        if (!writing) {
            startWrite();
        }
        return done;
    }

    private void startWrite() {
        writing = true;
        long change = changes;
        long start = records.start();
        var batches = records.toStateBatches();
        List<InFlightRecords.Archiving> archiving = records.takeArchiving();
        persister.write(key, stateEpoch, leaderEpoch, start, batches)
                .whenComplete((ignored, failure) -> written(change, failure, archiving));
    }

    private void written(long change, Throwable failure, List<InFlightRecords.Archiving> archiving) {
        List<Waiter> completed = new ArrayList<>();
        synchronized (this) {
            writing = false;
            if (failure == null) {
                while (!waiters.isEmpty() && waiters.peekFirst().change <= change) {
                    completed.add(waiters.pollFirst());
                }
                if (!fenced && changes > change) {
                    startWrite();
                }
            }
        }
        if (failure != null) {
            Throwable cause = failure.getCause() != null && !(failure instanceof ApiException) ? failure.getCause() : failure;
            Errors error = cause instanceof ApiException api ? api.error() : Errors.UNKNOWN_SERVER_ERROR;
            // memory may now be ahead of the coordinator: drop it, the next fetch loads what was written
            fence(error == Errors.NONE ? Errors.UNKNOWN_SERVER_ERROR : error);
            return;
        }
        for (Waiter waiter : completed) {
            waiter.done.complete(null);
        }
        if (!archiving.isEmpty() && isValid()) {
            sendDeadLetters(archiving); // when no longer valid, the next leader finds them ARCHIVING and sends them
        }
    }

    // ------------------------------------------------------------------ dead letters

    /** Sends the dead letters of ARCHIVING records loaded from the share coordinator. */
    private void resumeArchiving() {
        List<InFlightRecords.Archiving> archiving;
        synchronized (this) {
            archiving = records.takeArchiving();
        }
        sendDeadLetters(archiving);
    }

    /** Sends dead letters of records whose ARCHIVING state is durable; each range is archived when done. */
    private void sendDeadLetters(List<InFlightRecords.Archiving> archiving) {
        if (archiving.isEmpty()) {
            return;
        }
        int limit = configs.config().deliveryCountLimit();
        for (InFlightRecords.Archiving range : archiving) {
            // A range loaded ARCHIVING has no cause kept: judged by its count, as Kafka does.
            DeadLetterCause cause = range.cause() != null ? range.cause()
                    : range.deliveryCount() >= limit ? DeadLetterCause.DELIVERY_COUNT_EXCEEDED : DeadLetterCause.REJECTED;
            DeadLetters letters = new DeadLetters(key.groupId(), partition.topicPartition(), key.topicId(),
                    range.first(), range.last(), range.deliveryCount(), cause);
            CompletableFuture<Void> sent;
            try {
                sent = deadLetters.send(letters);
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            sent.whenComplete((ignored, failure) -> deadLettersDone(letters, failure));
        }
    }

    /** Archives records whose dead letters were written, or given up (Kafka archives them regardless). */
    private void deadLettersDone(DeadLetters letters, Throwable failure) {
        if (failure != null) {
            LOG.warn("Dead letters of share group {} for {} offsets {}-{} not written, archiving them regardless: {}",
                    letters.groupId(), letters.source(), letters.firstOffset(), letters.lastOffset(),
                    failure.getMessage());
        }
        synchronized (this) {
            if (fenced) {
                return; // the next load finds them ARCHIVING and sends them again
            }
            records.finishArchiving(letters.firstOffset(), letters.lastOffset());
            persist();
        }
        onAvailable.run(); // the start may have moved: room for new records
    }
}
