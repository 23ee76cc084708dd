package io.krill.broker.group;

import io.krill.broker.config.ShareGroupConfigs;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareState;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ShareGroupHeartbeatRequest;
import io.krill.wire.message.ShareGroupHeartbeatResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShareGroupHeartbeat (KIP-932), as Kafka 4.4's group coordinator serves it: joining (epoch 0, under the
 * member id the client chose), heartbeats, leaving (epoch -1), subscription changes, session expiry
 * ({@code share.session.timeout.ms} of the group), the group epoch (moved by membership, subscriptions,
 * the subscribed topics' metadata and newly initialized share-partitions) and the {@link SimpleShareAssignor}'s
 * target, which a member gets at its next heartbeat (no revocation in a share group).
 *
 * <p>A share-partition is assigned only once its state is initialized with the share coordinator
 * ({@link ShareStatePersister#initialize} at the group epoch, start offset unset so that its leader applies
 * {@code share.auto.offset.reset}): a heartbeat starts the initialization of the subscribed partitions that
 * lack it, and once that completes the next heartbeat moves the group epoch and assigns them, as Kafka's
 * {@code initializedAssignmentPending}. A failed initialization is tried again at the next heartbeat.
 *
 * <p>As for consumer groups, the records of the group that changed ({@link ShareGroupRecords}) are written after
 * each operation, and a successful heartbeat is answered once the group's latest write is committed; a
 * heartbeat that fails changes nothing.
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups through {@link GroupContext}). Requests,
 * session-expiry tasks and initialization completions take the group's monitor; {@link #restore} expects
 * the caller to hold it.
 */
final class ShareGroupProtocol {
    private static final Logger LOG = LoggerFactory.getLogger(ShareGroupProtocol.class);
    static final int LEAVE_EPOCH = -1;

    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorTimer timer;
    private final ShareStatePersister persister;
    private final ShareGroupConfigs configs;
    private final ModernGroupRecordWriter writer;

    ShareGroupProtocol(GroupContext shared, ShareStatePersister persister, ShareGroupConfigs configs) {
        this.shared = shared;
        this.config = shared.config();
        this.timer = shared.timer();
        this.persister = persister;
        this.configs = configs;
        this.writer = new ModernGroupRecordWriter(shared.log());
    }

    /**
     * ShareGroupHeartbeat: {@code callback} gets the answer, once the group's latest record is committed when
     * it succeeds; if that write failed, its coordinator error.
     *
     * @throws ApiException NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS (errors of the whole request)
     */
    void heartbeat(RequestContext context, ShareGroupHeartbeatRequest request,
                   Consumer<ShareGroupHeartbeatResponse> callback) {
        String invalid = invalid(request);
        if (invalid != null) {
            callback.accept(error(Errors.INVALID_REQUEST, invalid));
            return;
        }
        GroupShard shard = shared.shardFor(request.groupId());
        ShareGroupHeartbeatResponse response;
        CompletableFuture<Void> durable;
        while (true) {
            ClassicGroup group = GroupContext.group(shard, request.groupId());
            if (group == null) {
                if (request.memberEpoch() != 0) {
                    callback.accept(error(Errors.GROUP_ID_NOT_FOUND, request.memberEpoch() == LEAVE_EPOCH
                            ? "Group " + request.groupId() + " not found."
                            : "Share group " + request.groupId() + " not found."));
                    return;
                }
                group = shard.groups.computeIfAbsent(request.groupId(),
                        id -> new ClassicGroup(id, shard.partition, timer.milliseconds()));
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(request.groupId(), group);
                    continue;
                }
                boolean created = false;
                if (group.share == null) {
                    if (request.memberEpoch() != 0 || !group.isBlank()) {
                        callback.accept(error(Errors.GROUP_ID_NOT_FOUND,
                                "Group " + request.groupId() + " is not a share group."));
                        return;
                    }
                    group.share = new ShareGroup();
                    group.protocolType = ShareGroup.PROTOCOL_TYPE;
                    created = true;
                }
                response = request.memberEpoch() == LEAVE_EPOCH ? leave(group, request.memberId())
                        : joinOrHeartbeat(context, group, request);
                if (response.errorCode() != Errors.NONE.code()) {
                    if (created) {
                        group.share = null; // as Kafka, whose failed heartbeat commits no group
                        group.protocolType = null;
                        group.transitionTo(GroupState.DEAD, timer.milliseconds());
                        shard.groups.remove(request.groupId(), group);
                    }
                    callback.accept(response);
                    return;
                }
                durable = writer.writeShareGroup(group, shared.image());
                break;
            }
        }
        ShareGroupHeartbeatResponse answer = response;
        durable.whenComplete((ok, failure) -> callback.accept(failure == null ? answer
                : error(GroupContext.groupStoreError(failure), "The group's record was not written")));
    }

    /** Kafka's checks of the request on its own ({@code throwIfShareGroupHeartbeatRequestIsInvalid}), in its order. */
    static String invalid(ShareGroupHeartbeatRequest request) {
        if (request.memberId() == null || request.memberId().isEmpty()) {
            return "MemberId can't be empty.";
        }
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return "GroupId can't be empty.";
        }
        if ("".equals(request.rackId())) {
            return "RackId can't be empty.";
        }
        if (request.memberEpoch() == 0) {
            if (request.subscribedTopicNames() == null || request.subscribedTopicNames().isEmpty()) {
                return "SubscribedTopicNames must be set in first request.";
            }
        } else if (request.memberEpoch() < LEAVE_EPOCH) {
            return "MemberEpoch is invalid.";
        }
        return null;
    }

    private ShareGroupHeartbeatResponse joinOrHeartbeat(RequestContext context, ClassicGroup group,
                                                        ShareGroupHeartbeatRequest request) {
        ShareGroup sg = group.share;
        String memberId = request.memberId();
        int epoch = request.memberEpoch();
        ShareGroup.Member member = sg.members.get(memberId);
        boolean changed = false;
        if (member == null) {
            if (epoch != 0) {
                return error(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group "
                        + group.groupId() + ".");
            }
            if (sg.members.size() >= config.shareMaxSize()) {
                return error(Errors.GROUP_MAX_SIZE_REACHED, "The share group has reached its maximum capacity of "
                        + config.shareMaxSize() + " members.");
            }
            member = new ShareGroup.Member(memberId);
            sg.members.put(memberId, member);
            changed = true;
            LOG.info("Member {} joined share group {}", memberId, group.groupId());
        } else if (epoch > member.memberEpoch) {
            return error(Errors.FENCED_MEMBER_EPOCH, "The share group member has a greater member epoch (" + epoch
                    + ") than the one known by the group coordinator (" + member.memberEpoch
                    + "). The member must abandon all its partitions and rejoin.");
        } else if (epoch != 0 && epoch < member.memberEpoch && epoch != member.previousMemberEpoch) {
            return error(Errors.FENCED_MEMBER_EPOCH, "The share group member has a smaller member epoch (" + epoch
                    + ") than the one known by the group coordinator (" + member.memberEpoch
                    + "), and it does not match the previous member epoch (" + member.previousMemberEpoch
                    + "). The member must abandon all its partitions and rejoin.");
        }
        Map<UUID, Set<Integer>> before = member.assigned;
        member.clientId = context.clientId();
        member.clientHost = context.clientHost();
        if (request.rackId() != null) {
            member.rackId = request.rackId();
        }
        if (request.subscribedTopicNames() != null
                && !new HashSet<>(request.subscribedTopicNames()).equals(new HashSet<>(member.subscribedTopics))) {
            member.subscribedTopics = List.copyOf(new TreeSet<>(request.subscribedTopicNames()));
            changed = true;
        }
        MetadataImage image = shared.image();
        Map<String, SubscribedTopics.Topic> metadata = SubscribedTopics.of(sg.subscribedTopics(), image);
        if (changed || !metadata.equals(sg.subscriptionMetadata) || sg.initializedAssignmentPending()) {
            sg.groupEpoch++;
            if (image != null) {
                sg.initialized.keySet().removeIf(topicId -> image.topic(topicId) == null); // deleted topics
            }
            sg.computeTarget(metadata, timer.milliseconds());
        }
        sg.reconcile(member);
        armSession(group, member);
        initializeMissing(group);
        ShareGroupHeartbeatResponse response = new ShareGroupHeartbeatResponse()
                .setMemberId(memberId)
                .setMemberEpoch(member.memberEpoch)
                .setHeartbeatIntervalMs(configs.of(group.groupId()).heartbeatIntervalMs());
        if (epoch == 0 || request.subscribedTopicNames() != null || !before.equals(member.assigned)) {
            response.setAssignment(assignment(member.assigned));
        }
        return response;
    }

    /** A leave: the member goes, the group epoch moves and the others are given its partitions. */
    private ShareGroupHeartbeatResponse leave(ClassicGroup group, String memberId) {
        ShareGroup sg = group.share;
        if (sg.members.remove(memberId) == null) {
            return error(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group "
                    + group.groupId() + ".");
        }
        LOG.info("Member {} left share group {}", memberId, group.groupId());
        membershipChanged(sg);
        return new ShareGroupHeartbeatResponse().setMemberId(memberId).setMemberEpoch(LEAVE_EPOCH);
    }

    private void membershipChanged(ShareGroup sg) {
        sg.groupEpoch++;
        sg.target.keySet().retainAll(sg.members.keySet());
        sg.computeTarget(SubscribedTopics.of(sg.subscribedTopics(), shared.image()), timer.milliseconds());
    }

    private void armSession(ClassicGroup group, ShareGroup.Member member) {
        int timeoutMs = configs.of(group.groupId()).sessionTimeoutMs();
        long deadline = timer.milliseconds() + timeoutMs;
        member.sessionDeadline = deadline;
        String memberId = member.memberId;
        timer.schedule(timeoutMs, () -> expire(group, memberId, deadline));
    }

    private void expire(ClassicGroup group, String memberId, long deadline) {
        synchronized (group) {
            ShareGroup sg = group.share;
            ShareGroup.Member member = sg == null ? null : sg.members.get(memberId);
            if (member == null || member.sessionDeadline != deadline || group.is(GroupState.DEAD)) {
                return;
            }
            LOG.info("Member {} in share group {} has failed (session timeout)", memberId, group.groupId());
            sg.members.remove(memberId);
            membershipChanged(sg);
            writer.writeShareGroup(group, shared.image());
        }
    }

    /**
     * Starts the initialization of the subscribed share-partitions that have none, at the group epoch; when
     * it completes they are initialized (and persisted), to be assigned at the next heartbeat. Caller holds
     * the group's monitor.
     */
    private void initializeMissing(ClassicGroup group) {
        ShareGroup sg = group.share;
        Map<UUID, Set<Integer>> missing = sg.uninitializedPartitions();
        if (missing.isEmpty()) {
            return;
        }
        ShareGroup.addAll(sg.initializing, missing);
        int stateEpoch = sg.groupEpoch;
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        missing.forEach((topicId, partitions) -> partitions.forEach(p -> calls.add(
                persister.initialize(new SharePartitionKey(group.groupId(), topicId, p), stateEpoch,
                        ShareState.UNINITIALIZED).exceptionallyCompose(failure -> alreadyInitialized(failure)))));
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            synchronized (group) {
                if (group.share != sg || group.is(GroupState.DEAD)) {
                    return;
                }
                ShareGroup.removeAll(sg.initializing, missing);
                if (failure != null) {
                    LOG.warn("Share group {}: initializing the state of {} failed (tried again at the next "
                            + "heartbeat): {}", group.groupId(), missing, failure.getMessage());
                    return;
                }
                ShareGroup.addAll(sg.initialized, missing);
                writer.writeShareGroup(group, shared.image());
            }
        });
    }

    /**
     * FENCED_STATE_EPOCH: the share-partition already has state at a later epoch (a coordinator that lost
     * the group's latest record initialized it, or AlterShareGroupOffsets did): it is initialized.
     */
    private static CompletableFuture<Void> alreadyInitialized(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof ApiException api && api.error() == Errors.FENCED_STATE_EPOCH) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.failedFuture(cause);
    }

    /**
     * A share group from its records ({@link ShareGroupRecords}): members keep their epochs and assignments, and
     * their sessions start now; if the subscribed topics' metadata is not what the stored hash says, the next
     * heartbeat moves the group epoch. Caller holds the group's monitor.
     */
    void restore(ClassicGroup group, Map<GroupRecordLedger.Slot, byte[]> records) {
        ShareGroup sg = attach(group);
        ShareGroupRecords.restore(sg, records);
        sg.members.values().forEach(member -> armSession(group, member));
        sg.subscriptionMetadata = SubscribedTopics.loaded(SubscribedTopics.of(sg.subscribedTopics(), shared.image()),
                sg.metadataHash);
    }

    /**
     * A share group from Krill's former whole-group record ({@link WholeGroupRecords}): members keep their
     * epochs and assignments, which are their targets. Caller holds the group's monitor.
     */
    void restoreWhole(ClassicGroup group, WholeGroupRecords.ShareGroupValue value) {
        ShareGroup sg = attach(group);
        sg.groupEpoch = value.groupEpoch();
        sg.assignmentEpoch = value.assignmentEpoch();
        ShareGroup.addAll(sg.initialized, value.initialized());
        for (WholeGroupRecords.ShareMemberValue m : value.members()) {
            ShareGroup.Member member = new ShareGroup.Member(m.memberId());
            member.rackId = m.rackId();
            member.clientId = m.clientId();
            member.clientHost = m.clientHost();
            member.memberEpoch = m.memberEpoch();
            member.previousMemberEpoch = m.previousMemberEpoch();
            member.subscribedTopics = m.subscribedTopics();
            member.assigned = ConsumerGroup.copy(m.assigned());
            sg.members.put(member.memberId, member);
            sg.target.put(member.memberId, ConsumerGroup.copy(m.assigned()));
            armSession(group, member);
        }
        sg.subscriptionMetadata = SubscribedTopics.of(sg.subscribedTopics(), shared.image());
        sg.metadataHash = SubscribedTopics.hash(sg.subscriptionMetadata);
    }

    private static ShareGroup attach(ClassicGroup group) {
        group.share = new ShareGroup();
        group.protocolType = ShareGroup.PROTOCOL_TYPE;
        return group.share;
    }

    static ShareGroupHeartbeatResponse error(Errors error, String message) {
        return new ShareGroupHeartbeatResponse().setErrorCode(error.code()).setErrorMessage(message);
    }

    private static ShareGroupHeartbeatResponse.Assignment assignment(Map<UUID, Set<Integer>> assigned) {
        ShareGroupHeartbeatResponse.Assignment a = new ShareGroupHeartbeatResponse.Assignment();
        assigned.forEach((topicId, partitions) -> {
            if (!partitions.isEmpty()) {
                a.topicPartitions().add(new ShareGroupHeartbeatResponse.TopicPartitions()
                        .setTopicId(topicId).setPartitions(new ArrayList<>(partitions)));
            }
        });
        return a;
    }
}
