package io.krill.broker.fetch;

import io.krill.log.TopicPartition;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import io.krill.wire.protocol.Records;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * An incremental fetch session (KIP-227): the partitions one client fetches from this broker, so that
 * its requests name only the partitions whose parameters changed and its responses carry only the
 * partitions with something new. The epoch orders the client's requests: each incremental request
 * names the epoch the last one left, and a request that does not is refused
 * (INVALID_FETCH_SESSION_EPOCH), so a session never applies a request twice or out of order.
 *
 * <p>A consumer's session reads, on each incremental fetch, only the partitions that changed since a read
 * last found nothing new in them ({@link SessionPartition}); the cache tells it of changes, and wakes the
 * fetch parked in it. A consumer of thousands of partitions of which few are written thus costs this
 * broker per fetch what the written ones cost, where Kafka reads every partition of the session. A
 * follower's session reads every partition each time: the leader records the follower's progress on
 * each (its ISR membership depends on it).
 *
 * <p>Partitions are read in the order they were added, except that a partition answered with records
 * goes to the back, so that under {@code max.bytes} every partition gets its turn (as Kafka's sessions do).
 *
 * <p>Thread-safety: the partition map, the order and the epoch are guarded by this object's monitor;
 * the changed partitions are a concurrent set; {@link #size()}, {@link #lastUsedMs()} and the parked
 * fetch are volatile.
 */
final class FetchSession {
    /** A partition's key: its topic's id from Fetch v13, its name below. */
    record Key(Object topic, int partition) {
    }

    private final int id;
    private final boolean privileged;
    private final boolean usesTopicIds;
    private final FetchSessionCache cache;
    private final Map<Key, SessionPartition> partitions = new LinkedHashMap<>();
    /** A consumer's session: the partitions that may have news. Unused in a follower's. */
    private final Set<SessionPartition> changed = ConcurrentHashMap.newKeySet();
    private int epoch = 1;
    private long nextOrder;
    private volatile int size;
    private volatile long lastUsedMs;
    private volatile FetchWaiter parked;
    private volatile boolean closed;

    /**
     * @param privileged   a follower's session, which only another follower's may evict
     * @param usesTopicIds created by a request of v13 or later (topics by id); the session's later requests must too
     * @param read         the full fetch that opens the session: its targets, in the order of {@code told}'s partitions
     * @param more         which of them had more to read than {@code told} holds
     */
    FetchSession(int id, boolean privileged, boolean usesTopicIds, FetchSessionCache cache, List<FetchTarget> read,
                 FetchResponse told, BitSet more, long nowMs) {
        this.id = id;
        this.privileged = privileged;
        this.usesTopicIds = usesTopicIds;
        this.cache = cache;
        this.lastUsedMs = nowMs;
        synchronized (this) {
            int i = 0;
            for (FetchResponse.FetchableTopicResponse topic : told.responses()) {
                for (FetchResponse.PartitionData data : topic.partitions()) {
                    SessionPartition partition = add(read.get(i));
                    partition.reading();
                    partition.mustSend(data);
                    partition.read(data, more.get(i));
                    i++;
                }
            }
            this.size = partitions.size();
        }
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

    /** Whether only changed partitions are read (a consumer's session). */
    boolean tracksChanges() {
        return !privileged;
    }

    private Key key(FetchTarget target) {
        return key(target.topic(), target.topicId(), target.asked().partition());
    }

    private Key key(String topic, UUID topicId, int partition) {
        return new Key(usesTopicIds ? topicId : topic, partition);
    }

    private SessionPartition add(FetchTarget target) {
        TopicPartition tp = cache.topicPartition(target);
        SessionPartition partition = new SessionPartition(this, tp, target);
        partition.order = nextOrder++;
        partitions.put(key(target), partition);
        if (tracksChanges()) {
            cache.watch(partition);
            changed.add(partition);
        }
        return partition;
    }

    private void remove(Key key) {
        SessionPartition partition = partitions.remove(key);
        if (partition != null) {
            partition.remove();
        }
        if (partition != null && tracksChanges()) {
            cache.unwatch(partition);
            changed.remove(partition);
        }
    }

    /**
     * Applies an incremental request of epoch {@code requestEpoch}: its partitions are added or take the
     * new parameters (and are read), its forgotten ones leave. Returns false if the epoch is not the one
     * expected (nothing applied).
     */
    synchronized boolean update(FetchRequest body, int requestEpoch, long nowMs) {
        if (requestEpoch != epoch || closed) {
            return false;
        }
        for (FetchRequest.ForgottenTopic forgotten : body.forgottenTopicsData()) {
            for (int partition : forgotten.partitions()) {
                remove(key(forgotten.topic(), forgotten.topicId(), partition));
            }
        }
        for (FetchRequest.FetchTopic topic : body.topics()) {
            for (FetchRequest.FetchPartition asked : topic.partitions()) {
                FetchTarget target = new FetchTarget(topic.topic(), topic.topicId(), asked, null);
                SessionPartition known = partitions.get(key(target));
                if (known == null) {
                    add(target);
                } else {
                    known.asked(target);
                    changed(known);
                }
            }
        }
        epoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
        size = partitions.size();
        lastUsedMs = nowMs;
        return true;
    }

    /**
     * What a fetch in this session reads now: in a consumer's session the partitions that may have news,
     * else all; in the session's order.
     */
    List<FetchTarget> targets() {
        List<SessionPartition> list;
        if (tracksChanges()) {
            list = new ArrayList<>(changed);
            list.removeIf(SessionPartition::removed);
            synchronized (this) {
                list.sort(Comparator.comparingLong(p -> p.order));
            }
        } else {
            synchronized (this) {
                list = new ArrayList<>(partitions.values());
            }
        }
        List<FetchTarget> targets = new ArrayList<>(list.size());
        for (SessionPartition partition : list) {
            targets.add(partition.target());
        }
        return targets;
    }

    /** Whether a partition may have news (a consumer's session). */
    boolean hasChanges() {
        return tracksChanges() && !changed.isEmpty();
    }

    void changed(SessionPartition partition) {
        if (tracksChanges()) {
            changed.add(partition);
        }
    }

    void unchanged(SessionPartition partition) {
        if (tracksChanges()) {
            changed.remove(partition);
        }
    }

    /** An event on one of this consumer session's partitions: it may have news, and the parked fetch may answer. */
    void partitionChanged(SessionPartition partition) {
        changed.add(partition);
        FetchWaiter waiter = parked;
        if (waiter != null) {
            waiter.partitionChanged(partition.topicPartition());
        }
    }

    void park(FetchWaiter waiter) {
        parked = waiter;
    }

    void unpark(FetchWaiter waiter) {
        if (parked == waiter) {
            parked = null;
        }
    }

    /**
     * The incremental response: of {@code read}, the answer for {@code targets} in order, the partitions
     * the client must hear about, grouped by topic as read; the others are handed to {@code dropped} with
     * their (empty) records.
     */
    synchronized FetchResponse answer(List<FetchTarget> targets, FetchResponse read, Consumer<Records> dropped) {
        FetchResponse out = new FetchResponse().setThrottleTimeMs(read.throttleTimeMs()).setErrorCode(read.errorCode())
                .setSessionId(id).setNodeEndpoints(read.nodeEndpoints());
        Iterator<FetchTarget> each = targets.iterator();
        List<SessionPartition> toBack = null;
        for (FetchResponse.FetchableTopicResponse topic : read.responses()) {
            FetchResponse.FetchableTopicResponse kept = null;
            for (FetchResponse.PartitionData data : topic.partitions()) {
                SessionPartition partition = each.next().slot();
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
                    partition.order = nextOrder++;
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

    /** The session leaves the cache: its partitions are no longer watched. */
    synchronized void close() {
        closed = true;
        if (tracksChanges()) {
            for (SessionPartition partition : partitions.values()) {
                cache.unwatch(partition);
            }
        }
        changed.clear();
    }

    @Override
    public String toString() {
        return "FetchSession[" + id + (privileged ? ", follower" : "") + ", " + size + " partitions]";
    }
}
