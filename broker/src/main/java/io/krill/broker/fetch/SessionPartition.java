package io.krill.broker.fetch;

import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchResponse;

/**
 * A partition of a {@link FetchSession}: what its client last asked (fetch offset, epochs, byte limit)
 * and what this broker last told it (high watermark, last stable offset, log start). An incremental
 * response carries the partition only when one of those moved, it has records, or an error, as Kafka's
 * CachedPartition decides.
 *
 * <p>Not thread-safe: guarded by its session's monitor.
 */
final class SessionPartition {
    private FetchTarget target;
    /** -1 until told, and after an error: the next answer without one is sent whatever it holds. */
    private long highWatermark = -1;
    private long lastStableOffset = -1;
    private long logStartOffset = -1;

    SessionPartition(FetchTarget target) {
        this.target = target;
    }

    FetchTarget target() {
        return target;
    }

    /** The client sent new parameters for the partition (the fetch offset moved, the epoch, the limit). */
    void asked(FetchTarget newer) {
        this.target = newer;
    }

    /**
     * Whether {@code data}, this partition's answer to the current fetch, must go to the client; notes
     * what it tells the client. Records, an error, a preferred read replica or a diverging epoch are
     * always sent; otherwise only a moved high watermark, last stable offset or log start.
     */
    boolean mustSend(FetchResponse.PartitionData data) {
        boolean send = data.records() != null && data.records().sizeInBytes() > 0;
        if (highWatermark != data.highWatermark()) {
            send = true;
            highWatermark = data.highWatermark();
        }
        if (lastStableOffset != data.lastStableOffset()) {
            send = true;
            lastStableOffset = data.lastStableOffset();
        }
        if (logStartOffset != data.logStartOffset()) {
            send = true;
            logStartOffset = data.logStartOffset();
        }
        if (data.errorCode() != Errors.NONE.code()) {
            // told again however the error ends, even if the offsets come back where they were
            highWatermark = -1;
            send = true;
        }
        return send || data.preferredReadReplica() >= 0 || data.divergingEpoch().epoch() >= 0;
    }

    /** Notes what a full response told the client, for the incremental fetches that follow. */
    void told(FetchResponse.PartitionData data) {
        mustSend(data);
    }
}
