package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.wire.error.Errors;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.SyncGroupResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a classic group through its generations: the rebalance phases (the initial delay for new
 * groups, the join deadline, completing the join, the sync deadline), member session expiry, answering
 * the joins and syncs members wait in, and the group's metadata record (written when the leader's
 * assignment arrives, when the group becomes empty, when a static member is replaced; restored on load).
 * Deadlines are tasks on the {@link CoordinatorTimer}.
 *
 * <p>Thread-safety: thread-safe; no state of its own. Package-private methods expect the caller to hold
 * the group's monitor; the timer tasks scheduled here take it themselves and re-check (rebalance
 * token, generation, expiry check time) that they are still current.
 */
final class ClassicRebalancer {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicRebalancer.class);

    /** How long a new member may wait in JoinGroup before it is dropped (Kafka's fixed 5 minutes). */
    static final long NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000L;

    private final GroupConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;

    ClassicRebalancer(GroupContext shared) {
        this.config = shared.config();
        this.log = shared.log();
        this.timer = shared.timer();
    }

    private long now() {
        return timer.milliseconds();
    }

    Map<String, byte[]> currentAssignments(ClassicGroup group) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (ClassicMember member : group.members()) {
            assignments.put(member.memberId(), member.assignment);
        }
        return assignments;
    }

    JoinGroupResponse currentGenerationResponse(ClassicGroup group, ClassicMember member, boolean withMembers,
                                                        boolean skipAssignment) {
        return new JoinGroupResponse()
                .setGenerationId(group.generationId)
                .setProtocolType(group.protocolType)
                .setProtocolName(group.protocolName)
                .setLeader(group.leaderId == null ? "" : group.leaderId)
                .setMemberId(member.memberId())
                .setSkipAssignment(skipAssignment)
                .setMembers(withMembers ? group.membersForLeader() : new ArrayList<>());
    }

    static JoinGroupResponse joinError(String memberId, Errors error) {
        return new JoinGroupResponse()
                .setErrorCode(error.code())
                .setGenerationId(-1)
                .setProtocolName(null)
                .setLeader("")
                .setMemberId(memberId == null ? "" : memberId);
    }

    // ------------------------------------------------------------------ rebalance

    void maybePrepareRebalanceOrCompleteJoin(ClassicGroup group, String reason) {
        if (group.is(GroupState.STABLE) || group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.EMPTY)) {
            prepareRebalance(group, reason);
        } else {
            maybeCompleteJoin(group);
        }
    }

    void prepareRebalance(ClassicGroup group, String reason) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            resetAndPropagateAssignmentError(group, Errors.REBALANCE_IN_PROGRESS);
        }
        group.pendingSyncMembers.clear();
        boolean initial = group.is(GroupState.EMPTY);
        LOG.info("Preparing to rebalance group {} in state {} with old generation {} ({})", group.groupId(),
                group.state().displayName(), group.generationId, reason);
        group.transitionTo(GroupState.PREPARING_REBALANCE, now());
        long token = ++group.rebalanceToken;
        if (initial) {
            group.initialJoinPhase = true;
            group.newMemberAdded = false;
            int delay = config.initialRebalanceDelayMs();
            long remaining = Math.max(group.maxRebalanceTimeoutMs() - delay, 0);
            timer.schedule(delay, () -> initialDelayExpired(group, token, remaining));
        } else {
            group.initialJoinPhase = false;
            timer.schedule(group.maxRebalanceTimeoutMs(), () -> joinDeadline(group, token));
            maybeCompleteJoin(group);
        }
    }

    private void initialDelayExpired(ClassicGroup group, long token, long remaining) {
        synchronized (group) {
            if (group.rebalanceToken != token || !group.is(GroupState.PREPARING_REBALANCE)) {
                return;
            }
            if (group.newMemberAdded && remaining > 0) {
                group.newMemberAdded = false;
                long delay = Math.min(config.initialRebalanceDelayMs(), remaining);
                long left = Math.max(remaining - delay, 0);
                timer.schedule(delay, () -> initialDelayExpired(group, token, left));
                return;
            }
            group.initialJoinPhase = false;
            completeJoin(group);
        }
    }

    private void joinDeadline(ClassicGroup group, long token) {
        synchronized (group) {
            if (group.rebalanceToken == token && group.is(GroupState.PREPARING_REBALANCE)) {
                completeJoin(group);
            }
        }
    }

    void maybeCompleteJoin(ClassicGroup group) {
        if (group.is(GroupState.PREPARING_REBALANCE) && !group.initialJoinPhase && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    /**
     * Ends the join phase: drops dynamic members that did not rejoin, starts the next generation and
     * answers every waiting join (the leader with the members' metadata).
     */
    private void completeJoin(ClassicGroup group) {
        group.rebalanceToken++;
        group.initialJoinPhase = false;
        for (ClassicMember member : group.notYetRejoinedMembers()) {
            if (!member.isStatic()) {
                LOG.info("Member {} of group {} did not rejoin in time; removing it", member.memberId(), group.groupId());
                answerSync(group, member, syncError(Errors.UNKNOWN_MEMBER_ID));
                group.remove(member.memberId());
            }
        }
        if (group.is(GroupState.DEAD)) {
            return;
        }
        if (!group.maybeElectNewJoinedLeader() && !group.isEmptyOfMembers()) {
            // Only static members that have not rejoined remain: wait for them or their session expiry.
            long token = ++group.rebalanceToken;
            timer.schedule(Math.max(group.maxRebalanceTimeoutMs(), 1), () -> joinDeadline(group, token));
            return;
        }
        long now = now();
        group.initNextGeneration(now);
        if (group.is(GroupState.EMPTY)) {
            LOG.info("Group {} with generation {} is now empty", group.groupId(), group.generationId);
            storeGroup(group, Map.of()).whenComplete((ok, failure) -> {
                if (failure != null) {
                    LOG.warn("Failed to write the empty group {}: {}", group.groupId(), failure.getMessage());
                }
            });
            return;
        }
        LOG.info("Stabilized group {} generation {} with {} members (protocol {})", group.groupId(),
                group.generationId, group.size(), group.protocolName);
        for (ClassicMember member : new ArrayList<>(group.members())) {
            if (member.awaitingJoin != null) {
                boolean leader = group.isLeader(member.memberId());
                JoinGroupResponse response = currentGenerationResponse(group, member, leader, false);
                member.isNew = false;
                answerJoin(group, member, response);
                scheduleExpiry(group, member, now + member.sessionTimeoutMs);
            }
        }
        int generation = group.generationId;
        timer.schedule(Math.max(group.maxRebalanceTimeoutMs(), 1), () -> syncDeadline(group, generation));
    }

    /** Members of the new generation that sent no SyncGroup within the rebalance timeout are removed. */
    private void syncDeadline(ClassicGroup group, int generation) {
        synchronized (group) {
            if (group.generationId != generation || group.pendingSyncMembers.isEmpty()
                    || !(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))) {
                return;
            }
            Set<String> pending = new HashSet<>(group.pendingSyncMembers);
            for (String memberId : pending) {
                ClassicMember member = group.member(memberId);
                if (member != null) {
                    answerJoin(group, member, joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
                    group.remove(memberId);
                }
            }
            prepareRebalance(group, "members " + pending + " sent no SyncGroup in time");
        }
    }

    void answerJoin(ClassicGroup group, ClassicMember member, JoinGroupResponse response) {
        Consumer<JoinGroupResponse> callback = member.awaitingJoin;
        if (callback != null) {
            group.setAwaitingJoin(member, null);
            deliver(callback, response);
        }
    }

    static void answerSync(ClassicGroup group, ClassicMember member, SyncGroupResponse response) {
        Consumer<SyncGroupResponse> callback = member.awaitingSync;
        if (callback != null) {
            member.awaitingSync = null;
            deliver(callback, response);
        }
    }

    /**
     * Hands a waiting request its answer. A failure to send (its connection is gone) is the
     * connection's problem, not the group's: logged, so that a loop over members goes on.
     */
    static <T> void deliver(Consumer<T> callback, T response) {
        try {
            callback.accept(response);
        } catch (RuntimeException e) {
            LOG.warn("Could not answer a waiting group request: {}", e.toString());
        }
    }

    static SyncGroupResponse syncError(Errors error) {
        return new SyncGroupResponse().setErrorCode(error.code()).setAssignment(ClassicMember.EMPTY);
    }

    void resetAndPropagateAssignmentError(ClassicGroup group, Errors error) {
        for (ClassicMember member : group.members()) {
            member.assignment = ClassicMember.EMPTY;
            if (member.awaitingSync != null) {
                answerSync(group, member, syncError(error));
                scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
            }
        }
    }

    void setAndPropagateAssignment(ClassicGroup group, Map<String, byte[]> assignments) {
        long now = now();
        for (ClassicMember member : group.members()) {
            member.assignment = assignments.getOrDefault(member.memberId(), ClassicMember.EMPTY);
            if (member.awaitingSync != null) {
                answerSync(group, member, new SyncGroupResponse()
                        .setProtocolType(group.protocolType)
                        .setProtocolName(group.protocolName)
                        .setAssignment(member.assignment));
                scheduleExpiry(group, member, now + member.sessionTimeoutMs);
            }
        }
    }

    /**
     * Removes a member (left, expired, fenced) and moves the group on: a stable or completing group
     * rebalances, a preparing one may now complete its join phase.
     */
    void removeMemberAndUpdateGroup(ClassicGroup group, ClassicMember member, String reason) {
        answerJoin(group, member, joinError(member.memberId(), Errors.UNKNOWN_MEMBER_ID));
        answerSync(group, member, syncError(Errors.UNKNOWN_MEMBER_ID));
        group.remove(member.memberId());
        switch (group.state()) {
            case STABLE, COMPLETING_REBALANCE -> prepareRebalance(group, reason);
            case PREPARING_REBALANCE -> maybeCompleteJoin(group);
            default -> {
            }
        }
    }

    // ------------------------------------------------------------------ session expiry

    /**
     * Moves the member's session deadline. A check is scheduled for the earliest deadline set since the
     * last check ran; a later deadline is picked up when that check finds it has not passed yet.
     */
    void scheduleExpiry(ClassicGroup group, ClassicMember member, long deadline) {
        member.heartbeatDeadlineMs = deadline;
        if (deadline < member.expiryCheckAtMs) {
            member.expiryCheckAtMs = deadline;
            timer.schedule(Math.max(deadline - now(), 0), () -> checkExpiry(group, member, deadline));
        }
    }

    private void checkExpiry(ClassicGroup group, ClassicMember member, long checkAt) {
        synchronized (group) {
            if (member.expiryCheckAtMs != checkAt) {
                return; // superseded by an earlier check
            }
            member.expiryCheckAtMs = Long.MAX_VALUE;
            if (group.member(member.memberId()) != member || group.is(GroupState.DEAD)) {
                return; // removed meanwhile
            }
            long now = now();
            if (now < member.heartbeatDeadlineMs) {
                scheduleExpiry(group, member, member.heartbeatDeadlineMs);
                return;
            }
            if (member.shouldKeepAlive(now, NEW_MEMBER_JOIN_TIMEOUT_MS)) {
                return; // rescheduled when its join or sync is answered
            }
            LOG.info("Member {} of group {} has failed (session timeout {} ms); removing it", member.memberId(),
                    group.groupId(), member.sessionTimeoutMs);
            removeMemberAndUpdateGroup(group, member, "member " + member.memberId() + " session expired");
        }
    }

    // ------------------------------------------------------------------ group records

    /** Writes the group's metadata with {@code assignments} (member id -> assignment). */
    CompletableFuture<Void> storeGroup(ClassicGroup group, Map<String, byte[]> assignments) {
        List<GroupRecords.MemberValue> members = new ArrayList<>();
        for (ClassicMember member : group.members()) {
            byte[] subscription = member.metadata(group.protocolName);
            members.add(new GroupRecords.MemberValue(member.memberId(), member.groupInstanceId(), member.clientId,
                    member.clientHost, member.rebalanceTimeoutMs, member.sessionTimeoutMs,
                    subscription == null ? ClassicMember.EMPTY : subscription,
                    assignments.getOrDefault(member.memberId(), ClassicMember.EMPTY)));
        }
        GroupRecords.GroupValue value = new GroupRecords.GroupValue(group.protocolType, group.generationId,
                group.protocolName, group.leaderId, group.stateTimestampMs(), members);
        return log.append(group.partition(), List.of(new CoordinatorLog.Entry(GroupRecords.groupKey(group.groupId()),
                GroupRecords.groupValue(value))));
    }

    /** A classic group from its record: members get a fresh session. Caller holds the group's lock. */
    void restore(ClassicGroup group, GroupRecords.GroupValue value, long now) {
        group.generationId = value.generationId();
        group.protocolType = value.protocolType();
        group.protocolName = value.protocolName();
        for (GroupRecords.MemberValue m : value.members()) {
            String protocol = value.protocolName() == null ? "" : value.protocolName();
            ClassicMember member = new ClassicMember(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                    m.rebalanceTimeoutMs(), m.sessionTimeoutMs(), value.protocolType(),
                    List.of(new ClassicMember.Protocol(protocol, m.subscription())));
            member.assignment = m.assignment();
            group.add(member);
        }
        group.protocolType = value.protocolType();
        group.leaderId = value.leaderId();
        group.restore(group.isEmptyOfMembers() ? GroupState.EMPTY : GroupState.STABLE, value.stateTimestamp());
        group.refreshSubscribedTopics();
        for (ClassicMember member : group.members()) {
            scheduleExpiry(group, member, now + member.sessionTimeoutMs);
        }
    }
}
