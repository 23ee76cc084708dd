package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * What a KIP-848 consumer group's or KIP-932 share group's records in {@code __consumer_offsets} hold, record
 * by record (the values last written or loaded), and which of its members changed since: so that an
 * operation writes only the records whose content changed, as Kafka's coordinator does, rather than the
 * whole group. {@link #delta} compares the records of the changed scope with what was written and gives
 * the new values and the tombstones, in Kafka's order ({@link Layout}).
 *
 * <p>If a write fails what the log holds is no longer known: the next delta covers the whole group and
 * writes every record again, and tombstones again what the failed write tombstoned: each write is
 * {@link #appended} with the tombstones it carries, which are remembered until it is committed, since the
 * member or expression they are about may be gone from memory (a member who left would otherwise be back
 * at the next load).
 *
 * <p>Not thread-safe: every access holds the group's monitor (the writes' futures are only read).
 */
final class GroupRecordLedger {
    /** One record of a group: its type and the member id or regular expression it is about ("" for the group). */
    record Slot(short type, String id) {
    }

    /** How one kind of group maps to Kafka's records: its record types' order and keys. */
    interface Layout {
        /** The record types in the order Kafka writes their values within one operation. */
        List<Short> valueOrder();

        /** The record types in the order Kafka writes their tombstones. */
        List<Short> tombstoneOrder();

        /** Whether records of {@code type} are a member's (keyed by member id). */
        boolean perMember(short type);
    }

    private final Layout layout;
    /** The group's own records (not a member's) as written, and the members' records as written. */
    private final Map<Slot, byte[]> groupWritten = new LinkedHashMap<>();
    private final Map<Slot, byte[]> memberWritten = new LinkedHashMap<>();
    private final Set<String> changedMembers = new HashSet<>();
    private boolean allChanged;
    /** Whether what the log holds is unknown since a failed write: the next delta rewrites the whole group. */
    private boolean rewrite;
    /** The tombstones of the latest delta, until the write that carries them is {@link #appended}. */
    private List<Slot> tombstoned = new ArrayList<>();
    /** The writes not known to be committed, with the tombstones each carries. */
    private final List<Write> writes = new ArrayList<>();
    /**
     * The latest write of the group's records (complete when there was none): a heartbeat is answered once
     * it is committed.
     */
    CompletableFuture<Void> lastWrite = CompletableFuture.completedFuture(null);

    private record Write(List<Slot> tombstones, CompletableFuture<Void> committed) {
    }

    GroupRecordLedger(Layout layout) {
        this.layout = layout;
    }

    /** Records that {@code memberId}'s records may have changed. */
    void memberChanged(String memberId) {
        changedMembers.add(memberId);
    }

    /** Records that any member's records may have changed (a new target assignment, a member gone). */
    void allChanged() {
        allChanged = true;
    }

    /**
     * The members whose records the next {@link #delta} covers, or null when it covers the whole group (all
     * changed, or a write failed). Takes in the writes that completed since the last call: a failed one
     * makes the group's records unknown and its tombstones due again. The next delta's scope is this
     * answer's, however the writes in flight complete meanwhile.
     */
    Set<String> scope() {
        for (Iterator<Write> it = writes.iterator(); it.hasNext(); ) {
            Write write = it.next();
            if (write.committed().isCompletedExceptionally()) {
                rewrite = true;
                write.tombstones().forEach(slot -> written(slot).putIfAbsent(slot, null)); // tombstoned again
            } else if (!write.committed().isDone()) {
                continue;
            }
            it.remove();
        }
        return allChanged || rewrite ? null : changedMembers;
    }

    /** Takes a record as loaded from the log. */
    void loaded(Slot slot, byte[] value) {
        written(slot).put(slot, value);
    }

    /** Marks that a write of these records failed: the next delta rewrites the whole group. */
    void failed() {
        rewrite = true;
    }

    /**
     * Takes the append of the latest {@link #delta}: its tombstones are due again if it fails
     * ({@link #scope}).
     */
    void appended(CompletableFuture<Void> committed) {
        writes.add(new Write(tombstoned, committed));
        tombstoned = new ArrayList<>();
    }

    private Map<Slot, byte[]> written(Slot slot) {
        return layout.perMember(slot.type()) ? memberWritten : groupWritten;
    }

    /**
     * The records to append: tombstones of written records missing from {@code current} (every such record
     * when the {@link #scope} is the whole group, else the changed members' and the group's own), then the
     * values of {@code current} that differ from what was written; afterwards they count as written and
     * nothing as changed, until the append fails ({@link #appended}). {@code current} holds the group's
     * records in the {@link #scope} (with the group's own); {@code key} makes a slot's key.
     */
    List<CoordinatorLog.Entry> delta(Map<Slot, byte[]> current, Function<Slot, byte[]> key) {
        boolean wholeGroup = allChanged || rewrite;
        tombstoned = new ArrayList<>();
        if (rewrite) {
            rewrite = false;
            groupWritten.replaceAll((slot, value) -> null); // unknown: every current record is written again
            memberWritten.replaceAll((slot, value) -> null);
        }
        // Only the records in scope are looked at: an operation on one member costs that member's records.
        List<Slot> candidates = new ArrayList<>(groupWritten.keySet());
        if (wholeGroup) {
            candidates.addAll(memberWritten.keySet());
        } else {
            for (short type : layout.tombstoneOrder()) {
                if (layout.perMember(type)) {
                    changedMembers.forEach(id -> candidates.add(new Slot(type, id)));
                }
            }
        }
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        for (short type : layout.tombstoneOrder()) {
            for (Slot slot : candidates) {
                if (slot.type() == type && !current.containsKey(slot) && written(slot).containsKey(slot)) {
                    entries.add(new CoordinatorLog.Entry(key.apply(slot), null));
                    written(slot).remove(slot);
                    tombstoned.add(slot);
                }
            }
        }
        for (short type : layout.valueOrder()) {
            current.forEach((slot, value) -> {
                if (slot.type() == type && !Arrays.equals(value, written(slot).get(slot))) {
                    entries.add(new CoordinatorLog.Entry(key.apply(slot), value));
                    written(slot).put(slot, value);
                }
            });
        }
        allChanged = false;
        changedMembers.clear();
        return entries;
    }

    /**
     * Tombstones of every record written or tombstoned by a write that failed (the group's deletion), in
     * Kafka's order; nothing counts as written then, until the append fails ({@link #appended}).
     */
    List<CoordinatorLog.Entry> tombstones(Function<Slot, byte[]> key) {
        allChanged = true;
        scope();
        return delta(Map.of(), key);
    }
}
