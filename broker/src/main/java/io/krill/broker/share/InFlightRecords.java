package io.krill.broker.share;

import io.krill.broker.share.dlq.DeadLetterCause;
import io.krill.broker.share.state.StateBatch;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The records of a share-partition between its start offset (SPSO) and its end offset (SPEO, the first
 * offset never handed out), each with a delivery state and count, kept as ranges of consecutive offsets in
 * one state: a batch acquired whole and acknowledged whole stays one range, and only partial
 * acknowledgements split it. Every offset in {@code [start, end)} is in exactly one range.
 *
 * <pre>
 *   start                                                                 end
 *     |  ACKNOWLEDGED  |  ACQUIRED by m1, count 1  | AVAILABLE, count 2 | ARCHIVED |
 *     +----------------+---------------------------+--------------------+----------+
 * </pre>
 *
 * The start moves up over ranges that are done (acknowledged or archived); a done record never becomes
 * available again. A record is acquired by one member at a time, until its lock's deadline, an
 * acknowledgement, or a release.
 *
 * <p>With a dead-letter queue, records rejected or at the delivery limit are ARCHIVING, not archived: not
 * done, never delivered again, until their dead-letter records are written ({@link #takeArchiving},
 * {@link #finishArchiving}); the start does not pass them, so a new leader finds them and writes them again.
 *
 * <p>Thread-safety: not thread-safe; its {@link SharePartition} owns it and calls it under its lock.
 */
final class InFlightRecords {
    /** One range of offsets {@code [first, last]} in one state. Mutable; split in place. */
    static final class Range {
        long first;
        long last;
        byte state;
        short deliveryCount;
        /** The member holding the records while acquired, else null. */
        String member;
        /** When the acquisition lock ends (ms), while acquired. */
        long deadline;
        /** Why the records are ARCHIVING; null when restored (then judged by the delivery count). */
        DeadLetterCause cause;
        /** Whether an ARCHIVING range was handed out by {@link #takeArchiving} (its dead letters are on the way). */
        boolean taken;

        Range(long first, long last, byte state, short deliveryCount) {
            this.first = first;
            this.last = last;
            this.state = state;
            this.deliveryCount = deliveryCount;
        }

        Range copy(long first, long last) {
            Range copy = new Range(first, last, state, deliveryCount);
            copy.member = member;
            copy.deadline = deadline;
            copy.cause = cause;
            copy.taken = taken;
            return copy;
        }

        boolean done() {
            return state == StateBatch.ACKNOWLEDGED || state == StateBatch.ARCHIVED;
        }

        @Override
        public String toString() {
            return first + ".." + last + ":" + state + "x" + deliveryCount + (member == null ? "" : "@" + member);
        }
    }

    /** ARCHIVING offsets whose dead letters are to be written; {@code cause} null when restored. */
    record Archiving(long first, long last, short deliveryCount, DeadLetterCause cause) {
    }

    private final NavigableMap<Long, Range> ranges = new TreeMap<>();
    private long start;
    private long end;

    InFlightRecords(long start) {
        this.start = start;
        this.end = start;
    }

    /** Restores persisted state: ranges given are placed, offsets between them are available and new. */
    static InFlightRecords restore(long start, List<StateBatch> batches) {
        InFlightRecords records = new InFlightRecords(start);
        for (StateBatch batch : batches) {
            long first = Math.max(batch.firstOffset(), records.end);
            if (batch.lastOffset() < first) {
                continue;
            }
            if (first > records.end) {
                records.append(records.end, first - 1, StateBatch.AVAILABLE, (short) 0);
            }
            byte state = batch.deliveryState() == StateBatch.ACQUIRED ? StateBatch.AVAILABLE : batch.deliveryState();
            records.append(first, batch.lastOffset(), state, batch.deliveryCount());
        }
        records.advanceStart();
        return records;
    }

    long start() {
        return start;
    }

    long end() {
        return end;
    }

    /** Records in flight: between the start and the end, whatever their state. */
    long inFlight() {
        return end - start;
    }

    /** The first offset at or after the start that may be acquired now, or {@link #end()}. */
    long firstAvailable() {
        for (Range range : ranges.values()) {
            if (range.state == StateBatch.AVAILABLE) {
                return range.first;
            }
        }
        return end;
    }

    boolean hasAvailable() {
        return firstAvailable() < end;
    }

    /**
     * Moves the start to {@code offset} (the log start moved past it, or an offsets reset): everything
     * below is forgotten. An offset past the end also moves the end.
     */
    void moveStartTo(long offset) {
        if (offset <= start) {
            return;
        }
        if (offset >= end) {
            ranges.clear();
            start = offset;
            end = offset;
            return;
        }
        split(offset);
        ranges.headMap(offset, false).clear();
        start = offset;
    }

    /**
     * Makes {@code [end, last]} known, in {@code state} (AVAILABLE for records read from the log, ARCHIVED
     * for offsets the log has no record at, or control and aborted batches).
     */
    void extend(long last, byte state) {
        if (last >= end) {
            append(end, last, state, (short) 0);
        }
    }

    /**
     * Archives the available records of {@code [first, last]} (control batches, aborted transactions,
     * offsets with no record): they are never delivered.
     */
    void archiveAvailable(long first, long last) {
        extend(last, StateBatch.AVAILABLE);
        for (Range range : slice(first, last)) {
            if (range.state == StateBatch.AVAILABLE) {
                range.state = StateBatch.ARCHIVED;
            }
        }
        advanceStart();
    }

    /**
     * Acquires for {@code member} the available records of {@code [first, last]} (extending the end over
     * records read from the log), at most {@code max} of them, each delivery counted; records at the
     * delivery limit are archived instead. Returns what was acquired, ranges in offset order.
     */
    List<AcquiredRange> acquire(long first, long last, int max, String member, long deadline, int deliveryLimit,
                                boolean deadLetters) {
        List<AcquiredRange> acquired = new ArrayList<>();
        if (max <= 0 || last < Math.max(first, start)) {
            return acquired;
        }
        extend(last, StateBatch.AVAILABLE);
        long from = Math.max(first, start);
        int budget = max;
        for (Range range : slice(from, last)) {
            if (budget == 0) {
                break;
            }
            if (range.state != StateBatch.AVAILABLE) {
                continue;
            }
            if (range.deliveryCount >= deliveryLimit) {
                archive(range, deadLetters, DeadLetterCause.DELIVERY_COUNT_EXCEEDED);
                continue;
            }
            if (range.last - range.first + 1 > budget) {
                split(range.first + budget);
            }
            range.state = StateBatch.ACQUIRED;
            range.deliveryCount++;
            range.member = member;
            range.deadline = deadline;
            budget -= (int) (range.last - range.first + 1);
            AcquiredRange previous = acquired.isEmpty() ? null : acquired.get(acquired.size() - 1);
            if (previous != null && previous.lastOffset() + 1 == range.first
                    && previous.deliveryCount() == range.deliveryCount) {
                acquired.set(acquired.size() - 1, new AcquiredRange(previous.firstOffset(), range.last, range.deliveryCount));
            } else {
                acquired.add(new AcquiredRange(range.first, range.last, range.deliveryCount));
            }
        }
        advanceStart();
        return acquired;
    }

    /**
     * Whether every record of {@code [first, last]} is acquired by {@code member}: an acknowledgement may
     * name only those.
     */
    boolean acquiredBy(long first, long last, String member) {
        if (first < start || last >= end) {
            return false;
        }
        Map.Entry<Long, Range> floor = ranges.floorEntry(first);
        long next = first;
        for (Range range : ranges.tailMap(floor.getKey(), true).values()) {
            if (range.first > last) {
                break;
            }
            if (range.state != StateBatch.ACQUIRED || !member.equals(range.member)) {
                return false;
            }
            next = range.last + 1;
        }
        return next > last;
    }

    /**
     * Applies an acknowledgement of {@code [first, last]}, already checked with {@link #acquiredBy}:
     * accept acknowledges, reject and gap archive, release makes available again (or archives at the
     * delivery limit), renew extends the lock to {@code deadline}. With {@code deadLetters}, rejected records
     * and released ones at the limit are ARCHIVING instead of archived (a gap has no record to send).
     */
    void acknowledge(long first, long last, AcknowledgeType type, long deadline, int deliveryLimit,
                     boolean deadLetters) {
        for (Range range : slice(first, last)) {
            switch (type) {
                case ACCEPT -> settle(range, StateBatch.ACKNOWLEDGED);
                case REJECT -> archive(range, deadLetters, DeadLetterCause.REJECTED);
                case GAP -> settle(range, StateBatch.ARCHIVED);
                case RELEASE -> releaseOne(range, deliveryLimit, deadLetters);
                case RENEW -> range.deadline = deadline;
            }
        }
        advanceStart();
    }

    /**
     * Releases the acquired records whose lock ended by {@code now} (or all of {@code member}'s when
     * {@code member} is given): available again, or archived at the delivery limit. Returns how many.
     */
    long release(String member, long now, int deliveryLimit, boolean deadLetters) {
        long released = 0;
        for (Range range : ranges.values()) {
            if (range.state != StateBatch.ACQUIRED) {
                continue;
            }
            boolean mine = member != null ? member.equals(range.member) : range.deadline <= now;
            if (mine) {
                releaseOne(range, deliveryLimit, deadLetters);
                released += range.last - range.first + 1;
            }
        }
        advanceStart();
        return released;
    }

    /** The earliest lock deadline of an acquired record, or {@link Long#MAX_VALUE}. */
    long nextDeadline() {
        long next = Long.MAX_VALUE;
        for (Range range : ranges.values()) {
            if (range.state == StateBatch.ACQUIRED) {
                next = Math.min(next, range.deadline);
            }
        }
        return next;
    }

    /**
     * The state to persist: every range from the start to the end (neighbours in the same state and count
     * merged), acquired records as available with their count, since a lock does not outlive its leader.
     */
    List<StateBatch> toStateBatches() {
        List<StateBatch> batches = new ArrayList<>();
        long first = -1;
        long last = -1;
        byte state = -1;
        short count = -1;
        for (Range range : ranges.values()) {
            byte persisted = range.state == StateBatch.ACQUIRED ? StateBatch.AVAILABLE : range.state;
            if (first >= 0 && persisted == state && range.deliveryCount == count && range.first == last + 1) {
                last = range.last;
                continue;
            }
            if (first >= 0) {
                batches.add(new StateBatch(first, last, state, count));
            }
            first = range.first;
            last = range.last;
            state = persisted;
            count = range.deliveryCount;
        }
        if (first >= 0) {
            batches.add(new StateBatch(first, last, state, count));
        }
        return batches;
    }

    /**
     * The ARCHIVING ranges not taken yet (each is taken once; neighbours alike are one), to write their dead letters after the state
     * that holds them is durable.
     */
    List<Archiving> takeArchiving() {
        List<Archiving> taken = new ArrayList<>();
        for (Range range : ranges.values()) {
            if (range.state != StateBatch.ARCHIVING || range.taken) {
                continue;
            }
            range.taken = true;
            Archiving previous = taken.isEmpty() ? null : taken.get(taken.size() - 1);
            if (previous != null && previous.last() + 1 == range.first && previous.deliveryCount() == range.deliveryCount
                    && previous.cause() == range.cause) {
                taken.set(taken.size() - 1, new Archiving(previous.first(), range.last, range.deliveryCount, range.cause));
            } else {
                taken.add(new Archiving(range.first, range.last, range.deliveryCount, range.cause));
            }
        }
        return taken;
    }

    /** Whether some ARCHIVING records were not taken yet: a write must carry them before they are sent. */
    boolean hasArchivingToSend() {
        for (Range range : ranges.values()) {
            if (range.state == StateBatch.ARCHIVING && !range.taken) {
                return true;
            }
        }
        return false;
    }

    /** Whether some records are ARCHIVING (taken or not): their dead letters are not all written. */
    boolean hasArchiving() {
        for (Range range : ranges.values()) {
            if (range.state == StateBatch.ARCHIVING) {
                return true;
            }
        }
        return false;
    }

    /** Archives what is still ARCHIVING of {@code [first, last]}: its dead letters were written, or given up. */
    void finishArchiving(long first, long last) {
        for (Range range : slice(first, last)) {
            if (range.state == StateBatch.ARCHIVING) {
                range.state = StateBatch.ARCHIVED;
                range.cause = null;
                range.taken = false;
            }
        }
        advanceStart();
    }

    private void releaseOne(Range range, int deliveryLimit, boolean deadLetters) {
        if (range.deliveryCount >= deliveryLimit) {
            archive(range, deadLetters, DeadLetterCause.DELIVERY_COUNT_EXCEEDED);
        } else {
            settle(range, StateBatch.AVAILABLE);
        }
    }

    private void archive(Range range, boolean deadLetters, DeadLetterCause cause) {
        settle(range, deadLetters ? StateBatch.ARCHIVING : StateBatch.ARCHIVED);
        if (deadLetters) {
            range.cause = cause;
            range.taken = false;
        }
    }

    private void settle(Range range, byte state) {
        range.state = state;
        range.member = null;
        range.deadline = 0;
    }

    private void append(long first, long last, byte state, short count) {
        Map.Entry<Long, Range> tail = ranges.lastEntry();
        Range previous = tail == null ? null : tail.getValue();
        if (previous != null && previous.state == state && previous.deliveryCount == count && previous.member == null
                && previous.last + 1 == first && state != StateBatch.ACQUIRED && state != StateBatch.ARCHIVING) {
            previous.last = last;
        } else {
            ranges.put(first, new Range(first, last, state, count));
        }
        end = last + 1;
    }

    /** The ranges covering {@code [first, last]}, split so that they start and end exactly there. */
    private List<Range> slice(long first, long last) {
        long from = Math.max(first, start);
        long to = Math.min(last, end - 1);
        if (to < from) {
            return List.of();
        }
        split(from);
        split(to + 1);
        return new ArrayList<>(ranges.subMap(from, true, to, true).values());
    }

    /** Makes a range begin at {@code offset} (when inside {@code (start, end)}). */
    private void split(long offset) {
        if (offset <= start || offset >= end) {
            return;
        }
        Map.Entry<Long, Range> floor = ranges.floorEntry(offset);
        Range range = floor.getValue();
        if (range.first == offset) {
            return;
        }
        Range tail = range.copy(offset, range.last);
        range.last = offset - 1;
        ranges.put(offset, tail);
    }

    /** Drops done ranges at the start, so that the start is the first record not done. */
    private void advanceStart() {
        Iterator<Range> it = ranges.values().iterator();
        while (it.hasNext()) {
            Range range = it.next();
            if (!range.done()) {
                break;
            }
            it.remove();
            start = range.last + 1;
        }
        if (ranges.isEmpty()) {
            start = end;
        }
    }
}
