package io.krill.broker.group;

import io.krill.broker.BrokerContext;
import io.krill.broker.config.GroupSettings;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
import io.krill.wire.message.ConsumerGroupHeartbeatRequest;
import io.krill.wire.message.ConsumerGroupHeartbeatResponse;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.message.HeartbeatRequest;
import io.krill.wire.message.JoinGroupRequest;
import io.krill.wire.message.JoinGroupResponse;
import io.krill.wire.message.LeaveGroupRequest;
import io.krill.wire.message.LeaveGroupResponse;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.SyncGroupRequest;
import io.krill.wire.message.SyncGroupResponse;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of this broker: for each partition of {@code __consumer_offsets} it leads, the
 * classic-protocol groups that hash to it (membership, rebalances, assignments) and their committed
 * offsets, kept as records in that partition and rebuilt from it when the partition is loaded.
 *
 * <p><b>Partitions.</b> A group belongs to partition {@code abs(groupId.hashCode()) % partitions}
 * (Kafka's). As a {@link MetadataListener} the coordinator loads each partition it comes to lead (on
 * the coordinator thread; requests for its groups get COORDINATOR_LOAD_IN_PROGRESS meanwhile) and
 * drops the groups of a partition it no longer leads (their waiting requests get NOT_COORDINATOR).
 *
 * <p><b>Classic protocol.</b> JoinGroup/SyncGroup/Heartbeat/LeaveGroup as Kafka's coordinator serves
 * them: KIP-394 member ids, static membership (KIP-345), protocol selection by vote, the initial
 * rebalance delay for new groups, rebalance and session timeouts, pending-sync expiry, group.max.size.
 * Waiting joins and syncs are callbacks held by the members; deadlines are tasks on the
 * {@link CoordinatorTimer}. A group's metadata is written when the leader's assignment arrives, when
 * the group becomes empty, when a static member is replaced and when the group is deleted.
 *
 * <p><b>Offsets.</b> OffsetCommit is validated against the group's generation and member, written, and
 * visible once committed; simple groups (generation -1) commit while empty. Offsets of empty groups
 * expire after {@code offsets.retention.minutes}, then the group itself.
 *
 * <p><b>Thread-safety.</b> Every group has its own lock (its monitor); no code holds two. Shards and
 * their group maps are concurrent. Log writes complete inline (one node) or later on the coordinator
 * thread, whose callbacks retake the group's lock and re-check the generation.
 */
public final class GroupCoordinator implements MetadataListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    public static final String TOPIC = "__consumer_offsets";
    static final String CLASSIC_TYPE = "classic";
    static final String CONSUMER_TYPE = "consumer";
    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final ClassicRebalancer rebalancer;
    private final ClassicGroupProtocol classic;
    private final ConsumerGroupProtocol consumerGroups;
    private ExecutorCoordinatorTimer ownedTimer;

    /**
     * The broker's coordinator: its log is this broker's partitions of {@code __consumer_offsets}, its
     * timer a {@code group-coordinator} thread that {@link #close()} stops. Call {@link #startup} after
     * registering it as a metadata listener.
     */
    public static GroupCoordinator forBroker(BrokerContext context) {
        GroupSettings settings = context.config().group();
        ExecutorCoordinatorTimer timer = new ExecutorCoordinatorTimer();
        PartitionCoordinatorLog log = new PartitionCoordinatorLog(context.metadata(), context.partitions(),
                context.producePurgatory(), timer, settings.offsetsCommitTimeoutMs(),
                settings.offsetsTopicCompressionCodec(), settings.offsetsLoadBufferSize());
        GroupCoordinator coordinator = new GroupCoordinator(context.nodeId(), GroupConfig.from(settings), log, timer);
        coordinator.ownedTimer = timer;
        return coordinator;
    }

    public GroupCoordinator(int nodeId, GroupConfig config, CoordinatorLog log, CoordinatorTimer timer) {
        this.shared = new GroupContext(nodeId, config, log, timer);
        this.config = config;
        this.log = log;
        this.timer = timer;
        this.rebalancer = new ClassicRebalancer(shared);
        this.classic = new ClassicGroupProtocol(shared, rebalancer);
        this.consumerGroups = new ConsumerGroupProtocol(shared);
    }

    public GroupConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ partitions

    /** Follows the image the broker starts with, and schedules the periodic offsets expiry. */
    public void startup(MetadataImage image) {
        follow(image);
        scheduleOffsetsExpiry();
    }

    @Override
    public void onChange(MetadataImage previous, MetadataImage current) {
        follow(current);
    }

    private synchronized void follow(MetadataImage image) {
        if (shared.closed()) {
            return;
        }
        shared.image(image);
        TopicImage topic = image.topic(TOPIC);
        Set<Integer> led = new HashSet<>();
        if (topic != null) {
            shared.partitionCount(topic.partitionCount());
            for (PartitionState state : topic.partitions()) {
                if (state.leader() == shared.nodeId()) {
                    led.add(state.partition());
                }
            }
        }
        for (int partition : led) {
            if (shared.shard(partition) == null) {
                onElection(partition);
            }
        }
        for (int partition : shared.ledPartitions()) {
            if (!led.contains(partition)) {
                onResignation(partition);
            }
        }
    }

    /** The partition of {@code __consumer_offsets} that holds {@code groupId}. */
    public int partitionFor(String groupId) {
        return shared.partitionFor(groupId);
    }

    static int partitionFor(String groupId, int partitions) {
        return GroupContext.partitionFor(groupId, partitions);
    }

    /** Becomes the coordinator of {@code partition}: loads it on the coordinator thread. */
    void onElection(int partition) {
        GroupShard shard = new GroupShard(partition);
        if (shared.addShard(shard)) {
            LOG.debug("Loading group coordinator partition {}-{}", TOPIC, partition);
            timer.execute(() -> load(shard));
        }
    }

    /** Stops coordinating {@code partition}: its groups are dropped and their waiting requests told. */
    void onResignation(int partition) {
        GroupShard shard = shared.removeShard(partition);
        if (shard == null) {
            return;
        }
        LOG.debug("Unloading group coordinator partition {}-{}", TOPIC, partition);
        for (ClassicGroup group : shard.groups.values()) {
            synchronized (group) {
                for (ClassicMember member : group.members()) {
                    rebalancer.answerJoin(group, member, ClassicRebalancer.joinError(member.memberId(), Errors.NOT_COORDINATOR));
                    ClassicRebalancer.answerSync(group, member, ClassicRebalancer.syncError(Errors.NOT_COORDINATOR));
                }
                group.transitionTo(GroupState.DEAD, now());
            }
        }
        shard.groups.clear();
    }

    /** Whether {@code partition} is loaded and served (for tests and tools). */
    public boolean isLoaded(int partition) {
        GroupShard shard = shared.shard(partition);
        return shard != null && shard.loaded;
    }

    private void load(GroupShard shard) {
        long started = System.nanoTime();
        Map<String, GroupRecords.GroupValue> groupValues = new HashMap<>();
        Map<String, GroupRecords.ConsumerGroupValue> consumerValues = new HashMap<>();
        Map<String, Map<String, Map<Integer, OffsetAndMetadata>>> offsets = new HashMap<>();
        AtomicInteger records = new AtomicInteger();
        // Offsets of transactions without a marker yet, per producer id, in log order.
        Map<Long, List<CoordinatorLog.Entry>> openTxns = new HashMap<>();
        try {
            CoordinatorLog.Replayer plain = (keyBytes, valueBytes) -> {
                records.incrementAndGet();
                GroupRecords.Key key = GroupRecords.readKey(Unpooled.wrappedBuffer(keyBytes));
                if (key instanceof GroupRecords.OffsetKey k) {
                    Map<Integer, OffsetAndMetadata> byPartition = offsets.computeIfAbsent(k.groupId(), g -> new HashMap<>())
                            .computeIfAbsent(k.topic(), t -> new HashMap<>());
                    if (valueBytes == null) {
                        byPartition.remove(k.partition());
                    } else {
                        byPartition.put(k.partition(), GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(valueBytes)));
                    }
                } else if (key instanceof GroupRecords.GroupKey k) {
                    if (valueBytes == null) {
                        groupValues.remove(k.groupId());
                    } else {
                        groupValues.put(k.groupId(), GroupRecords.readGroupValue(Unpooled.wrappedBuffer(valueBytes)));
                    }
                } else if (key instanceof GroupRecords.ConsumerGroupKey k) {
                    if (valueBytes == null) {
                        consumerValues.remove(k.groupId());
                    } else {
                        consumerValues.put(k.groupId(),
                                GroupRecords.readConsumerGroupValue(Unpooled.wrappedBuffer(valueBytes)));
                    }
                }
            };
            log.replay(shard.partition, new CoordinatorLog.Replayer() {
                @Override
                public void replay(byte[] key, byte[] value) {
                    plain.replay(key, value);
                }

                @Override
                public void replayTransactional(long producerId, byte[] key, byte[] value) {
                    openTxns.computeIfAbsent(producerId, p -> new ArrayList<>()).add(new CoordinatorLog.Entry(key, value));
                }

                @Override
                public void replayMarker(long producerId, boolean commit) {
                    List<CoordinatorLog.Entry> entries = openTxns.remove(producerId);
                    if (entries != null && commit) {
                        entries.forEach(e -> plain.replay(e.key(), e.value()));
                    }
                }
            });
        } catch (RuntimeException e) {
            LOG.error("Failed to load {}-{}; its groups stay unavailable", TOPIC, shard.partition, e);
            return;
        }
        long now = now();
        Set<String> groupIds = new HashSet<>(groupValues.keySet());
        groupIds.addAll(consumerValues.keySet());
        offsets.forEach((groupId, byTopic) -> {
            if (byTopic.values().stream().anyMatch(m -> !m.isEmpty())) {
                groupIds.add(groupId);
            }
        });
        Map<String, List<PendingOffset>> pendingByGroup = pendingTxnOffsets(openTxns);
        groupIds.addAll(pendingByGroup.keySet());
        for (String groupId : groupIds) {
            ClassicGroup group = new ClassicGroup(groupId, shard.partition, now);
            synchronized (group) {
                GroupRecords.GroupValue value = groupValues.get(groupId);
                GroupRecords.ConsumerGroupValue consumerValue = consumerValues.get(groupId);
                if (consumerValue != null) {
                    consumerGroups.restoreConsumer(group, consumerValue, now);
                } else if (value != null) {
                    rebalancer.restore(group, value, now);
                }
                Map<String, Map<Integer, OffsetAndMetadata>> byTopic = offsets.getOrDefault(groupId, Map.of());
                byTopic.forEach((topic, byPartition) -> byPartition.forEach((p, o) -> group.putOffset(topic, p, o)));
                for (PendingOffset pending : pendingByGroup.getOrDefault(groupId, List.of())) {
                    group.pendingTxnOffsets.add(pending.producerId(), pending.topic(), pending.partition(),
                            pending.offset());
                }
                shard.groups.put(groupId, group);
            }
        }
        if (shared.shard(shard.partition) != shard) {
            return; // resigned meanwhile
        }
        shard.loaded = true;
        if (records.get() > 0) {
            LOG.info("Loaded {}-{}: {} records, {} groups in {} ms", TOPIC, shard.partition, records.get(),
                    groupIds.size(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** An offset of a transaction still open at the end of a load. */
    private record PendingOffset(long producerId, String topic, int partition, OffsetAndMetadata offset) {
    }

    /** The offsets of transactions without a marker yet, by group (a tombstone cancels an earlier one). */
    private static Map<String, List<PendingOffset>> pendingTxnOffsets(Map<Long, List<CoordinatorLog.Entry>> openTxns) {
        Map<String, List<PendingOffset>> byGroup = new HashMap<>();
        openTxns.forEach((producerId, entries) -> {
            for (CoordinatorLog.Entry entry : entries) {
                if (entry.value() != null
                        && GroupRecords.readKey(Unpooled.wrappedBuffer(entry.key())) instanceof GroupRecords.OffsetKey k) {
                    byGroup.computeIfAbsent(k.groupId(), g -> new ArrayList<>()).add(new PendingOffset(producerId,
                            k.topic(), k.partition(), GroupRecords.readOffsetValue(Unpooled.wrappedBuffer(entry.value()))));
                }
            }
        });
        return byGroup;
    }

    private long now() {
        return timer.milliseconds();
    }

    // ------------------------------------------------------------------ classic protocol

    /**
     * JoinGroup: answers through {@code callback}, at once (errors, MEMBER_ID_REQUIRED, a rejoin that
     * changes nothing) or when the rebalance completes.
     *
     * @throws ApiException for errors of the whole request (not the coordinator, loading, invalid id)
     */
    public void joinGroup(RequestContext context, JoinGroupRequest request, Consumer<JoinGroupResponse> callback) {
        classic.joinGroup(context, request, callback);
    }

    /** SyncGroup: answered at once, or when the leader's assignment has been written. */
    public void syncGroup(RequestContext context, SyncGroupRequest request, Consumer<SyncGroupResponse> callback) {
        classic.syncGroup(context, request, callback);
    }

    /** Heartbeat: the member's session goes on; REBALANCE_IN_PROGRESS tells it to rejoin. */
    public Errors heartbeat(HeartbeatRequest request) {
        return classic.heartbeat(request);
    }

    /**
     * LeaveGroup for a batch of members (v3+; older versions are one member): each is removed, static
     * ones by instance id, and the group rebalances once they are gone.
     */
    public LeaveGroupResponse leaveGroup(String groupId, List<LeaveGroupRequest.MemberIdentity> leaving) {
        return classic.leaveGroup(groupId, leaving);
    }

    // ------------------------------------------------------------------ consumer protocol (KIP-848)

    /** ConsumerGroupHeartbeat: joins, leaves, keeps the session and reconciles the member's assignment. */
    public ConsumerGroupHeartbeatResponse consumerGroupHeartbeat(RequestContext context,
                                                                 ConsumerGroupHeartbeatRequest request) {
        return consumerGroups.consumerGroupHeartbeat(context, request);
    }

    /**
     * ConsumerGroupDescribe for one group: a consumer-protocol group with its epochs, assignor and members
     * (current and target assignments); an unknown group, or a classic one, is GROUP_ID_NOT_FOUND as in
     * Kafka. Authorized operations are left to the caller.
     */
    public ConsumerGroupDescribeResponse.DescribedGroup consumerGroupDescribe(String groupId) {
        return consumerGroups.consumerGroupDescribe(groupId);
    }

    // ------------------------------------------------------------------ offsets

    /**
     * OffsetCommit for classic and simple groups: checks the member and generation, writes the offsets
     * and makes them visible once committed. Answers through {@code callback}.
     */
    public void commitOffsets(RequestContext context, OffsetCommitRequest request, Consumer<OffsetCommitResponse> callback) {
        String groupId = request.groupId();
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        int generation = request.generationIdOrMemberEpoch();
        String memberId = request.memberId() == null ? "" : request.memberId();
        String instanceId = request.groupInstanceId();
        while (true) {
            ClassicGroup group = GroupContext.group(shard, groupId);
            if (group == null) {
                if (generation >= 0) {
                    callback.accept(commitError(request, context.apiVersion() >= 9 ? Errors.GROUP_ID_NOT_FOUND
                            : Errors.ILLEGAL_GENERATION));
                    return;
                }
                group = shard.groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, shard.partition, now()));
            }
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(groupId, group);
                    continue;
                }
                Errors invalid = validateOffsetCommit(group, memberId, instanceId, generation);
                if (invalid != null) {
                    callback.accept(commitError(request, invalid));
                    return;
                }
                ClassicMember member = group.member(memberId);
                if (member != null) {
                    rebalancer.scheduleExpiry(group, member, now() + member.sessionTimeoutMs);
                }
                writeOffsets(context, group, request, callback);
                return;
            }
        }
    }

    private static Errors validateOffsetCommit(ClassicGroup group, String memberId, String instanceId, int generation) {
        if (group.consumer != null) {
            if (generation < 0 && memberId.isEmpty()) {
                return group.consumer.isEmpty() ? null : Errors.UNKNOWN_MEMBER_ID;
            }
            ConsumerGroup.Member member = group.consumer.members.get(memberId);
            if (member == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            return generation > member.memberEpoch ? Errors.STALE_MEMBER_EPOCH : null;
        }
        if (generation < 0 && group.is(GroupState.EMPTY)) {
            return null; // a simple commit (admin tools, manually assigned consumers)
        }
        if (generation >= 0 || !memberId.isEmpty() || instanceId != null) {
            Errors invalid = group.validateMember(memberId, instanceId);
            if (invalid != null) {
                return invalid;
            }
            if (generation != group.generationId) {
                return Errors.ILLEGAL_GENERATION;
            }
        } else if (!group.is(GroupState.EMPTY)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            // The member has its new generation but not its assignment yet.
            return Errors.REBALANCE_IN_PROGRESS;
        }
        return null;
    }

    private void writeOffsets(RequestContext context, ClassicGroup group, OffsetCommitRequest request,
                              Consumer<OffsetCommitResponse> callback) {
        long now = now();
        long expire = context.apiVersion() <= 4 && request.retentionTimeMs() >= 0 ? now + request.retentionTimeMs()
                : OffsetAndMetadata.NO_EXPIRY;
        OffsetCommitResponse response = new OffsetCommitResponse();
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        List<Runnable> apply = new ArrayList<>();
        List<OffsetCommitResponse.OffsetCommitResponsePartition> written = new ArrayList<>();
        for (OffsetCommitRequest.OffsetCommitRequestTopic topic : request.topics()) {
            OffsetCommitResponse.OffsetCommitResponseTopic topicResponse = new OffsetCommitResponse.OffsetCommitResponseTopic()
                    .setName(topic.name());
            response.topics().add(topicResponse);
            for (OffsetCommitRequest.OffsetCommitRequestPartition p : topic.partitions()) {
                OffsetCommitResponse.OffsetCommitResponsePartition partitionResponse =
                        new OffsetCommitResponse.OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex());
                topicResponse.partitions().add(partitionResponse);
                String metadata = p.committedMetadata();
                if (metadata != null && metadata.length() > config.offsetMetadataMaxBytes()) {
                    partitionResponse.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                    continue;
                }
                OffsetAndMetadata value = new OffsetAndMetadata(p.committedOffset(), p.committedLeaderEpoch(),
                        metadata == null ? "" : metadata, now, expire);
                entries.add(new CoordinatorLog.Entry(GroupRecords.offsetKey(group.groupId(), topic.name(),
                        p.partitionIndex()), GroupRecords.offsetValue(value)));
                String name = topic.name();
                int index = p.partitionIndex();
                apply.add(() -> group.putOffset(name, index, value));
                written.add(partitionResponse);
            }
        }
        if (entries.isEmpty()) {
            callback.accept(response);
            return;
        }
        log.append(group.partition(), entries).whenComplete((ok, failure) -> {
            synchronized (group) {
                if (failure != null) {
                    Errors error = commitError(failure);
                    for (OffsetCommitResponse.OffsetCommitResponsePartition p : written) {
                        p.setErrorCode(error.code());
                    }
                } else if (!group.is(GroupState.DEAD)) {
                    apply.forEach(Runnable::run);
                }
            }
            callback.accept(response);
        });
    }

    // ------------------------------------------------------------------ transactional offsets

    /**
     * TxnOffsetCommit: the offsets are written to the group's partition as one transactional batch of the
     * producer (its epoch fenced by the log) and held as pending: they become the group's committed
     * offsets when the commit marker of the producer's transaction reaches the partition
     * ({@link #onTransactionCompleted}), and are dropped on an abort. A group that does not exist is
     * created (an empty, simple group), as Kafka does; a member id or generation given is checked.
     */
    public void commitTransactionalOffsets(TxnOffsetCommitRequest request, Consumer<TxnOffsetCommitResponse> callback) {
        String groupId = request.groupId();
        GroupShard shard;
        try {
            GroupContext.validateGroupId(groupId);
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            callback.accept(txnCommitError(request, e.error()));
            return;
        }
        String memberId = request.memberId() == null ? "" : request.memberId();
        while (true) {
            ClassicGroup group = shard.groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, shard.partition, now()));
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(groupId, group);
                    continue;
                }
                Errors invalid = validateTxnOffsetCommit(group, memberId, request.groupInstanceId(),
                        request.generationIdOrMemberEpoch());
                if (invalid != null) {
                    callback.accept(txnCommitError(request, invalid));
                    return;
                }
                writeTxnOffsets(group, request, callback);
                return;
            }
        }
    }

    /** Kafka's checks for transactional commits: a member or generation, when given, must be current. */
    private static Errors validateTxnOffsetCommit(ClassicGroup group, String memberId, String instanceId, int generation) {
        if (group.consumer != null) {
            if (memberId.isEmpty() && generation < 0) {
                return null;
            }
            ConsumerGroup.Member member = group.consumer.members.get(memberId);
            if (member == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            return generation > member.memberEpoch ? Errors.STALE_MEMBER_EPOCH : null;
        }
        if (generation < 0 && group.is(GroupState.EMPTY)) {
            return null;
        }
        if (instanceId != null) {
            Errors invalid = group.validateMember(memberId, instanceId);
            if (invalid == Errors.FENCED_INSTANCE_ID) {
                return invalid;
            }
        }
        if (!memberId.isEmpty() && group.member(memberId) == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generation >= 0 && generation != group.generationId) {
            return Errors.ILLEGAL_GENERATION;
        }
        return null;
    }

    private void writeTxnOffsets(ClassicGroup group, TxnOffsetCommitRequest request,
                                 Consumer<TxnOffsetCommitResponse> callback) {
        long now = now();
        long producerId = request.producerId();
        TxnOffsetCommitResponse response = new TxnOffsetCommitResponse();
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        List<Runnable> apply = new ArrayList<>();
        List<TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition> written = new ArrayList<>();
        for (TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic topic : request.topics()) {
            TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic topicResponse =
                    new TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic().setName(topic.name());
            response.topics().add(topicResponse);
            for (TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition p : topic.partitions()) {
                TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition partitionResponse =
                        new TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex());
                topicResponse.partitions().add(partitionResponse);
                String metadata = p.committedMetadata();
                if (metadata != null && metadata.length() > config.offsetMetadataMaxBytes()) {
                    partitionResponse.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                    continue;
                }
                OffsetAndMetadata value = new OffsetAndMetadata(p.committedOffset(), p.committedLeaderEpoch(),
                        metadata == null ? "" : metadata, now, OffsetAndMetadata.NO_EXPIRY);
                entries.add(new CoordinatorLog.Entry(GroupRecords.offsetKey(group.groupId(), topic.name(),
                        p.partitionIndex()), GroupRecords.offsetValue(value)));
                String name = topic.name();
                int index = p.partitionIndex();
                apply.add(() -> group.pendingTxnOffsets.add(producerId, name, index, value));
                written.add(partitionResponse);
            }
        }
        if (entries.isEmpty()) {
            callback.accept(response);
            return;
        }
        log.appendTransactional(group.partition(), producerId, request.producerEpoch(), entries)
                .whenComplete((ok, failure) -> {
                    synchronized (group) {
                        if (failure != null) {
                            Errors error = commitError(failure);
                            for (TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition p : written) {
                                p.setErrorCode(error.code());
                            }
                        } else {
                            apply.forEach(Runnable::run);
                        }
                    }
                    callback.accept(response);
                });
    }

    public static TxnOffsetCommitResponse txnCommitError(TxnOffsetCommitRequest request, Errors error) {
        TxnOffsetCommitResponse response = new TxnOffsetCommitResponse();
        for (TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic topic : request.topics()) {
            TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic t = new TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic()
                    .setName(topic.name()).setTopicId(topic.topicId());
            for (TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition p : topic.partitions()) {
                t.partitions().add(new TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
            }
            response.topics().add(t);
        }
        return response;
    }

    /**
     * A transaction marker of {@code producerId} reached partition {@code partition} of
     * {@code __consumer_offsets} and its in-sync replicas: the producer's pending offsets in that
     * partition's groups become committed (commit) or are dropped (abort). Nothing to do when this broker
     * does not coordinate the partition (yet): a later load replays the marker from the log.
     */
    public void onTransactionCompleted(int partition, long producerId, boolean commit) {
        GroupShard shard = shared.shard(partition);
        if (shard == null) {
            return;
        }
        for (ClassicGroup group : shard.groups.values()) {
            synchronized (group) {
                Map<PendingTxnOffsets.Key, OffsetAndMetadata> pending = group.pendingTxnOffsets.complete(producerId);
                if (commit && !group.is(GroupState.DEAD)) {
                    pending.forEach((key, offset) -> group.putOffset(key.topic(), key.partition(), offset));
                }
            }
        }
    }

    static OffsetCommitResponse commitError(OffsetCommitRequest request, Errors error) {
        OffsetCommitResponse response = new OffsetCommitResponse();
        for (OffsetCommitRequest.OffsetCommitRequestTopic topic : request.topics()) {
            OffsetCommitResponse.OffsetCommitResponseTopic t = new OffsetCommitResponse.OffsetCommitResponseTopic()
                    .setName(topic.name()).setTopicId(topic.topicId());
            for (OffsetCommitRequest.OffsetCommitRequestPartition p : topic.partitions()) {
                t.partitions().add(new OffsetCommitResponse.OffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
            }
            response.topics().add(t);
        }
        return response;
    }

    private static Errors commitError(Throwable failure) {
        Errors error = failure instanceof ApiException api ? api.error()
                : failure.getCause() instanceof ApiException api ? api.error() : Errors.UNKNOWN_SERVER_ERROR;
        return error == Errors.RECORD_LIST_TOO_LARGE ? Errors.INVALID_COMMIT_OFFSET_SIZE : error;
    }

    /** OffsetFetch for one group without {@code require_stable}. */
    public OffsetFetchResponse.OffsetFetchResponseGroup fetchOffsets(String groupId,
                                                                     List<OffsetFetchRequest.OffsetFetchRequestTopics> topics) {
        return fetchOffsets(groupId, topics, false);
    }

    /**
     * OffsetFetch for one group: the committed offsets of the partitions asked for (-1 where none), or
     * of every partition with one when {@code topics} is null. Errors of the group are in the result's
     * error code. With {@code requireStable}, a partition with an offset of a transaction not ended yet
     * answers UNSTABLE_OFFSET_COMMIT (the client retries until the transaction completes).
     */
    public OffsetFetchResponse.OffsetFetchResponseGroup fetchOffsets(String groupId,
                                                                     List<OffsetFetchRequest.OffsetFetchRequestTopics> topics,
                                                                     boolean requireStable) {
        OffsetFetchResponse.OffsetFetchResponseGroup result = new OffsetFetchResponse.OffsetFetchResponseGroup()
                .setGroupId(groupId);
        GroupShard shard;
        try {
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            return result.setErrorCode(e.error().code());
        }
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            if (topics != null) {
                for (OffsetFetchRequest.OffsetFetchRequestTopics topic : topics) {
                    OffsetFetchResponse.OffsetFetchResponseTopics t = new OffsetFetchResponse.OffsetFetchResponseTopics()
                            .setName(topic.name());
                    for (int p : topic.partitionIndexes()) {
                        t.partitions().add(noOffset(p));
                    }
                    result.topics().add(t);
                }
            }
            return result;
        }
        synchronized (group) {
            if (topics == null) {
                group.offsets().forEach((topic, byPartition) -> {
                    OffsetFetchResponse.OffsetFetchResponseTopics t = new OffsetFetchResponse.OffsetFetchResponseTopics()
                            .setName(topic);
                    byPartition.forEach((p, o) -> t.partitions().add(
                            requireStable && group.pendingTxnOffsets.isPending(topic, p)
                                    ? noOffset(p).setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code()) : committed(p, o)));
                    result.topics().add(t);
                });
            } else {
                for (OffsetFetchRequest.OffsetFetchRequestTopics topic : topics) {
                    OffsetFetchResponse.OffsetFetchResponseTopics t = new OffsetFetchResponse.OffsetFetchResponseTopics()
                            .setName(topic.name());
                    for (int p : topic.partitionIndexes()) {
                        OffsetAndMetadata o = group.offset(topic.name(), p);
                        if (requireStable && group.pendingTxnOffsets.isPending(topic.name(), p)) {
                            t.partitions().add(noOffset(p).setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code()));
                        } else {
                            t.partitions().add(o == null ? noOffset(p) : committed(p, o));
                        }
                    }
                    result.topics().add(t);
                }
            }
        }
        return result;
    }

    private static OffsetFetchResponse.OffsetFetchResponsePartitions noOffset(int partition) {
        return new OffsetFetchResponse.OffsetFetchResponsePartitions()
                .setPartitionIndex(partition).setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("");
    }

    private static OffsetFetchResponse.OffsetFetchResponsePartitions committed(int partition, OffsetAndMetadata o) {
        return new OffsetFetchResponse.OffsetFetchResponsePartitions()
                .setPartitionIndex(partition)
                .setCommittedOffset(o.offset())
                .setCommittedLeaderEpoch(o.leaderEpoch())
                .setMetadata(o.metadata() == null ? "" : o.metadata());
    }

    /**
     * OffsetDelete: removes a group's offsets of partitions of topics no member subscribes to
     * (GROUP_SUBSCRIBED_TO_TOPIC otherwise); a non-empty group not using the consumer protocol is
     * NON_EMPTY_GROUP.
     */
    public void deleteOffsets(OffsetDeleteRequest request, Consumer<OffsetDeleteResponse> callback) {
        String groupId = request.groupId();
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            callback.accept(new OffsetDeleteResponse().setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()));
            return;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                callback.accept(new OffsetDeleteResponse().setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()));
                return;
            }
            if (!group.is(GroupState.EMPTY) && !ClassicGroup.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType)) {
                callback.accept(new OffsetDeleteResponse().setErrorCode(Errors.NON_EMPTY_GROUP.code()));
                return;
            }
            OffsetDeleteResponse response = new OffsetDeleteResponse();
            List<CoordinatorLog.Entry> entries = new ArrayList<>();
            List<Runnable> apply = new ArrayList<>();
            List<OffsetDeleteResponse.OffsetDeleteResponsePartition> written = new ArrayList<>();
            for (OffsetDeleteRequest.OffsetDeleteRequestTopic topic : request.topics()) {
                OffsetDeleteResponse.OffsetDeleteResponseTopic t = new OffsetDeleteResponse.OffsetDeleteResponseTopic()
                        .setName(topic.name());
                response.topics().add(t);
                boolean subscribed = group.isSubscribedToTopic(topic.name());
                for (OffsetDeleteRequest.OffsetDeleteRequestPartition p : topic.partitions()) {
                    OffsetDeleteResponse.OffsetDeleteResponsePartition pr = new OffsetDeleteResponse.OffsetDeleteResponsePartition()
                            .setPartitionIndex(p.partitionIndex());
                    t.partitions().add(pr);
                    if (subscribed) {
                        pr.setErrorCode(Errors.GROUP_SUBSCRIBED_TO_TOPIC.code());
                    } else if (group.offset(topic.name(), p.partitionIndex()) != null) {
                        entries.add(new CoordinatorLog.Entry(GroupRecords.offsetKey(groupId, topic.name(),
                                p.partitionIndex()), null));
                        String name = topic.name();
                        int index = p.partitionIndex();
                        apply.add(() -> group.removeOffset(name, index));
                        written.add(pr);
                    }
                }
            }
            if (entries.isEmpty()) {
                callback.accept(response);
                return;
            }
            log.append(group.partition(), entries).whenComplete((ok, failure) -> {
                synchronized (group) {
                    if (failure != null) {
                        Errors error = GroupContext.groupStoreError(failure);
                        written.forEach(p -> p.setErrorCode(error.code()));
                    } else {
                        apply.forEach(Runnable::run);
                    }
                }
                callback.accept(response);
            });
        }
    }

    // ------------------------------------------------------------------ admin

    /** DescribeGroups for one group: a missing group is described as Dead (v0-5). */
    public DescribeGroupsResponse.DescribedGroup describeGroup(String groupId) {
        DescribeGroupsResponse.DescribedGroup described = new DescribeGroupsResponse.DescribedGroup()
                .setGroupId(groupId)
                .setGroupState(GroupState.DEAD.displayName())
                .setProtocolType("")
                .setProtocolData("");
        GroupShard shard;
        try {
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            return described.setErrorCode(e.error().code()).setGroupState("");
        }
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            return described;
        }
        synchronized (group) {
            if (group.consumer != null) {
                return described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " is not a classic group.");
            }
            boolean stable = group.is(GroupState.STABLE);
            described.setGroupState(group.state().displayName())
                    .setProtocolType(group.protocolType == null ? "" : group.protocolType)
                    .setProtocolData(stable && group.protocolName != null ? group.protocolName : "");
            for (ClassicMember member : group.members()) {
                byte[] metadata = stable ? member.metadata(group.protocolName) : null;
                described.members().add(new DescribeGroupsResponse.DescribedGroupMember()
                        .setMemberId(member.memberId())
                        .setGroupInstanceId(member.groupInstanceId())
                        .setClientId(member.clientId)
                        .setClientHost(member.clientHost)
                        .setMemberMetadata(metadata == null ? ClassicMember.EMPTY : metadata)
                        .setMemberAssignment(stable ? member.assignment : ClassicMember.EMPTY));
            }
        }
        return described;
    }

    /** The result of ListGroups: the groups and the error of a partition still loading, if any. */
    public record ListedGroups(Errors error, List<ListGroupsResponse.ListedGroup> groups) {
    }

    /**
     * ListGroups over every partition this broker coordinates. {@code states} and {@code types} filter
     * case-insensitively when not empty (all groups are of type classic).
     */
    public ListedGroups listGroups(Set<String> states, Set<String> types) {
        Errors error = Errors.NONE;
        List<ListGroupsResponse.ListedGroup> listed = new ArrayList<>();
        Set<String> lowerStates = new HashSet<>();
        states.forEach(s -> lowerStates.add(s.toLowerCase(java.util.Locale.ROOT)));
        Set<String> lowerTypes = new HashSet<>();
        types.forEach(t -> lowerTypes.add(t.toLowerCase(java.util.Locale.ROOT)));
        for (GroupShard shard : shared.shards()) {
            if (!shard.loaded) {
                error = Errors.COORDINATOR_LOAD_IN_PROGRESS;
                continue;
            }
            for (ClassicGroup group : shard.groups.values()) {
                synchronized (group) {
                    if (group.is(GroupState.DEAD)) {
                        continue;
                    }
                    String type = group.consumer != null ? CONSUMER_TYPE : CLASSIC_TYPE;
                    if (!lowerTypes.isEmpty() && !lowerTypes.contains(type)) {
                        continue;
                    }
                    String state = group.consumer != null ? group.consumer.state() : group.state().displayName();
                    if (!lowerStates.isEmpty() && !lowerStates.contains(state.toLowerCase(java.util.Locale.ROOT))) {
                        continue;
                    }
                    listed.add(new ListGroupsResponse.ListedGroup()
                            .setGroupId(group.groupId())
                            .setProtocolType(group.protocolType == null ? "" : group.protocolType)
                            .setGroupState(state)
                            .setGroupType(type));
                }
            }
        }
        return new ListedGroups(error, listed);
    }

    /** DeleteGroups: empty groups lose their offsets and metadata; others are NON_EMPTY_GROUP. */
    public CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
        Map<String, Errors> results = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (String groupId : groupIds) {
            if (results.containsKey(groupId)) {
                continue;
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            pending.add(done);
            deleteGroup(groupId, error -> {
                results.put(groupId, error);
                done.complete(null);
            });
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(v -> results);
    }

    private void deleteGroup(String groupId, Consumer<Errors> callback) {
        GroupShard shard;
        try {
            GroupContext.validateGroupId(groupId);
            shard = shared.shardFor(groupId);
        } catch (ApiException e) {
            callback.accept(e.error());
            return;
        }
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            callback.accept(Errors.GROUP_ID_NOT_FOUND);
            return;
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD)) {
                callback.accept(Errors.GROUP_ID_NOT_FOUND);
                return;
            }
            if (!group.is(GroupState.EMPTY) || (group.consumer != null && !group.consumer.isEmpty())) {
                callback.accept(Errors.NON_EMPTY_GROUP);
                return;
            }
            List<CoordinatorLog.Entry> entries = tombstones(group, allOffsets(group));
            entries.add(new CoordinatorLog.Entry(GroupRecords.groupKey(groupId), null));
            if (group.consumer != null) {
                entries.add(new CoordinatorLog.Entry(GroupRecords.consumerGroupKey(groupId), null));
            }
            log.append(group.partition(), entries).whenComplete((ok, failure) -> {
                synchronized (group) {
                    if (failure != null) {
                        callback.accept(GroupContext.groupStoreError(failure));
                        return;
                    }
                    if (!group.is(GroupState.DEAD)) {
                        group.transitionTo(GroupState.DEAD, now());
                    }
                    shard.groups.remove(groupId, group);
                }
                LOG.info("Deleted group {}", groupId);
                callback.accept(Errors.NONE);
            });
        }
    }

    private static List<String[]> allOffsets(ClassicGroup group) {
        List<String[]> all = new ArrayList<>();
        group.offsets().forEach((topic, byPartition) -> byPartition.keySet()
                .forEach(p -> all.add(new String[] {topic, Integer.toString(p)})));
        return all;
    }

    private static List<CoordinatorLog.Entry> tombstones(ClassicGroup group, List<String[]> partitions) {
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        for (String[] tp : partitions) {
            entries.add(new CoordinatorLog.Entry(GroupRecords.offsetKey(group.groupId(), tp[0], Integer.parseInt(tp[1])),
                    null));
        }
        return entries;
    }

    // ------------------------------------------------------------------ offsets expiry

    private void scheduleOffsetsExpiry() {
        timer.schedule(config.offsetsRetentionCheckIntervalMs(), () -> {
            if (shared.closed()) {
                return;
            }
            try {
                expireOffsets();
            } finally {
                scheduleOffsetsExpiry();
            }
        });
    }

    /**
     * Removes expired offsets (KIP-211): of an empty group once it has been empty for the retention
     * time (measured from the later of the commit and the group becoming empty), of a simple group
     * from each commit, of a stable consumer group only for topics it no longer subscribes to; an
     * explicit expire timestamp (OffsetCommit v2-4) wins. An empty group left without offsets is
     * removed with its metadata.
     */
    void expireOffsets() {
        long now = now();
        long retention = config.offsetsRetentionMs();
        for (GroupShard shard : shared.shards()) {
            if (!shard.loaded) {
                continue;
            }
            for (ClassicGroup group : shard.groups.values()) {
                synchronized (group) {
                    if (group.is(GroupState.DEAD)) {
                        continue;
                    }
                    List<String[]> expired = new ArrayList<>();
                    boolean empty = group.is(GroupState.EMPTY) && (group.consumer == null || group.consumer.isEmpty());
                    boolean stableConsumer = group.is(GroupState.STABLE)
                            && ClassicGroup.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType);
                    group.offsets().forEach((topic, byPartition) -> byPartition.forEach((p, o) -> {
                        boolean eligible = empty || (stableConsumer && !group.isSubscribedToTopic(topic));
                        if (!eligible) {
                            return;
                        }
                        boolean isExpired;
                        if (o.expireTimestamp() >= 0) {
                            isExpired = now >= o.expireTimestamp();
                        } else {
                            long base = empty && group.protocolType != null
                                    ? Math.max(group.stateTimestampMs(), o.commitTimestamp()) : o.commitTimestamp();
                            isExpired = now - base >= retention;
                        }
                        if (isExpired) {
                            expired.add(new String[] {topic, Integer.toString(p)});
                        }
                    }));
                    boolean removeGroup = empty && group.pendingJoinMembers.isEmpty() && group.pendingTxnOffsets.isEmpty()
                            && expired.size() == allOffsets(group).size();
                    if (expired.isEmpty() && !removeGroup) {
                        continue;
                    }
                    List<CoordinatorLog.Entry> entries = tombstones(group, expired);
                    if (removeGroup) {
                        entries.add(new CoordinatorLog.Entry(GroupRecords.groupKey(group.groupId()), null));
                        if (group.consumer != null) {
                            entries.add(new CoordinatorLog.Entry(GroupRecords.consumerGroupKey(group.groupId()), null));
                        }
                    }
                    log.append(group.partition(), entries).whenComplete((ok, failure) -> {
                        synchronized (group) {
                            if (failure != null) {
                                LOG.warn("Failed to expire offsets of group {}: {}", group.groupId(), failure.getMessage());
                                return;
                            }
                            for (String[] tp : expired) {
                                group.removeOffset(tp[0], Integer.parseInt(tp[1]));
                            }
                            if (removeGroup && group.is(GroupState.EMPTY) && !group.hasOffsets()) {
                                group.transitionTo(GroupState.DEAD, now());
                                shard.groups.remove(group.groupId(), group);
                                LOG.info("Removed empty group {} with no offsets left", group.groupId());
                            }
                        }
                    });
                    if (!expired.isEmpty()) {
                        LOG.info("Expired {} offsets of group {}", expired.size(), group.groupId());
                    }
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        shared.close();
        for (int partition : shared.ledPartitions()) {
            onResignation(partition);
        }
        if (ownedTimer != null) {
            ownedTimer.close();
        }
    }
}
