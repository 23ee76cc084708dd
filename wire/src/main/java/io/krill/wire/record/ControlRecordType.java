package io.krill.wire.record;

/**
 * The type carried in a control record's key ({@link ControlRecords}). Ids are the protocol's; ids this
 * version does not know read as {@link #UNKNOWN}, which readers skip as Kafka's do.
 */
public enum ControlRecordType {
    /** Transaction marker: the producer's records since its last marker are aborted. */
    ABORT(0),
    /** Transaction marker: the producer's records since its last marker are committed. */
    COMMIT(1),
    LEADER_CHANGE(2),
    SNAPSHOT_HEADER(3),
    SNAPSHOT_FOOTER(4),
    KRAFT_VERSION(5),
    KRAFT_VOTERS(6),
    UNKNOWN(-1);

    private static final ControlRecordType[] BY_ID = {ABORT, COMMIT, LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER,
        KRAFT_VERSION, KRAFT_VOTERS};

    public final short id;

    ControlRecordType(int id) {
        this.id = (short) id;
    }

    /** The type with this id, {@link #UNKNOWN} for ids not defined here. */
    public static ControlRecordType forId(short id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : UNKNOWN;
    }

    public boolean isTransactionMarker() {
        return this == ABORT || this == COMMIT;
    }
}
