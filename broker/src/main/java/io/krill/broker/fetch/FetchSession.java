package io.krill.broker.fetch;

import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.Records;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * An incremental fetch session (KIP-227): the partitions one client fetches from this broker, so that
 * its requests name only the partitions whose parameters changed and its responses carry only the
 * partitions with something new. The epoch orders the client's requests: each incremental request
 * names the epoch the last one left, and a request that does not is refused
 * (INVALID_FETCH_SESSION_EPOCH), so a session never applies a request twice or out of order.
 *
 * <p>Partitions keep the order they were added in, except that a partition answered with records goes
 * to the back, so that under {@code max.bytes} every partition gets its turn (as Kafka's sessions do).
 *
 * <p>Thread-safety: the partitions and the epoch are guarded by this object's monitor; {@link #size()}
 * and {@link #lastUsedMs()} are read without it by the cache's eviction, as hints.
 */
final class FetchSession {
    /** A partition's key: its topic's id from Fetch v13, its name below. */
    record Key(Object topic, int partition) {
    }

    private final int id;
    private final boolean privileged;
    private final boolean usesTopicIds;
    private final Map<Key, SessionPartition> partitions = new LinkedHashMap<>();
    private int epoch = 1;
    private volatile int size;
    private volatile long lastUsedMs;

    /**
     * @param privileged   a follower's session, which only another follower's may evict
     * @param usesTopicIds created by a request of v13 or later (topics by id); the session's later requests must too
     */
    FetchSession(int id, boolean privileged, boolean usesTopicIds, List<FetchTarget> targets,
                 FetchResponse told, long nowMs) {
        this.id = id;
        this.privileged = privileged;
        this.usesTopicIds = usesTopicIds;
        this.lastUsedMs = nowMs;
        Iterator<FetchTarget> wanted = targets.iterator();
        for (FetchResponse.FetchableTopicResponse topic : told.responses()) {
            for (FetchResponse.PartitionData data : topic.partitions()) {
                FetchTarget target = wanted.next();
                SessionPartition partition = new SessionPartition(target);
                partition.told(data);
                partitions.put(key(target), partition);
            }
        }
        this.size = partitions.size();
    }

    int id() {
        return id;
    }

    boolean privileged() {
        return privileged;
    }

    int size() {
        return size;
    }

    long lastUsedMs() {
        return lastUsedMs;
    }

    Key key(FetchTarget target) {
        return new Key(usesTopicIds ? target.topicId() : target.topic(), target.asked().partition());
    }

    private Key key(String topic, UUID topicId, int partition) {
        return new Key(usesTopicIds ? topicId : topic, partition);
    }

    /**
     * Applies an incremental request of epoch {@code requestEpoch}: its partitions are added or take the
     * new parameters, its forgotten ones leave. Returns the session's partitions to fetch, in order, or
     * null if the epoch is not the one expected (nothing applied).
     */
    synchronized List<SessionPartition> update(FetchRequest body, int requestEpoch, long nowMs) {
        if (requestEpoch != epoch) {
            return null;
        }
        for (FetchRequest.ForgottenTopic forgotten : body.forgottenTopicsData()) {
            for (int partition : forgotten.partitions()) {
                partitions.remove(key(forgotten.topic(), forgotten.topicId(), partition));
            }
        }
        for (FetchRequest.FetchTopic topic : body.topics()) {
            for (FetchRequest.FetchPartition asked : topic.partitions()) {
                FetchTarget target = new FetchTarget(topic.topic(), topic.topicId(), asked);
                SessionPartition known = partitions.get(key(target));
                if (known != null) {
                    known.asked(target);
                } else {
                    partitions.put(key(target), new SessionPartition(target));
                }
            }
        }
        epoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
        size = partitions.size();
        lastUsedMs = nowMs;
        return new ArrayList<>(partitions.values());
    }

    /**
     * The incremental response: of {@code read}, the full response for {@code fetched} in order, the
     * partitions the client must hear about, grouped by topic as read; the others are handed to
     * {@code dropped} with their (empty) records.
     */
    synchronized FetchResponse answer(List<SessionPartition> fetched, FetchResponse read, Consumer<Records> dropped) {
        FetchResponse out = new FetchResponse().setThrottleTimeMs(read.throttleTimeMs()).setErrorCode(read.errorCode())
                .setSessionId(id).setNodeEndpoints(read.nodeEndpoints());
        Iterator<SessionPartition> each = fetched.iterator();
        List<SessionPartition> toBack = null;
        for (FetchResponse.FetchableTopicResponse topic : read.responses()) {
            FetchResponse.FetchableTopicResponse kept = null;
            for (FetchResponse.PartitionData data : topic.partitions()) {
                SessionPartition partition = each.next();
                if (!partition.mustSend(data)) {
                    dropped.accept(data.records());
                    continue;
                }
                if (kept == null) {
                    kept = new FetchResponse.FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId());
                    out.responses().add(kept);
                }
                kept.partitions().add(data);
                if (data.records() != null && data.records().sizeInBytes() > 0) {
                    if (toBack == null) {
                        toBack = new ArrayList<>();
                    }
                    toBack.add(partition);
                }
            }
        }
        if (toBack != null) {
            for (SessionPartition partition : toBack) {
                Key key = key(partition.target());
                if (partitions.get(key) == partition) {
                    partitions.remove(key);
                    partitions.put(key, partition);
                }
            }
        }
        return out;
    }

    /** Whether a request of this version may use the session (topics named the same way). */
    boolean namesTopicsAs(short version) {
        return usesTopicIds == (version >= 13);
    }

    @Override
    public String toString() {
        return "FetchSession[" + id + (privileged ? ", follower" : "") + ", " + size + " partitions]";
    }
}
