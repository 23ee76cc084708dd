package io.krill.broker.fetch;

import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchResponse;

/**
 * A partition of a {@link FetchSession}: what its client last asked (fetch offset, epochs, byte limit)
 * and what this broker last told it (high watermark, last stable offset, log start). An incremental
 * response carries the partition only when one of those moved, it has records, or an error, as Kafka's
 * CachedPartition decides.
 *
 * <p>In a consumer's session the partition is also on the session's list of partitions with possible
 * news ({@link FetchSession#changed}) from the moment something happens to it (an append, a high
 * watermark, log start or leadership change: {@link FetchSessionCache#partitionChanged}) until a read
 * finds nothing to tell; an incremental fetch reads only those. It is taken off before a read and put
 * back after it if the read found news, so a change during the read is never lost.
 *
 * <p>Thread-safety: the target and the told offsets are written under the session's monitor and read
 * without it (volatile); the list of changed partitions is a concurrent set.
 */
public final class SessionPartition {
    private final FetchSession session;
    /** The partition by topic name, as events name it; null when its topic id names no topic (always read). */
    private final TopicPartition topicPartition;
    private volatile FetchTarget target;
    /** -1 until told, and after an error: the next answer without one is sent whatever it holds. */
    private volatile long highWatermark = -1;
    private volatile long lastStableOffset = -1;
    private volatile long logStartOffset = -1;
    /** Reads go in this order; a partition answered with records goes to the back (guarded by the session). */
    long order;
    private volatile boolean removed;

    SessionPartition(FetchSession session, TopicPartition topicPartition, FetchTarget asked) {
        this.session = session;
        this.topicPartition = topicPartition;
        this.target = new FetchTarget(asked.topic(), asked.topicId(), asked.asked(), this);
    }

    FetchTarget target() {
        return target;
    }

    TopicPartition topicPartition() {
        return topicPartition;
    }

    FetchSession session() {
        return session;
    }

    /** The client sent new parameters for the partition (the fetch offset moved, the epoch, the limit). */
    void asked(FetchTarget newer) {
        this.target = new FetchTarget(newer.topic(), newer.topicId(), newer.asked(), this);
    }

    /** The partition left its session (forgotten): a read still under way no longer counts it. */
    void remove() {
        removed = true;
    }

    boolean removed() {
        return removed;
    }

    void reading() {
        session.unchanged(this);
    }

    void read(FetchResponse.PartitionData data, boolean more) {
        if (more || topicPartition == null || isNews(data)) {
            session.changed(this);
        }
    }

    /** Whether {@code data} tells the client anything it was not told (without noting it). */
    private boolean isNews(FetchResponse.PartitionData data) {
        return (data.records() != null && data.records().sizeInBytes() > 0)
                || data.errorCode() != Errors.NONE.code()
                || highWatermark != data.highWatermark()
                || lastStableOffset != data.lastStableOffset()
                || logStartOffset != data.logStartOffset()
                || data.preferredReadReplica() >= 0
                || data.divergingEpoch().epoch() >= 0;
    }

    /**
     * Whether {@code data}, this partition's answer to the current fetch, must go to the client; notes
     * what it tells the client. Records, an error, a preferred read replica or a diverging epoch are
     * always sent; otherwise only a moved high watermark, last stable offset or log start.
     */
    boolean mustSend(FetchResponse.PartitionData data) {
        boolean send = isNews(data);
        highWatermark = data.errorCode() != Errors.NONE.code() ? -1 : data.highWatermark();
        lastStableOffset = data.lastStableOffset();
        logStartOffset = data.logStartOffset();
        return send;
    }

    @Override
    public String toString() {
        return "SessionPartition[" + target.topic() + "/" + target.topicId() + "-" + target.asked().partition() + "]";
    }
}
