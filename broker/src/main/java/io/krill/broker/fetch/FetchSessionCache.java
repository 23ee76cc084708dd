package io.krill.broker.fetch;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The broker's incremental fetch sessions (KIP-227), at most {@code max.incremental.fetch.session.cache.slots}
 * of them. A client that fetches many partitions (a consumer of thousands, a follower) then sends and
 * receives only what changed instead of every partition on every round trip.
 *
 * <p>When the cache is full a new session takes the slot of one unused for two minutes, else of the
 * least valuable one if the new one is worth more: followers' sessions over consumers', then more
 * partitions over fewer, as Kafka's cache ranks them. A client whose session is gone is told
 * FETCH_SESSION_ID_NOT_FOUND and starts a new one with a full fetch.
 *
 * <p>The partitions of consumers' sessions are watched: {@link #partitionChanged} (every event that may
 * wake a waiting fetch) marks them as having possible news in their sessions, so that an incremental
 * fetch reads only those.
 *
 * <p>Thread-safety: thread-safe; the session map is guarded by this object's monitor, each session
 * by its own; the watched partitions are a concurrent map. Only creation when full scans the sessions.
 */
public final class FetchSessionCache {
    /** Kafka's: a session unused this long may be evicted by any new one. */
    static final long EVICTION_MS = 120_000;
    private static final UUID NO_TOPIC_ID = new UUID(0, 0);

    private final int slots;
    private final Supplier<MetadataImage> images;
    private final Map<Integer, FetchSession> sessions = new HashMap<>();
    /** The consumers' session partitions, by the partition whose events they follow. */
    private final ConcurrentHashMap<TopicPartition, Set<SessionPartition>> watched = new ConcurrentHashMap<>();
    private final AtomicLong evictions = new AtomicLong();

    /**
     * @param slots      the most sessions kept; 0 serves every fetch sessionless
     * @param images     the broker's current metadata, for topic names by id: events name partitions by
     *                   topic name, sessions of v13+ by topic id
     */
    public FetchSessionCache(int slots, Supplier<MetadataImage> images) {
        this.slots = slots;
        this.images = images;
    }

    /**
     * The context of a Fetch request: what it reads and how it is answered, from its session id and
     * epoch. Applies an incremental request's changes to its session, and closes the session a full
     * request names.
     */
    public FetchContext contextFor(FetchRequest body, short version, boolean follower, long nowMs) {
        int id = body.sessionId();
        int epoch = body.sessionEpoch();
        if (version < 7 || epoch == -1) {
            if (version >= 7 && id != 0) {
                remove(id);
            }
            return new FetchContext.Sessionless(targets(body));
        }
        if (epoch == 0) {
            if (id != 0) {
                remove(id);
            }
            return new FetchContext.NewSession(this, targets(body), follower, version >= 13);
        }
        FetchSession session;
        synchronized (this) {
            session = sessions.get(id);
        }
        if (session == null) {
            return new FetchContext.Refused(Errors.FETCH_SESSION_ID_NOT_FOUND);
        }
        if (!session.namesTopicsAs(version)) {
            return new FetchContext.Refused(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
        }
        if (!session.update(body, epoch, nowMs)) {
            return new FetchContext.Refused(Errors.INVALID_FETCH_SESSION_EPOCH);
        }
        return new FetchContext.Incremental(session);
    }

    private static List<FetchTarget> targets(FetchRequest body) {
        List<FetchTarget> targets = new ArrayList<>();
        for (FetchRequest.FetchTopic topic : body.topics()) {
            for (FetchRequest.FetchPartition partition : topic.partitions()) {
                targets.add(new FetchTarget(topic.topic(), topic.topicId(), partition, null));
            }
        }
        return targets;
    }

    /**
     * Opens a session for a full fetch answered with {@code told} (its partitions in {@code targets}'
     * order; {@code more}: which had more to read), if there is room; returns its id, or 0 (no session:
     * the client stays on full fetches).
     */
    int create(boolean follower, boolean usesTopicIds, List<FetchTarget> targets, FetchResponse told, BitSet more) {
        if (slots <= 0 || targets.isEmpty()) {
            return 0;
        }
        long now = System.currentTimeMillis();
        synchronized (this) {
            if (sessions.size() >= slots && !evictFor(follower, targets.size(), now)) {
                return 0;
            }
            int id;
            do {
                id = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
            } while (sessions.containsKey(id));
            sessions.put(id, new FetchSession(id, follower, usesTopicIds, this, targets, told, more, now));
            return id;
        }
    }

    /** Makes room for a new session of {@code size} partitions; false if none may go for it. */
    private boolean evictFor(boolean follower, int size, long now) {
        FetchSession stalest = null;
        FetchSession leastWorth = null;
        for (FetchSession s : sessions.values()) {
            if (stalest == null || s.lastUsedMs() < stalest.lastUsedMs()) {
                stalest = s;
            }
            if ((follower || !s.privileged()) && (leastWorth == null || worth(s) < worth(leastWorth))) {
                leastWorth = s;
            }
        }
        FetchSession victim = stalest != null && now - stalest.lastUsedMs() > EVICTION_MS ? stalest
                : leastWorth != null && worth(follower, size) > worth(leastWorth) ? leastWorth : null;
        if (victim == null) {
            return false;
        }
        sessions.remove(victim.id());
        victim.close();
        evictions.incrementAndGet();
        return true;
    }

    private static long worth(FetchSession s) {
        return worth(s.privileged(), s.size());
    }

    private static long worth(boolean privileged, int size) {
        return (privileged ? 1L << 32 : 0) + size;
    }

    void remove(int id) {
        FetchSession removed;
        synchronized (this) {
            removed = sessions.remove(id);
        }
        if (removed != null) {
            removed.close();
        }
    }

    /**
     * Something happened to {@code tp} (an append, a high watermark, log start or leadership change, its
     * removal): the consumers' sessions that fetch it learn it may have news, and their parked fetches
     * are woken. Called by whoever changed it, for every such event.
     */
    public void partitionChanged(TopicPartition tp) {
        Set<SessionPartition> interested = watched.get(tp);
        if (interested != null) {
            for (SessionPartition partition : interested) {
                partition.session().partitionChanged(partition);
            }
        }
    }

    /** The partition's name as events give it, or null if its topic id names no topic here. */
    TopicPartition topicPartition(FetchTarget target) {
        String topic = target.topic();
        if (target.topicId() != null && !target.topicId().equals(NO_TOPIC_ID)) {
            TopicImage byId = images.get().topic(target.topicId());
            topic = byId == null ? null : byId.name();
        }
        return topic == null || topic.isEmpty() ? null : new TopicPartition(topic, target.asked().partition());
    }

    void watch(SessionPartition partition) {
        TopicPartition tp = partition.topicPartition();
        if (tp != null) {
            watched.compute(tp, (k, set) -> {
                Set<SessionPartition> s = set != null ? set : ConcurrentHashMap.newKeySet();
                s.add(partition);
                return s;
            });
        }
    }

    void unwatch(SessionPartition partition) {
        TopicPartition tp = partition.topicPartition();
        if (tp != null) {
            watched.computeIfPresent(tp, (k, set) -> {
                set.remove(partition);
                return set.isEmpty() ? null : set;
            });
        }
    }

    /** Sessions open now. */
    public synchronized int size() {
        return sessions.size();
    }

    /** Partitions in all sessions now. */
    public synchronized long partitions() {
        long total = 0;
        for (FetchSession s : sessions.values()) {
            total += s.size();
        }
        return total;
    }

    /** Sessions evicted for new ones since start. */
    public long evictions() {
        return evictions.get();
    }
}
