package io.krill.broker.group;

import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.SyncGroupResponse;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * One member of a classic group: identity, timeouts, the protocols it supports (name and metadata, in
 * its order of preference), its current assignment, and the JoinGroup or SyncGroup it waits on.
 *
 * <p>Not thread-safe: guarded by its group's lock.
 */
final class ClassicMember {
    static final byte[] EMPTY = new byte[0];

    /** A protocol a member supports, with its metadata (for consumers: a ConsumerProtocolSubscription). */
    record Protocol(String name, byte[] metadata) {
        boolean sameAs(Protocol other) {
            return name.equals(other.name) && Arrays.equals(metadata, other.metadata);
        }
    }

    private String memberId;
    private final String groupInstanceId;
    String clientId;
    String clientHost;
    int rebalanceTimeoutMs;
    int sessionTimeoutMs;
    String protocolType;
    List<Protocol> protocols;
    byte[] assignment = EMPTY;

    /** The JoinGroup waiting for the rebalance to complete, or null. */
    Consumer<JoinGroupResponse> awaitingJoin;
    /** The SyncGroup waiting for the leader's assignment, or null. */
    Consumer<SyncGroupResponse> awaitingSync;
    /** Joined in the current rebalance for the first time (KIP-394: bounded by the new-member timeout). */
    boolean isNew;
    long joinedAtMs;
    /** The session expires unless a heartbeat (or join, sync, commit) comes before this. */
    long heartbeatDeadlineMs;
    /** When the pending expiry check runs (Long.MAX_VALUE: none); an earlier deadline schedules another. */
    long expiryCheckAtMs = Long.MAX_VALUE;

    ClassicMember(String memberId, String groupInstanceId, String clientId, String clientHost, int rebalanceTimeoutMs,
                  int sessionTimeoutMs, String protocolType, List<Protocol> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = List.copyOf(protocols);
    }

    String memberId() {
        return memberId;
    }

    /** A static member's id changes when a new instance replaces it (KIP-345). */
    void setMemberId(String memberId) {
        this.memberId = memberId;
    }

    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    boolean isAwaitingJoin() {
        return awaitingJoin != null;
    }

    boolean isAwaitingSync() {
        return awaitingSync != null;
    }

    /** The metadata for {@code protocol}, or null when the member does not support it. */
    byte[] metadata(String protocol) {
        for (Protocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return null;
    }

    boolean supports(String protocol) {
        return metadata(protocol) != null;
    }

    /** Same protocols, same order, same metadata. */
    boolean matches(List<Protocol> other) {
        if (other.size() != protocols.size()) {
            return false;
        }
        for (int i = 0; i < other.size(); i++) {
            if (!protocols.get(i).sameAs(other.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** The first protocol of this member's preference among {@code candidates}. */
    String vote(java.util.Set<String> candidates) {
        for (Protocol p : protocols) {
            if (candidates.contains(p.name())) {
                return p.name();
            }
        }
        throw new IllegalStateException("member " + memberId + " supports none of " + candidates);
    }

    /**
     * Whether the member counts as alive at its deadline although no heartbeat came: a member waiting
     * in JoinGroup cannot heartbeat (a new one only up to the new-member timeout), nor one waiting in
     * SyncGroup (the pending-sync deadline bounds that wait).
     */
    boolean shouldKeepAlive(long now, long newMemberJoinTimeoutMs) {
        if (awaitingJoin != null) {
            return !isNew || joinedAtMs + newMemberJoinTimeoutMs > now;
        }
        return awaitingSync != null;
    }

    @Override
    public String toString() {
        return "ClassicMember(" + memberId + (groupInstanceId == null ? "" : ", instance " + groupInstanceId) + ")";
    }
}
