package io.krill.broker.share;

/** The acknowledge types of ShareFetch and ShareAcknowledge (KIP-932; RENEW from v2, KIP-1222). */
enum AcknowledgeType {
    /** An offset with no record (compaction, a control batch): nothing to deliver. */
    GAP,
    ACCEPT,
    RELEASE,
    REJECT,
    RENEW;

    /** The type of wire id {@code id}, or null when there is none. */
    static AcknowledgeType of(byte id) {
        return id >= 0 && id < values().length ? values()[id] : null;
    }
}
