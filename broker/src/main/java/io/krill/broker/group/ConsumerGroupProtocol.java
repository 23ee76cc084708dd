package io.krill.broker.group;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KIP-848 consumer protocol's ConsumerGroupHeartbeat: joining, leaving, static members, the group
 * epoch, the server-side target assignment and each member's incremental reconciliation, session expiry
 * (ConsumerGroupDescribe is {@link ConsumerGroupDescriber}). A consumer group is the {@link ConsumerGroup}
 * attached to the {@link ClassicGroup} that keeps its offsets; after each operation the records of the group
 * that changed ({@link ConsumerGroupRecords}: its epochs, the member's subscription and assignment, every
 * member's target when a new one is computed) are written ({@link ModernGroupRecordWriter}). As in Kafka,
 * where a heartbeat's records are committed before it is answered, a successful heartbeat is answered only
 * once the group's latest write is committed: a member is never told of a group, an epoch or an
 * assignment that a new coordinator would not load. A heartbeat that fails changes nothing, as Kafka's, whose failed heartbeat
 * writes no record.
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups through {@link GroupContext}, the subscribed
 * topics' metadata from the context's volatile image, see {@link SubscribedTopics}). Requests and
 * session-expiry tasks take the group's monitor; {@link #restoreConsumer} expects the caller to hold it.
 */
final class ConsumerGroupProtocol {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupProtocol.class);

    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorTimer timer;
    private final ModernGroupRecordWriter writer;

    ConsumerGroupProtocol(GroupContext shared) {
        this.shared = shared;
        this.config = shared.config();
        this.timer = shared.timer();
        this.writer = new ModernGroupRecordWriter(shared.log());
    }

    private long now() {
        return timer.milliseconds();
    }

    // ------------------------------------------------------------------ ConsumerGroupHeartbeat (KIP-848)

    /**
     * ConsumerGroupHeartbeat: joins, leaves, keeps the session and reconciles the member's assignment.
     * {@code callback} gets the answer, once the group's latest write is committed when it succeeds; if
     * that write failed, the answer is its coordinator error (the client finds the coordinator again and
     * retries) and the group's records are all written again at its next change.
     */
    void consumerGroupHeartbeat(RequestContext context, ConsumerGroupHeartbeatRequest request,
                                Consumer<ConsumerGroupHeartbeatResponse> callback) {
        Answer answer = heartbeat(context, request);
        if (answer.response().errorCode() != Errors.NONE.code()) {
            callback.accept(answer.response());
            return;
        }
        answer.durable().whenComplete((ok, failure) -> callback.accept(failure == null ? answer.response()
                : heartbeatError(GroupContext.groupStoreError(failure), "The group's record was not written")));
    }

    /** A heartbeat's response and the write of the group's record it must wait for. */
    private record Answer(ConsumerGroupHeartbeatResponse response, CompletableFuture<Void> durable) {
        static Answer now(ConsumerGroupHeartbeatResponse response) {
            return new Answer(response, CompletableFuture.completedFuture(null));
        }
    }

    /**
     * Only a join (member epoch 0) creates a consumer group, or turns an empty classic group (offsets
     * only) into one, as Kafka's {@code GroupMetadataManager.getOrMaybeCreateConsumerGroup} does: any
     * other epoch, a leave included, of a group that does not exist or is not a consumer group is
     * GROUP_ID_NOT_FOUND, and leaves the group as it was.
     */
    private Answer heartbeat(RequestContext context, ConsumerGroupHeartbeatRequest request) {
        String groupId = request.groupId();
        GroupContext.validateGroupId(groupId);
        ConsumerHeartbeatCheck.Refusal refusal = ConsumerHeartbeatCheck.check(request, context.apiVersion());
        if (refusal != null) {
            return Answer.now(heartbeatError(refusal.error(), refusal.message()));
        }
        GroupShard shard = shared.shardFor(groupId);
        boolean joining = request.memberEpoch() == 0;
        while (true) {
            ClassicGroup group = GroupContext.group(shard, groupId);
            if (group == null) {
                if (!joining) {
                    return Answer.now(heartbeatError(Errors.GROUP_ID_NOT_FOUND,
                            "Consumer group " + groupId + " not found."));
                }
                group = shard.groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, shard.partition, now()));
            }
            boolean created = false;
            String classicProtocolType = null;
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(groupId, group);
                    continue;
                }
                if (group.share != null) {
                    return Answer.now(heartbeatError(Errors.GROUP_ID_NOT_FOUND,
                            "Group " + groupId + " is not a consumer group."));
                }
                if (group.consumer == null) {
                    if (!joining) {
                        return Answer.now(heartbeatError(Errors.GROUP_ID_NOT_FOUND,
                                "Group " + groupId + " is not a consumer group."));
                    }
                    if (!group.is(GroupState.EMPTY) || group.size() > 0) {
                        return Answer.now(heartbeatError(Errors.GROUP_ID_NOT_FOUND,
                                "Group " + groupId + " is a classic group"));
                    }
                    classicProtocolType = group.protocolType;
                    group.consumer = new ConsumerGroup();
                    group.protocolType = ClassicGroup.CONSUMER_PROTOCOL_TYPE;
                    created = true;
                }
                ConsumerGroupHeartbeatResponse response = consumerHeartbeat(context, group, request);
                if (created && response.errorCode() != Errors.NONE.code()) {
                    forgetFailedFirstJoin(shard, group, classicProtocolType);
                    return Answer.now(response);
                }
                if (response.errorCode() != Errors.NONE.code()) {
                    return Answer.now(response);
                }
                return new Answer(response, persist(group));
            }
        }
    }

    /**
     * Undoes the consumer group a failed first join made (a missing subscription, an invalid regular
     * expression...): as in Kafka, where a failed heartbeat's group is never committed, no group is left,
     * or the empty classic group it was made from stays classic, with its protocol type. Caller holds the
     * group's monitor.
     */
    private void forgetFailedFirstJoin(GroupShard shard, ClassicGroup group, String classicProtocolType) {
        group.consumer = null;
        group.protocolType = classicProtocolType;
        if (group.is(GroupState.EMPTY) && group.generationId == 0 && group.isEmptyOfMembers()
                && group.pendingJoinMembers.isEmpty() && !group.hasOffsets()) {
            group.transitionTo(GroupState.DEAD, now());
            shard.groups.remove(group.groupId(), group);
        }
    }

    private static ConsumerGroup.Member staticMember(ConsumerGroup cg, String instanceId) {
        if (instanceId == null) {
            return null;
        }
        for (ConsumerGroup.Member m : cg.members.values()) {
            if (instanceId.equals(m.instanceId)) {
                return m;
            }
        }
        return null;
    }

    private static ConsumerGroupHeartbeatResponse heartbeatError(Errors error, String message) {
        return new ConsumerGroupHeartbeatResponse().setErrorCode(error.code()).setErrorMessage(message);
    }

    private ConsumerGroupHeartbeatResponse consumerHeartbeat(RequestContext context, ClassicGroup group,
                                                             ConsumerGroupHeartbeatRequest request) {
        ConsumerGroup cg = group.consumer;
        int epoch = request.memberEpoch();
        String memberId = request.memberId() == null ? "" : request.memberId();
        if (epoch == -1 || epoch == -2) {
            return leave(group, request.instanceId(), memberId, epoch);
        }
        // Checked before the member is touched: a request that fails changes nothing, as in Kafka.
        String regex = request.subscribedTopicRegex() == null || request.subscribedTopicRegex().isEmpty() ? null
                : request.subscribedTopicRegex();
        Pattern compiled;
        try {
            compiled = regex == null ? null : Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            return heartbeatError(Errors.INVALID_REGULAR_EXPRESSION, "SubscribedTopicRegex `" + regex
                    + "` is not a valid regular expression: " + e.getMessage() + ".");
        }
        String preferredAssignor = cg.assignorName();
        ConsumerGroup.Member member;
        boolean changed = false;
        if (epoch == 0) {
            if (memberId.isEmpty()) {
                memberId = UUID.randomUUID().toString(); // v0: the coordinator makes it (ConsumerHeartbeatCheck)
            }
            member = cg.members.get(memberId);
            ConsumerGroup.Member previous = member == null ? staticMember(cg, request.instanceId()) : null;
            if (previous != null) {
                if (!previous.departed) {
                    return heartbeatError(Errors.UNRELEASED_INSTANCE_ID, "Static member " + request.instanceId()
                            + " is still in use by member " + previous.memberId);
                }
                // The instance is back under a new member id: it takes over its partitions, no rebalance.
                member = previous.replacedBy(memberId);
                cg.members.remove(previous.memberId);
                cg.members.put(memberId, member);
                Map<UUID, Set<Integer>> target = cg.target.remove(previous.memberId);
                if (target != null) {
                    cg.target.put(memberId, target);
                }
                cg.records.memberChanged(previous.memberId); // its records go, the new member id's come
                LOG.info("Static member {} of consumer group {} rejoined: member id {} replaces {}",
                        request.instanceId(), group.groupId(), memberId, previous.memberId);
            } else if (member == null) {
                if (cg.members.size() >= config.maxSize()) {
                    return heartbeatError(Errors.GROUP_MAX_SIZE_REACHED, "The group is full");
                }
                member = new ConsumerGroup.Member(memberId);
                cg.members.put(memberId, member);
                changed = true;
                LOG.info("Member {} joined consumer group {}", memberId, group.groupId());
            } else {
                // A rejoin: the member lost its partitions.
                member.assigned = new java.util.TreeMap<>();
                member.revoking = new java.util.TreeMap<>();
                member.lastSent = null;
                member.memberEpoch = 0;
            }
        } else {
            member = cg.members.get(memberId);
            if (member == null) {
                return heartbeatError(Errors.UNKNOWN_MEMBER_ID, "Unknown member " + memberId);
            }
            if (epoch != member.memberEpoch && epoch != member.previousMemberEpoch) {
                return heartbeatError(Errors.FENCED_MEMBER_EPOCH, "Member epoch " + epoch + " is not "
                        + member.memberEpoch);
            }
        }
        member.clientId = context.clientId();
        member.clientHost = context.clientHost();
        member.describableTopics = context.describableTopics();
        if (request.instanceId() != null) {
            member.instanceId = request.instanceId();
        }
        if (request.rackId() != null) {
            member.rackId = request.rackId();
        }
        if (request.rebalanceTimeoutMs() > 0) {
            member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        }
        if (request.serverAssignor() != null) {
            member.serverAssignor = request.serverAssignor();
        }
        if (request.subscribedTopicNames() != null
                && !new HashSet<>(request.subscribedTopicNames()).equals(new HashSet<>(member.subscribedTopics))) {
            member.subscribedTopics = List.copyOf(new TreeSet<>(request.subscribedTopicNames()));
            changed = true;
        }
        if (request.subscribedTopicRegex() != null && !Objects.equals(regex, member.subscribedTopicRegex)) {
            member.subscribedTopicRegex = regex;
            member.regex = compiled;
            member.regexTopics = Set.of();
            member.regexImage = null;
            changed = true;
        }
        // Kafka's hasPreferredServerAssignorChanged: the group's assignor changes, so may its assignment.
        changed |= !cg.assignorName().equals(preferredAssignor);
        if (changed || !SubscribedTopics.of(cg, shared.image()).equals(cg.subscriptionMetadata)) {
            cg.groupEpoch++;
            computeConsumerTarget(cg);
        }
        cg.reconcile(member, owned(request.topicPartitions()));
        String id = member.memberId;
        long deadline = now() + config.consumerSessionTimeoutMs();
        member.sessionDeadline = deadline;
        timer.schedule(config.consumerSessionTimeoutMs(), () -> expireConsumerMember(group, id, deadline));
        ConsumerGroupHeartbeatResponse response = new ConsumerGroupHeartbeatResponse()
                .setMemberId(member.memberId).setMemberEpoch(member.memberEpoch)
                .setHeartbeatIntervalMs(config.consumerHeartbeatIntervalMs());
        boolean full = request.subscribedTopicNames() != null || request.subscribedTopicRegex() != null
                || request.topicPartitions() != null;
        if (member.lastSent == null || !member.lastSent.equals(member.assigned) || (full && epoch == 0)) {
            member.lastSent = ConsumerGroup.copy(member.assigned);
            response.setAssignment(assignment(member.assigned));
        }
        return response;
    }

    /**
     * A leave, as Kafka's {@code GroupMetadataManager.consumerGroupLeave}: without an instance id the member
     * id must be the group's (else UNKNOWN_MEMBER_ID); with one, the instance must be known (else
     * UNKNOWN_MEMBER_ID) and held by that member id (else FENCED_INSTANCE_ID). A static member's -2 is a
     * temporary leave: it keeps its partitions until its session expires or its instance comes back, and
     * nothing is reassigned now. Any other leave removes the member and moves the group epoch.
     */
    private ConsumerGroupHeartbeatResponse leave(ClassicGroup group, String instanceId, String memberId, int epoch) {
        ConsumerGroup cg = group.consumer;
        ConsumerGroup.Member member;
        if (instanceId == null) {
            member = cg.members.get(memberId);
            if (member == null) {
                return heartbeatError(Errors.UNKNOWN_MEMBER_ID,
                        "Member " + memberId + " is not a member of group " + group.groupId() + ".");
            }
        } else {
            member = staticMember(cg, instanceId);
            if (member == null) {
                return heartbeatError(Errors.UNKNOWN_MEMBER_ID, "Instance id " + instanceId + " is unknown.");
            }
            if (!member.memberId.equals(memberId)) {
                return heartbeatError(Errors.FENCED_INSTANCE_ID, "Static member " + memberId + " with instance id "
                        + instanceId + " was fenced by member " + member.memberId + ".");
            }
            if (epoch == ConsumerGroupRecords.LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
                member.departed = true;
                cg.records.memberChanged(member.memberId);
                LOG.info("Static member {} ({}) of consumer group {} left temporarily", instanceId, memberId,
                        group.groupId());
                return new ConsumerGroupHeartbeatResponse().setMemberId(memberId).setMemberEpoch(epoch)
                        .setHeartbeatIntervalMs(0);
            }
        }
        cg.members.remove(member.memberId);
        LOG.info("Member {} left consumer group {}", memberId, group.groupId());
        cg.groupEpoch++;
        computeConsumerTarget(cg);
        return new ConsumerGroupHeartbeatResponse().setMemberId(memberId).setMemberEpoch(epoch)
                .setHeartbeatIntervalMs(0);
    }

    private void expireConsumerMember(ClassicGroup group, String memberId, long deadline) {
        synchronized (group) {
            ConsumerGroup cg = group.consumer;
            if (cg == null) {
                return;
            }
            ConsumerGroup.Member member = cg.members.get(memberId);
            if (member == null || member.sessionDeadline != deadline) {
                return;
            }
            LOG.info("Member {} in consumer group {} has failed (session timeout)", memberId, group.groupId());
            cg.members.remove(memberId);
            cg.groupEpoch++;
            computeConsumerTarget(cg);
            persist(group);
        }
    }

    private void computeConsumerTarget(ConsumerGroup cg) {
        cg.computeTarget(SubscribedTopics.of(cg, shared.image()), now());
    }

    /** What the member reports owning, by topic id as it names them. */
    private static Map<UUID, Set<Integer>> owned(List<ConsumerGroupHeartbeatRequest.TopicPartitions> reported) {
        if (reported == null) {
            return null;
        }
        Map<UUID, Set<Integer>> owned = new HashMap<>();
        for (ConsumerGroupHeartbeatRequest.TopicPartitions tp : reported) {
            owned.computeIfAbsent(tp.topicId(), id -> new HashSet<>()).addAll(tp.partitions());
        }
        return owned;
    }

    private static ConsumerGroupHeartbeatResponse.Assignment assignment(Map<UUID, Set<Integer>> assigned) {
        ConsumerGroupHeartbeatResponse.Assignment a = new ConsumerGroupHeartbeatResponse.Assignment();
        for (Map.Entry<UUID, Set<Integer>> e : assigned.entrySet()) {
            if (!e.getValue().isEmpty()) {
                a.topicPartitions().add(new ConsumerGroupHeartbeatResponse.TopicPartitions()
                        .setTopicId(e.getKey()).setPartitions(new ArrayList<>(e.getValue())));
            }
        }
        return a;
    }

    /**
     * A consumer group from its records ({@link ConsumerGroupRecords}): members keep their epochs and
     * assignments, and their sessions start now; if the subscribed topics' metadata is not what the stored
     * hash says, the next heartbeat moves the group epoch. Caller holds the group's monitor.
     */
    void restore(ClassicGroup group, Map<GroupRecordLedger.Slot, byte[]> records, long now) {
        ConsumerGroup cg = attach(group);
        ConsumerGroupRecords.restore(cg, records);
        cg.members.values().forEach(member -> resume(group, member, now));
        cg.subscriptionMetadata = SubscribedTopics.loaded(SubscribedTopics.of(cg, shared.image()), cg.metadataHash);
    }

    /**
     * A consumer group from Krill's former whole-group record ({@link WholeGroupRecords}), which kept no
     * member epochs or assignments: members start at epoch 0 (fenced, they rejoin) and the target is
     * computed again. Caller holds the group's monitor.
     */
    void restoreWhole(ClassicGroup group, WholeGroupRecords.ConsumerGroupValue value, long now) {
        ConsumerGroup cg = attach(group);
        cg.groupEpoch = value.groupEpoch();
        for (WholeGroupRecords.ConsumerMemberValue m : value.members()) {
            ConsumerGroup.Member member = new ConsumerGroup.Member(m.memberId());
            member.instanceId = m.instanceId();
            member.rackId = m.rackId();
            member.clientId = m.clientId();
            member.clientHost = m.clientHost();
            member.rebalanceTimeoutMs = m.rebalanceTimeoutMs();
            member.serverAssignor = m.serverAssignor();
            member.subscribedTopics = m.subscribedTopics();
            member.subscribedTopicRegex = m.subscribedTopicRegex();
            cg.members.put(member.memberId, member);
            resume(group, member, now);
        }
        computeConsumerTarget(cg);
    }

    private static ConsumerGroup attach(ClassicGroup group) {
        group.consumer = new ConsumerGroup();
        group.protocolType = ClassicGroup.CONSUMER_PROTOCOL_TYPE;
        return group.consumer;
    }

    /** A loaded member: its regex compiled, its session started. */
    private void resume(ClassicGroup group, ConsumerGroup.Member member, long now) {
        if (member.subscribedTopicRegex != null) {
            try {
                member.regex = Pattern.compile(member.subscribedTopicRegex);
            } catch (PatternSyntaxException e) {
                LOG.warn("Member {} of consumer group {}: stored regex {} no longer compiles; ignored",
                        member.memberId, group.groupId(), member.subscribedTopicRegex);
                member.subscribedTopicRegex = null;
            }
        }
        long deadline = now + config.consumerSessionTimeoutMs();
        member.sessionDeadline = deadline;
        String id = member.memberId;
        timer.schedule(config.consumerSessionTimeoutMs(), () -> expireConsumerMember(group, id, deadline));
    }

    /** Writes what changed in the group's records; returns its latest write, which heartbeats wait for. */
    private CompletableFuture<Void> persist(ClassicGroup group) {
        return writer.writeConsumerGroup(group);
    }
}
