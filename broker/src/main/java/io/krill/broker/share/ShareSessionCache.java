package io.krill.broker.share;

import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Share sessions (KIP-932): per share group member, the partitions it fetches from this broker and the epoch
 * its next ShareFetch or ShareAcknowledge must carry. Epoch 0 opens a session (replacing the member's old
 * one), each request after it carries the next epoch, and -1 closes it; a ShareFetch reads the session's
 * partitions, so a consumer sends its partitions once and then only changes (new ones in {@code Topics},
 * dropped ones in {@code ForgottenTopicsData}).
 *
 * <p>Thread-safety: thread-safe; the map is concurrent and each session is used under its own monitor.
 */
public final class ShareSessionCache {
    /** A partition of a session, as requests name it. */
    public record SessionPartition(UUID topicId, int partition) {
    }

    private record Key(String groupId, String memberId) {
    }

    /** One member's session. Guarded by its monitor. */
    static final class ShareSession {
        final String groupId;
        final String memberId;
        final Set<SessionPartition> partitions = new LinkedHashSet<>();
        int nextEpoch = 1;

        ShareSession(String groupId, String memberId) {
            this.groupId = groupId;
            this.memberId = memberId;
        }
    }

    /**
     * What a request may do in its session: the partitions to read now; for a request opening a session,
     * the session (to close with its connection) and the replaced one's partitions.
     */
    public record Step(List<SessionPartition> partitions, boolean closing, List<SessionPartition> previous,
                       Object opened) {
    }

    private final int maxSessions;
    private final Map<Key, ShareSession> sessions = new ConcurrentHashMap<>();

    public ShareSessionCache(int maxSessions) {
        this.maxSessions = maxSessions;
    }

    /**
     * Moves the member's session on by one request of {@code epoch}, adding {@code added} and removing
     * {@code forgotten}. Epoch 0 opens a session ({@link Step#previous} lists the replaced session's
     * partitions, whose records the member held are to be released); -1 closes it. Throws SHARE_SESSION_NOT_FOUND,
     * INVALID_SHARE_SESSION_EPOCH or SHARE_SESSION_LIMIT_REACHED.
     */
    public Step step(String groupId, String memberId, int epoch, List<SessionPartition> added,
                     List<SessionPartition> forgotten) {
        Key key = new Key(groupId, memberId);
        if (epoch == 0) {
            ShareSession session = new ShareSession(groupId, memberId);
            session.partitions.addAll(added);
            ShareSession old = sessions.get(key);
            if (old == null && sessions.size() >= maxSessions) {
                throw new ApiException(Errors.SHARE_SESSION_LIMIT_REACHED, "The limit of " + maxSessions
                        + " share sessions has been reached");
            }
            old = sessions.put(key, session);
            List<SessionPartition> previous = old == null ? List.of() : snapshot(old);
            return new Step(List.copyOf(session.partitions), false, previous, session);
        }
        ShareSession session = sessions.get(key);
        if (session == null) {
            throw new ApiException(Errors.SHARE_SESSION_NOT_FOUND, "No share session for member " + memberId
                    + " of group " + groupId);
        }
        synchronized (session) {
            if (epoch == -1) {
                sessions.remove(key, session);
                session.partitions.addAll(added);
                return new Step(List.copyOf(session.partitions), true, List.of(), null);
            }
            if (epoch != session.nextEpoch) {
                throw new ApiException(Errors.INVALID_SHARE_SESSION_EPOCH, "Expected share session epoch "
                        + session.nextEpoch + ", got " + epoch);
            }
            session.nextEpoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
            session.partitions.addAll(added);
            forgotten.forEach(session.partitions::remove);
            return new Step(List.copyOf(session.partitions), false, List.of(), null);
        }
    }

    /**
     * Closes {@code opened} (a {@link Step#opened}) if it is still its member's session: its connection
     * closed. Returns its partitions, whose records the member held are to be released; empty otherwise.
     */
    public List<SessionPartition> closeIfCurrent(Object opened) {
        ShareSession session = (ShareSession) opened;
        if (sessions.remove(new Key(session.groupId, session.memberId), session)) {
            return snapshot(session);
        }
        return List.of();
    }

    /** Sessions open now. */
    public int size() {
        return sessions.size();
    }

    private static List<SessionPartition> snapshot(ShareSession session) {
        synchronized (session) {
            return new ArrayList<>(session.partitions);
        }
    }
}
