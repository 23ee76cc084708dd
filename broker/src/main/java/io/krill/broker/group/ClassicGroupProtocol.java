package io.krill.broker.group;

import static io.krill.broker.group.ClassicRebalancer.NEW_MEMBER_JOIN_TIMEOUT_MS;
import static io.krill.broker.group.ClassicRebalancer.answerSync;
import static io.krill.broker.group.ClassicRebalancer.deliver;
import static io.krill.broker.group.ClassicRebalancer.joinError;
import static io.krill.broker.group.ClassicRebalancer.syncError;

import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.wire.error.Errors;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.LeaveGroupResponse;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of the classic consumer-group protocol, as Kafka's coordinator serves them: JoinGroup
 * (KIP-394 member ids, static membership (KIP-345), protocol selection by vote, group.max.size),
 * SyncGroup, Heartbeat and LeaveGroup. What happens to the group next (rebalance phases, deadlines,
 * session expiry, the metadata record) is {@link ClassicRebalancer}'s.
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups are reached through {@link GroupContext}).
 * Each request takes the group's monitor for all it does to the group; no code holds two group locks.
 * Log writes complete inline (one node) or later on the coordinator thread, whose callbacks retake the
 * group's lock and re-check the generation.
 */
final class ClassicGroupProtocol {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicGroupProtocol.class);

    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorTimer timer;
    private final ClassicRebalancer rebalancer;

    ClassicGroupProtocol(GroupContext shared, ClassicRebalancer rebalancer) {
        this.shared = shared;
        this.config = shared.config();
        this.timer = shared.timer();
        this.rebalancer = rebalancer;
    }

    private long now() {
        return timer.milliseconds();
    }

    // ------------------------------------------------------------------ JoinGroup

    /**
     * JoinGroup: answers through {@code callback}, at once (errors, MEMBER_ID_REQUIRED, a rejoin that
     * changes nothing) or when the rebalance completes.
     *
     * @throws ApiException for errors of the whole request (not the coordinator, loading, invalid id)
     */
    void joinGroup(RequestContext context, JoinGroupRequest request, Consumer<JoinGroupResponse> callback) {
        String groupId = request.groupId();
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        int session = request.sessionTimeoutMs();
        String memberId = request.memberId() == null ? "" : request.memberId();
        if (session < config.minSessionTimeoutMs() || session > config.maxSessionTimeoutMs()) {
            callback.accept(joinError(memberId, Errors.INVALID_SESSION_TIMEOUT));
            return;
        }
        List<ClassicMember.Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequest.JoinGroupRequestProtocol p : request.protocols()) {
            protocols.add(new ClassicMember.Protocol(p.name(), p.metadata() == null ? ClassicMember.EMPTY : p.metadata()));
        }
        boolean unknownMember = memberId.isEmpty();
        while (true) {
            ClassicGroup group;
            if (unknownMember) {
                group = shard.groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, shard.partition, now()));
            } else {
                group = GroupContext.group(shard, groupId);
                if (group == null) {
                    callback.accept(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
                    return;
                }
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(groupId, group);
                    if (!unknownMember) {
                        callback.accept(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
                        return;
                    }
                    continue;
                }
                if (group.share != null) {
                    // Kafka: a share group's id is not a classic group's, empty or not.
                    callback.accept(joinError(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
                    return;
                }
                if (group.consumer != null) {
                    if (!group.consumer.isEmpty()) {
                        callback.accept(joinError(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
                        return;
                    }
                    group.consumer = null; // an empty consumer group becomes a classic one
                    group.protocolType = null;
                }
                join(context, group, request, memberId, protocols, callback);
                if (group.is(GroupState.EMPTY) && group.generationId == 0 && group.isEmptyOfMembers()
                        && group.pendingJoinMembers.isEmpty() && !group.hasOffsets()) {
                    // A failed first join leaves nothing behind.
                    group.transitionTo(GroupState.DEAD, now());
                    shard.groups.remove(groupId, group);
                }
                return;
            }
        }
    }

    private void join(RequestContext context, ClassicGroup group, JoinGroupRequest request, String memberId,
                      List<ClassicMember.Protocol> protocols, Consumer<JoinGroupResponse> callback) {
        if (!acceptJoiningMember(group, memberId)) {
            callback.accept(joinError(memberId, Errors.GROUP_MAX_SIZE_REACHED));
            return;
        }
        if (!group.supportsProtocols(request.protocolType(), protocols)) {
            callback.accept(joinError(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
            return;
        }
        String instanceId = request.groupInstanceId();
        if (memberId.isEmpty()) {
            String newMemberId = context.clientId() + "-" + UUID.randomUUID();
            if (instanceId != null) {
                String existing = group.staticMemberId(instanceId);
                if (existing != null) {
                    replaceStaticMember(context, group, request, existing, newMemberId, protocols, callback);
                } else {
                    addMemberAndRebalance(context, group, request, newMemberId, protocols, callback);
                }
            } else if (context.apiVersion() >= 4) {
                // KIP-394: hand out the id; the member joins again with it.
                group.pendingJoinMembers.add(newMemberId);
                int session = request.sessionTimeoutMs();
                timer.schedule(session, () -> expirePendingMember(group, newMemberId));
                callback.accept(joinError(newMemberId, Errors.MEMBER_ID_REQUIRED));
            } else {
                addMemberAndRebalance(context, group, request, newMemberId, protocols, callback);
            }
            return;
        }
        if (group.isPendingJoin(memberId)) {
            addMemberAndRebalance(context, group, request, memberId, protocols, callback);
            return;
        }
        Errors invalid = group.validateMember(memberId, instanceId);
        if (invalid != null) {
            callback.accept(joinError(memberId, invalid));
            return;
        }
        ClassicMember member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(context, group, member, request, protocols, callback);
            case COMPLETING_REBALANCE -> {
                if (member.matches(protocols)) {
                    // The member did not get the join response: send it again.
                    rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
                    callback.accept(rebalancer.currentGenerationResponse(group, member, group.isLeader(memberId), false));
                } else {
                    updateMemberAndRebalance(context, group, member, request, protocols, callback);
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(protocols)) {
                    // The leader rejoins to trigger a rebalance (a metadata change it saw), a follower when
                    // its subscription changed.
                    updateMemberAndRebalance(context, group, member, request, protocols, callback);
                } else {
                    rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
                    callback.accept(rebalancer.currentGenerationResponse(group, member, false, false));
                }
            }
            default -> callback.accept(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
        }
    }

    private boolean acceptJoiningMember(ClassicGroup group, String memberId) {
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE -> (group.hasMember(memberId) && group.member(memberId).isAwaitingJoin())
                    || group.numMembersAwaitingJoin() < config.maxSize();
            default -> group.hasMember(memberId) || group.size() < config.maxSize();
        };
    }

    private void addMemberAndRebalance(RequestContext context, ClassicGroup group, JoinGroupRequest request,
                                       String memberId, List<ClassicMember.Protocol> protocols,
                                       Consumer<JoinGroupResponse> callback) {
        ClassicMember member = new ClassicMember(memberId, request.groupInstanceId(), context.clientId(),
                context.clientHost(), rebalanceTimeout(request), request.sessionTimeoutMs(), request.protocolType(),
                protocols);
        long now = now();
        member.isNew = true;
        member.joinedAtMs = now;
        member.awaitingJoin = callback;
        if (group.is(GroupState.PREPARING_REBALANCE) && group.generationId == 0) {
            group.newMemberAdded = true;
        }
        group.add(member);
        // A new member cannot heartbeat before it has joined; a join that never completes is dropped
        // after the new-member timeout.
        rebalancer.scheduleExpiry(group, member, now + NEW_MEMBER_JOIN_TIMEOUT_MS);
        rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "new member " + memberId + " joined");
    }

    private void updateMemberAndRebalance(RequestContext context, ClassicGroup group, ClassicMember member,
                                          JoinGroupRequest request, List<ClassicMember.Protocol> protocols,
                                          Consumer<JoinGroupResponse> callback) {
        if (member.awaitingJoin != null) {
            // A retried join replaces the one waiting; that one is answered so its connection moves on.
            Consumer<JoinGroupResponse> old = member.awaitingJoin;
            group.setAwaitingJoin(member, null);
            deliver(old, joinError(member.memberId(), Errors.REBALANCE_IN_PROGRESS));
        }
        member.protocols = List.copyOf(protocols);
        member.rebalanceTimeoutMs = rebalanceTimeout(request);
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        member.clientId = context.clientId();
        member.clientHost = context.clientHost();
        group.setAwaitingJoin(member, callback);
        rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "member " + member.memberId() + " rejoined");
    }

    private static int rebalanceTimeout(JoinGroupRequest request) {
        return request.rebalanceTimeoutMs() < 0 ? request.sessionTimeoutMs() : request.rebalanceTimeoutMs();
    }

    /**
     * KIP-345: a static member rejoins with a new member id (a restarted instance). The old id is fenced.
     * A stable group whose protocol selection does not change keeps its generation and assignment: the
     * new id is persisted and the member answered at once; otherwise the group rebalances.
     */
    private void replaceStaticMember(RequestContext context, ClassicGroup group, JoinGroupRequest request,
                                     String oldMemberId, String newMemberId, List<ClassicMember.Protocol> protocols,
                                     Consumer<JoinGroupResponse> callback) {
        ClassicMember member = group.member(oldMemberId);
        if (member.awaitingJoin != null) {
            Consumer<JoinGroupResponse> old = member.awaitingJoin;
            group.setAwaitingJoin(member, null);
            deliver(old, joinError(oldMemberId, Errors.FENCED_INSTANCE_ID));
        }
        answerSync(group, member, syncError(Errors.FENCED_INSTANCE_ID));
        List<ClassicMember.Protocol> oldProtocols = member.protocols;
        int oldRebalanceTimeout = member.rebalanceTimeoutMs;
        int oldSessionTimeout = member.sessionTimeoutMs;
        String instanceId = request.groupInstanceId();
        LOG.info("Static member {} of group {} rejoined: member id {} replaces {}", instanceId, group.groupId(),
                newMemberId, oldMemberId);
        group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
        member.protocols = List.copyOf(protocols);
        member.rebalanceTimeoutMs = rebalanceTimeout(request);
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        member.clientId = context.clientId();
        member.clientHost = context.clientHost();
        rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
        switch (group.state()) {
            case STABLE -> {
                String next = group.selectProtocol();
                if (next.equals(group.protocolName)) {
                    int generation = group.generationId;
                    rebalancer.storeGroup(group, rebalancer.currentAssignments(group)).whenComplete((ok, failure) -> {
                        synchronized (group) {
                            if (failure != null) {
                                Errors error = GroupContext.groupStoreError(failure);
                                if (group.hasMember(newMemberId) && group.generationId == generation) {
                                    group.replaceStaticMember(instanceId, newMemberId, oldMemberId);
                                    member.protocols = oldProtocols;
                                    member.rebalanceTimeoutMs = oldRebalanceTimeout;
                                    member.sessionTimeoutMs = oldSessionTimeout;
                                }
                                deliver(callback, joinError(newMemberId, error));
                                return;
                            }
                            boolean leader = group.isLeader(newMemberId);
                            deliver(callback, rebalancer.currentGenerationResponse(group, member, leader, leader));
                        }
                    });
                } else {
                    group.setAwaitingJoin(member, callback);
                    rebalancer.prepareRebalance(group, "static member " + instanceId + " rejoined with another protocol");
                }
            }
            case COMPLETING_REBALANCE -> {
                // The leader may be assigning to the old id: rebalance so the new id gets an assignment.
                group.setAwaitingJoin(member, callback);
                rebalancer.prepareRebalance(group, "static member " + instanceId + " replaced during the sync phase");
            }
            case PREPARING_REBALANCE -> {
                group.setAwaitingJoin(member, callback);
                rebalancer.maybeCompleteJoin(group);
            }
            default -> throw new IllegalStateException("static member " + instanceId + " in a " + group.state() + " group");
        }
    }

    private void expirePendingMember(ClassicGroup group, String memberId) {
        synchronized (group) {
            if (group.pendingJoinMembers.remove(memberId)) {
                LOG.debug("Pending member {} of group {} did not join in time", memberId, group.groupId());
                if (group.is(GroupState.PREPARING_REBALANCE)) {
                    rebalancer.maybeCompleteJoin(group);
                }
            }
        }
    }

    // ------------------------------------------------------------------ SyncGroup

    /** SyncGroup: answered at once, or when the leader's assignment has been written. */
    void syncGroup(RequestContext context, SyncGroupRequest request, Consumer<SyncGroupResponse> callback) {
        String groupId = request.groupId();
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            callback.accept(syncError(Errors.UNKNOWN_MEMBER_ID));
            return;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                callback.accept(syncError(Errors.COORDINATOR_NOT_AVAILABLE));
                return;
            }
            Errors invalid = group.validateMember(request.memberId(), request.groupInstanceId());
            if (invalid != null) {
                callback.accept(syncError(invalid));
                return;
            }
            if (request.generationId() != group.generationId) {
                callback.accept(syncError(Errors.ILLEGAL_GENERATION));
                return;
            }
            if ((request.protocolType() != null && !request.protocolType().equals(group.protocolType))
                    || (request.protocolName() != null && !request.protocolName().equals(group.protocolName))) {
                callback.accept(syncError(Errors.INCONSISTENT_GROUP_PROTOCOL));
                return;
            }
            ClassicMember member = group.member(request.memberId());
            switch (group.state()) {
                case EMPTY -> callback.accept(syncError(Errors.UNKNOWN_MEMBER_ID));
                case PREPARING_REBALANCE -> callback.accept(syncError(Errors.REBALANCE_IN_PROGRESS));
                case COMPLETING_REBALANCE -> {
                    answerSync(group, member, syncError(Errors.REBALANCE_IN_PROGRESS));
                    member.awaitingSync = callback;
                    group.pendingSyncMembers.remove(member.memberId());
                    if (group.isLeader(member.memberId())) {
                        Map<String, byte[]> assignments = new HashMap<>();
                        for (SyncGroupRequest.SyncGroupRequestAssignment a : request.assignments()) {
                            if (group.hasMember(a.memberId())) {
                                assignments.put(a.memberId(), a.assignment() == null ? ClassicMember.EMPTY : a.assignment());
                            }
                        }
                        for (ClassicMember m : group.members()) {
                            assignments.putIfAbsent(m.memberId(), ClassicMember.EMPTY);
                        }
                        int generation = group.generationId;
                        rebalancer.storeGroup(group, assignments).whenComplete((ok, failure) -> {
                            synchronized (group) {
                                if (!group.is(GroupState.COMPLETING_REBALANCE) || group.generationId != generation) {
                                    return;
                                }
                                if (failure != null) {
                                    rebalancer.resetAndPropagateAssignmentError(group, GroupContext.groupStoreError(failure));
                                    rebalancer.prepareRebalance(group, "failed to write the assignment of generation " + generation);
                                } else {
                                    rebalancer.setAndPropagateAssignment(group, assignments);
                                    group.transitionTo(GroupState.STABLE, now());
                                }
                            }
                        });
                    }
                }
                case STABLE -> {
                    group.pendingSyncMembers.remove(member.memberId());
                    rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
                    callback.accept(new SyncGroupResponse()
                            .setProtocolType(group.protocolType)
                            .setProtocolName(group.protocolName)
                            .setAssignment(member.assignment));
                }
                default -> callback.accept(syncError(Errors.COORDINATOR_NOT_AVAILABLE));
            }
        }
    }

    // ------------------------------------------------------------------ Heartbeat

    /** Heartbeat: the member's session goes on; REBALANCE_IN_PROGRESS tells it to rejoin. */
    Errors heartbeat(HeartbeatRequest request) {
        String groupId = request.groupId();
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return Errors.COORDINATOR_NOT_AVAILABLE;
            }
            Errors invalid = group.validateMember(request.memberId(), request.groupInstanceId());
            if (invalid != null) {
                return invalid;
            }
            if (request.generationId() != group.generationId) {
                return Errors.ILLEGAL_GENERATION;
            }
            ClassicMember member = group.member(request.memberId());
            switch (group.state()) {
                case EMPTY:
                    return Errors.UNKNOWN_MEMBER_ID;
                case PREPARING_REBALANCE:
                    rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
                    return Errors.REBALANCE_IN_PROGRESS;
                default:
                    rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
                    return Errors.NONE;
            }
        }
    }

    // ------------------------------------------------------------------ LeaveGroup

    /**
     * LeaveGroup for a batch of members (v3+; older versions are one member): each is removed, static
     * ones by instance id, and the group rebalances once they are gone.
     */
    LeaveGroupResponse leaveGroup(String groupId, List<LeaveGroupRequest.MemberIdentity> leaving) {
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        LeaveGroupResponse response = new LeaveGroupResponse();
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            for (LeaveGroupRequest.MemberIdentity identity : leaving) {
                response.members().add(leaveResult(identity, Errors.UNKNOWN_MEMBER_ID));
            }
            return response;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return response.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
            }
            for (LeaveGroupRequest.MemberIdentity identity : leaving) {
                response.members().add(leaveResult(identity, leave(group, identity)));
            }
        }
        return response;
    }

    private Errors leave(ClassicGroup group, LeaveGroupRequest.MemberIdentity identity) {
        String memberId = identity.memberId() == null ? "" : identity.memberId();
        String instanceId = identity.groupInstanceId();
        if (instanceId != null) {
            String existing = group.staticMemberId(instanceId);
            if (existing == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!memberId.isEmpty() && !memberId.equals(existing)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            LOG.info("Static member {} ({}) left group {}", instanceId, existing, group.groupId());
            rebalancer.removeMemberAndUpdateGroup(group, group.member(existing), "static member " + instanceId + " left");
            return Errors.NONE;
        }
        if (group.pendingJoinMembers.remove(memberId)) {
            if (group.is(GroupState.PREPARING_REBALANCE)) {
                rebalancer.maybeCompleteJoin(group);
            }
            return Errors.NONE;
        }
        ClassicMember member = group.member(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        LOG.info("Member {} left group {}", memberId, group.groupId());
        rebalancer.removeMemberAndUpdateGroup(group, member, "member " + memberId + " left");
        return Errors.NONE;
    }

    private static LeaveGroupResponse.MemberResponse leaveResult(LeaveGroupRequest.MemberIdentity identity, Errors error) {
        return new LeaveGroupResponse.MemberResponse()
                .setMemberId(identity.memberId())
                .setGroupInstanceId(identity.groupInstanceId())
                .setErrorCode(error.code());
    }
}
