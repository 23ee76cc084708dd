package io.krill.broker.group;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
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
 * The KIP-848 consumer protocol: ConsumerGroupHeartbeat (joining, leaving, static members, the group
 * epoch, the server-side target assignment and each member's incremental reconciliation, session
 * expiry) and ConsumerGroupDescribe. A consumer group is the {@link ConsumerGroup} attached to the
 * {@link ClassicGroup} that keeps its offsets; its group epoch and members' subscriptions are written as
 * a consumer-group record whenever the epoch moves (member epochs and assignments are not: after a reload
 * members are fenced and rejoin). As in Kafka, where a heartbeat's records are committed before it is
 * answered, a successful heartbeat is answered only once the group's latest record is committed: a member
 * is never told of a group (or an epoch) that a new coordinator would not load.
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups through {@link GroupContext}, topic ids and
 * partition counts from the context's volatile image). Requests and session-expiry tasks take the group's monitor;
 * {@link #restoreConsumer} expects the caller to hold it.
 */
final class ConsumerGroupProtocol {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupProtocol.class);

    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;

    ConsumerGroupProtocol(GroupContext shared) {
        this.shared = shared;
        this.config = shared.config();
        this.log = shared.log();
        this.timer = shared.timer();
    }

    private long now() {
        return timer.milliseconds();
    }

    // ------------------------------------------------------------------ ConsumerGroupHeartbeat (KIP-848)

    /**
     * ConsumerGroupHeartbeat: joins, leaves, keeps the session and reconciles the member's assignment.
     * {@code callback} gets the answer, once the group's latest record is committed when it succeeds; if
     * that write failed, the answer is its coordinator error (the client finds the coordinator again and
     * retries) and the group's record is written again at its next heartbeat.
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
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(groupId, group);
                    continue;
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
                    group.consumer = new ConsumerGroup();
                    group.protocolType = ClassicGroup.CONSUMER_PROTOCOL_TYPE;
                }
                CompletableFuture<Void> previous = group.consumer.lastWrite;
                ConsumerGroupHeartbeatResponse response = consumerHeartbeat(context, group, request);
                if (response.errorCode() == Errors.NONE.code() && group.consumer.lastWrite == previous
                        && previous.isCompletedExceptionally()) {
                    persistConsumerGroup(group); // the previous write failed: the group's record is written again
                }
                return new Answer(response, group.consumer.lastWrite);
            }
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
        ConsumerGroup.Member member;
        boolean changed = false;
        if (epoch == -2) {
            ConsumerGroup.Member leaving = cg.members.get(memberId);
            if (leaving != null && leaving.instanceId != null) {
                // KIP-848: a static member leaving temporarily keeps its partitions until its session
                // expires or its instance comes back; nothing is reassigned now.
                leaving.departed = true;
                LOG.info("Static member {} ({}) of consumer group {} left temporarily", leaving.instanceId, memberId,
                        group.groupId());
                return new ConsumerGroupHeartbeatResponse().setMemberId(memberId).setMemberEpoch(epoch)
                        .setHeartbeatIntervalMs(0);
            }
        }
        if (epoch == -1 || epoch == -2) {
            if (cg.members.remove(memberId) != null) {
                LOG.info("Member {} left consumer group {}", memberId, group.groupId());
                cg.groupEpoch++;
                computeConsumerTarget(cg);
                persistConsumerGroup(group);
            }
            return new ConsumerGroupHeartbeatResponse().setMemberId(memberId).setMemberEpoch(epoch)
                    .setHeartbeatIntervalMs(0);
        }
        if (epoch == 0) {
            if (request.subscribedTopicNames() == null && request.subscribedTopicRegex() == null) {
                return heartbeatError(Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request");
            }
            if (memberId.isEmpty()) {
                if (context.apiVersion() >= 1) {
                    return heartbeatError(Errors.INVALID_REQUEST, "MemberId can't be empty");
                }
                memberId = UUID.randomUUID().toString();
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
                Map<String, Set<Integer>> target = cg.target.remove(previous.memberId);
                if (target != null) {
                    cg.target.put(memberId, target);
                }
                persistConsumerGroup(group);
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
            String assignor = request.serverAssignor();
            if (!assignor.equals(ConsumerGroup.UNIFORM) && !assignor.equals(ConsumerGroup.RANGE)) {
                return heartbeatError(Errors.UNSUPPORTED_ASSIGNOR, "Unsupported assignor " + assignor);
            }
            member.serverAssignor = assignor;
        }
        if (request.subscribedTopicNames() != null
                && !new HashSet<>(request.subscribedTopicNames()).equals(new HashSet<>(member.subscribedTopics))) {
            member.subscribedTopics = List.copyOf(new TreeSet<>(request.subscribedTopicNames()));
            changed = true;
        }
        if (request.subscribedTopicRegex() != null) {
            String regex = request.subscribedTopicRegex().isEmpty() ? null : request.subscribedTopicRegex();
            if (!Objects.equals(regex, member.subscribedTopicRegex)) {
                Pattern compiled;
                try {
                    compiled = regex == null ? null : Pattern.compile(regex);
                } catch (PatternSyntaxException e) {
                    return heartbeatError(Errors.INVALID_REGULAR_EXPRESSION, "SubscribedTopicRegex `" + regex
                            + "` is not a valid regular expression: " + e.getMessage() + ".");
                }
                member.subscribedTopicRegex = regex;
                member.regex = compiled;
                member.regexTopics = Set.of();
                member.regexImage = null;
                changed = true;
            }
        }
        if (changed || !partitionCounts(cg).equals(cg.subscriptionMetadata)) {
            cg.groupEpoch++;
            computeConsumerTarget(cg);
            persistConsumerGroup(group);
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
            persistConsumerGroup(group);
        }
    }

    private void computeConsumerTarget(ConsumerGroup cg) {
        cg.computeTarget(partitionCounts(cg));
    }

    /**
     * The partition counts of the topics the group subscribes to, by name or by a member's regex. A regex
     * is resolved against the current image (full matches, internal topics excluded, as Kafka), again
     * whenever the image changes: a topic created later that matches is assigned at the next heartbeat.
     * Only the topics the member's principal may describe match (Kafka's filter of resolved regexes); ACLs
     * are in the image, so a new ACL is seen at the member's next heartbeat too.
     */
    private Map<String, Integer> partitionCounts(ConsumerGroup cg) {
        Map<String, Integer> counts = new HashMap<>();
        MetadataImage current = shared.image();
        if (current == null) {
            return counts;
        }
        for (ConsumerGroup.Member m : cg.members.values()) {
            if (m.regex != null && (m.regexImage != current || !m.describableTopics.equals(m.regexFilteredBy))) {
                Set<String> matched = new TreeSet<>();
                for (TopicImage t : current.topics()) {
                    if (!t.internal() && m.regex.matches(t.name()) && m.describableTopics.test(t.name())) {
                        matched.add(t.name());
                    }
                }
                m.regexTopics = matched;
                m.regexImage = current;
                m.regexFilteredBy = m.describableTopics;
            }
        }
        for (String topic : cg.subscribedTopics()) {
            TopicImage t = current.topic(topic);
            if (t != null) {
                counts.put(topic, t.partitionCount());
            }
        }
        return counts;
    }

    private Map<String, Set<Integer>> owned(List<ConsumerGroupHeartbeatRequest.TopicPartitions> reported) {
        if (reported == null) {
            return null;
        }
        Map<String, Set<Integer>> owned = new HashMap<>();
        MetadataImage current = shared.image();
        for (ConsumerGroupHeartbeatRequest.TopicPartitions tp : reported) {
            TopicImage t = current == null ? null : current.topic(tp.topicId());
            if (t != null) {
                owned.computeIfAbsent(t.name(), n -> new HashSet<>()).addAll(tp.partitions());
            }
        }
        return owned;
    }

    private ConsumerGroupHeartbeatResponse.Assignment assignment(Map<String, Set<Integer>> assigned) {
        ConsumerGroupHeartbeatResponse.Assignment a = new ConsumerGroupHeartbeatResponse.Assignment();
        MetadataImage current = shared.image();
        for (Map.Entry<String, Set<Integer>> e : assigned.entrySet()) {
            TopicImage t = current == null ? null : current.topic(e.getKey());
            if (t != null && !e.getValue().isEmpty()) {
                a.topicPartitions().add(new ConsumerGroupHeartbeatResponse.TopicPartitions()
                        .setTopicId(t.id()).setPartitions(new ArrayList<>(e.getValue())));
            }
        }
        return a;
    }

    /** A consumer-protocol group from its record: members start at epoch 0 (fenced, they rejoin). Caller holds the group's lock. */
    void restoreConsumer(ClassicGroup group, GroupRecords.ConsumerGroupValue value, long now) {
        ConsumerGroup cg = new ConsumerGroup();
        group.consumer = cg;
        group.protocolType = ClassicGroup.CONSUMER_PROTOCOL_TYPE;
        cg.groupEpoch = value.groupEpoch();
        for (GroupRecords.ConsumerMemberValue m : value.members()) {
            ConsumerGroup.Member member = new ConsumerGroup.Member(m.memberId());
            member.instanceId = m.instanceId();
            member.rackId = m.rackId();
            member.clientId = m.clientId();
            member.clientHost = m.clientHost();
            member.rebalanceTimeoutMs = m.rebalanceTimeoutMs();
            member.serverAssignor = m.serverAssignor();
            member.subscribedTopics = m.subscribedTopics();
            if (m.subscribedTopicRegex() != null) {
                try {
                    member.regex = Pattern.compile(m.subscribedTopicRegex());
                    member.subscribedTopicRegex = m.subscribedTopicRegex();
                } catch (PatternSyntaxException e) {
                    LOG.warn("Member {} of consumer group {}: stored regex {} no longer compiles; ignored",
                            m.memberId(), group.groupId(), m.subscribedTopicRegex());
                }
            }
            cg.members.put(member.memberId, member);
            long deadline = now + config.consumerSessionTimeoutMs();
            member.sessionDeadline = deadline;
            String id = member.memberId;
            timer.schedule(config.consumerSessionTimeoutMs(), () -> expireConsumerMember(group, id, deadline));
        }
        computeConsumerTarget(cg);
    }

    /**
     * Writes the group's consumer-group record (after its group epoch moved, or again after a failed write)
     * and makes it the write the group's heartbeats are answered after.
     */
    private void persistConsumerGroup(ClassicGroup group) {
        ConsumerGroup cg = group.consumer;
        List<GroupRecords.ConsumerMemberValue> members = new ArrayList<>();
        for (ConsumerGroup.Member m : cg.members.values()) {
            members.add(new GroupRecords.ConsumerMemberValue(m.memberId, m.instanceId, m.rackId, m.clientId,
                    m.clientHost, m.rebalanceTimeoutMs, m.serverAssignor, m.subscribedTopics, m.subscribedTopicRegex));
        }
        byte[] value = GroupRecords.consumerGroupValue(new GroupRecords.ConsumerGroupValue(cg.groupEpoch, members));
        cg.lastWrite = log.append(group.partition(), List.of(new CoordinatorLog.Entry(
                GroupRecords.consumerGroupKey(group.groupId()), value)));
        cg.lastWrite.whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.warn("Failed to store consumer group {} (written again at its next heartbeat): {}",
                        group.groupId(), failure.getMessage());
            }
        });
    }

    /**
     * ConsumerGroupDescribe for one group: a consumer-protocol group with its epochs, assignor and members
     * (current and target assignments); an unknown group, or a classic one, is GROUP_ID_NOT_FOUND as in
     * Kafka. As Kafka's, the state is named as in ListGroups ("Stable"; lower case is only how its state
     * filter matches) and a member without a regular expression has an empty one, its default. Authorized
     * operations are left to the caller.
     */
    ConsumerGroupDescribeResponse.DescribedGroup consumerGroupDescribe(String groupId) {
        ConsumerGroupDescribeResponse.DescribedGroup described = new ConsumerGroupDescribeResponse.DescribedGroup()
                .setGroupId(groupId)
                .setGroupState("")
                .setAssignorName("");
        GroupShard shard;
        try {
            GroupContext.validateGroupId(groupId);
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            return described.setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
        }
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " not found.");
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " not found.");
            }
            ConsumerGroup cg = group.consumer;
            if (cg == null) {
                return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " is not a consumer group.");
            }
            MetadataImage current = shared.image();
            described.setGroupState(cg.state())
                    .setGroupEpoch(cg.groupEpoch)
                    .setAssignmentEpoch(cg.assignmentEpoch)
                    .setAssignorName(cg.assignorName());
            for (ConsumerGroup.Member m : cg.members.values()) {
                described.members().add(new ConsumerGroupDescribeResponse.Member()
                        .setMemberId(m.memberId)
                        .setInstanceId(m.instanceId)
                        .setRackId(m.rackId)
                        .setMemberEpoch(m.memberEpoch)
                        .setClientId(m.clientId)
                        .setClientHost(m.clientHost)
                        .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopics))
                        .setSubscribedTopicRegex(m.subscribedTopicRegex == null ? "" : m.subscribedTopicRegex)
                        .setAssignment(describedAssignment(current, m.assigned))
                        .setTargetAssignment(describedAssignment(current,
                                cg.target.getOrDefault(m.memberId, Map.of())))
                        .setMemberType((byte) 1));
            }
        }
        return described;
    }

    private static ConsumerGroupDescribeResponse.Assignment describedAssignment(MetadataImage current,
                                                                                Map<String, Set<Integer>> partitions) {
        ConsumerGroupDescribeResponse.Assignment a = new ConsumerGroupDescribeResponse.Assignment();
        for (Map.Entry<String, Set<Integer>> e : new java.util.TreeMap<>(partitions).entrySet()) {
            TopicImage t = current == null ? null : current.topic(e.getKey());
            if (t != null && !e.getValue().isEmpty()) {
                a.topicPartitions().add(new ConsumerGroupDescribeResponse.TopicPartitions()
                        .setTopicId(t.id()).setTopicName(t.name()).setPartitions(new ArrayList<>(e.getValue())));
            }
        }
        return a;
    }
}
