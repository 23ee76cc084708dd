package io.krill.broker.replication;

import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.FetchRequest;
import io.krill.wire.message.FetchResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A follower's side of its incremental fetch session (KIP-227) with one leader: a request names only
 * the partitions whose fetch offset, log start or leader epoch moved since the last one sent, and those
 * it stopped fetching as forgotten; the leader answers only partitions with something new. The first
 * request, and the one after any failure, is full and opens a new session (epoch 0; it names the old
 * session, which the leader then closes).
 *
 * <p>Use: {@link #begin}, {@link #add} each partition to fetch, {@link #request}, send it, then
 * {@link #answered} or {@link #failed}. A partition answered is checked against {@link #sent}, the
 * parameters the leader read it with.
 *
 * <p>Not thread-safe: owned by one fetcher thread.
 */
final class ReplicaFetchSession {
    /** What the leader's session holds for a partition: the parameters last sent. */
    static final class Sent {
        final UUID topicId;
        long fetchOffset;
        long logStartOffset;
        int leaderEpoch;
        /** The round that last named or kept the partition; an older one means it is to be forgotten. */
        long round;

        Sent(UUID topicId) {
            this.topicId = topicId;
        }
    }

    private final Map<TopicPartition, Sent> session = new HashMap<>();
    private int sessionId;
    /** 0: the next request is full and opens a session. */
    private int nextEpoch;
    private long round;
    private boolean full;
    private final Map<String, FetchRequest.FetchTopic> changed = new LinkedHashMap<>();

    /** Starts a request. */
    void begin() {
        round++;
        full = nextEpoch == 0;
        if (full) {
            session.clear();
        }
        changed.clear();
    }

    /** A partition to fetch in this request, from {@code fetchOffset}. */
    void add(TopicPartition tp, UUID topicId, int leaderEpoch, long fetchOffset, long logStartOffset, int maxBytes) {
        Sent sent = session.get(tp);
        if (sent == null || !sent.topicId.equals(topicId)) {
            sent = new Sent(topicId);
            session.put(tp, sent);
        } else if (sent.fetchOffset == fetchOffset && sent.logStartOffset == logStartOffset
                && sent.leaderEpoch == leaderEpoch) {
            sent.round = round;
            return;
        }
        sent.fetchOffset = fetchOffset;
        sent.logStartOffset = logStartOffset;
        sent.leaderEpoch = leaderEpoch;
        sent.round = round;
        changed.computeIfAbsent(tp.topic(), t -> new FetchRequest.FetchTopic().setTopic(t).setTopicId(topicId))
                .partitions().add(new FetchRequest.FetchPartition()
                        .setPartition(tp.partition())
                        .setCurrentLeaderEpoch(leaderEpoch)
                        .setFetchOffset(fetchOffset)
                        .setLogStartOffset(logStartOffset)
                        .setPartitionMaxBytes(maxBytes));
    }

    /** Fills in the request's session fields, its partitions and the forgotten ones. */
    FetchRequest request(FetchRequest base) {
        Map<String, FetchRequest.ForgottenTopic> forgotten = new LinkedHashMap<>();
        for (Iterator<Map.Entry<TopicPartition, Sent>> it = session.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Sent> e = it.next();
            if (e.getValue().round != round) {
                TopicPartition tp = e.getKey();
                forgotten.computeIfAbsent(tp.topic(), t -> new FetchRequest.ForgottenTopic().setTopic(t)
                        .setTopicId(e.getValue().topicId)).partitions().add(tp.partition());
                it.remove();
            }
        }
        return base.setSessionId(sessionId).setSessionEpoch(nextEpoch)
                .setTopics(new ArrayList<>(changed.values()))
                .setForgottenTopicsData(full ? new ArrayList<>() : new ArrayList<>(forgotten.values()));
    }

    /** What the leader read {@code tp} with in the request just answered, or null if not in the session. */
    Sent sent(TopicPartition tp) {
        return session.get(tp);
    }

    /**
     * Takes the leader's answer: a full request's opens the session it names (or none: the next is full
     * again); an error of the session itself means starting over with a full request, and is returned
     * for the caller to log; else the next epoch.
     */
    Errors answered(FetchResponse response) {
        Errors error = Errors.forCode(response.errorCode());
        if (endsSession(error)) {
            sessionId = 0;
            nextEpoch = 0;
            return error;
        }
        if (error != Errors.NONE) {
            failed();
            return error;
        }
        if (full) {
            sessionId = response.sessionId();
            nextEpoch = sessionId == 0 ? 0 : 1;
        } else {
            nextEpoch = nextEpoch == Integer.MAX_VALUE ? 1 : nextEpoch + 1;
        }
        return Errors.NONE;
    }

    /** Whether the leader answered that the session is gone or out of step (a new one is to start). */
    static boolean endsSession(Errors error) {
        return error == Errors.FETCH_SESSION_ID_NOT_FOUND || error == Errors.INVALID_FETCH_SESSION_EPOCH
                || error == Errors.FETCH_SESSION_TOPIC_ID_ERROR;
    }

    /** The request got no answer: the next one is full (and closes this session on the leader). */
    void failed() {
        nextEpoch = 0;
    }

    /** The session's id, 0 if none. */
    int id() {
        return sessionId;
    }

    /** Partitions in the session, as this side knows it. */
    int size() {
        return session.size();
    }

}
