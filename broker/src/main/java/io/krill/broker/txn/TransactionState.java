package io.krill.broker.txn;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Where a transactional id is in its life, with Kafka's names (ListTransactions filters and
 * DescribeTransactions answers use them) and ids (stored in {@link TransactionRecords}).
 *
 * <pre>
 *   Empty / CompleteCommit / CompleteAbort --AddPartitions/AddOffsets--> Ongoing
 *   Ongoing --EndTxn(commit)--> PrepareCommit --markers written--> CompleteCommit
 *   Ongoing --EndTxn(abort), timeout, fencing--> PrepareAbort --markers written--> CompleteAbort
 *   Empty / Complete* --EndTxn v5 (abort)--> PrepareAbort (epoch bumped, no partitions) --> CompleteAbort
 *   Empty / Complete* --InitProducerId--> Empty (epoch bumped)
 *   Empty / Complete* --transactional.id.expiration.ms--> Dead (tombstoned, forgotten)
 * </pre>
 * PrepareEpochFence is Kafka's transient state between fencing an Ongoing transaction and writing its
 * PrepareAbort; Krill goes from Ongoing to PrepareAbort with the bumped epoch in one write, so it never
 * holds or stores it, but accepts it as a ListTransactions filter.
 *
 * <p>Immutable; thread-safe.
 */
public enum TransactionState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort"),
    DEAD(6, "Dead"),
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final byte id;
    private final String displayName;

    TransactionState(int id, String displayName) {
        this.id = (byte) id;
        this.displayName = displayName;
    }

    public byte id() {
        return id;
    }

    /** Kafka's name of the state, as the admin APIs show it. */
    public String displayName() {
        return displayName;
    }

    /** The state stored with {@code id}. */
    public static TransactionState forId(byte id) {
        for (TransactionState state : values()) {
            if (state.id == id) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown transaction state id " + id);
    }

    /** The state of Kafka's name {@code name} (case-insensitive), or null. */
    public static TransactionState forName(String name) {
        for (TransactionState state : values()) {
            if (state.displayName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return state;
            }
        }
        return null;
    }

    /** Markers are being written: PrepareCommit or PrepareAbort. */
    public boolean isPreparing() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** No transaction is open: a new one may begin, the producer may re-initialize, the id may expire. */
    public boolean isIdle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }

    /** The states a transaction may move to this one from. */
    Set<TransactionState> validPrevious() {
        return switch (this) {
            case EMPTY -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case ONGOING -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(ONGOING);
            // Transaction version 2 aborts an idle producer too: the epoch bump fences its writes in flight.
            case PREPARE_ABORT -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
            case DEAD -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_EPOCH_FENCE -> EnumSet.noneOf(TransactionState.class);
        };
    }
}
