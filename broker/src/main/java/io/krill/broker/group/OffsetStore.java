package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The groups' committed offsets: OffsetCommit (validated against the group's generation or member
 * epoch, written, visible once committed; simple groups, generation -1, commit while empty),
 * OffsetFetch (which sees {@link TransactionalOffsetStore}'s pending offsets), OffsetDelete, and the expiry of offsets of empty groups after {@code offsets.retention.minutes}, then
 * of the group itself.
 *
 * <p>Thread-safety: thread-safe; no state of its own (offsets live in their {@link ClassicGroup}, reached
 * through {@link GroupContext}). Every operation takes the group's monitor; write completions (inline on
 * one node, else on the coordinator thread) retake it before applying.
 */
final class OffsetStore {
    private static final Logger LOG = LoggerFactory.getLogger(OffsetStore.class);

    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final ClassicRebalancer rebalancer;

    OffsetStore(GroupContext shared, ClassicRebalancer rebalancer) {
        this.shared = shared;
        this.config = shared.config();
        this.log = shared.log();
        this.timer = shared.timer();
        this.rebalancer = rebalancer;
    }

    private long now() {
        return timer.milliseconds();
    }

    // ------------------------------------------------------------------ offsets

    /**
     * OffsetCommit for classic and simple groups: checks the member and generation, writes the offsets
     * and makes them visible once committed. Answers through {@code callback}.
     */
    void commitOffsets(RequestContext context, OffsetCommitRequest request, Consumer<OffsetCommitResponse> callback) {
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
                if (group.share != null) {
                    // Kafka: a share group has no committed offsets (its start offsets are share state).
                    callback.accept(commitError(request, Errors.GROUP_ID_NOT_FOUND));
                    return;
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

    /** The error a failed offsets write answers (an oversize batch is INVALID_COMMIT_OFFSET_SIZE). */
    static Errors commitError(Throwable failure) {
        Errors error = failure instanceof ApiException api ? api.error()
                : failure.getCause() instanceof ApiException api ? api.error() : Errors.UNKNOWN_SERVER_ERROR;
        return error == Errors.RECORD_LIST_TOO_LARGE ? Errors.INVALID_COMMIT_OFFSET_SIZE : error;
    }

    /**
     * OffsetFetch for one group: the committed offsets of the partitions asked for (-1 where none), or
     * of every partition with one when {@code topics} is null. Errors of the group are in the result's
     * error code. With {@code requireStable}, a partition with an offset of a transaction not ended yet
     * answers UNSTABLE_OFFSET_COMMIT (the client retries until the transaction completes).
     */
    OffsetFetchResponse.OffsetFetchResponseGroup fetchOffsets(String groupId,
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
            return noOffsets(result, topics);
        }
        synchronized (group) {
            if (group.share != null) {
                // Kafka: a share group has no committed offsets; its fetch answers as a group without any.
                return noOffsets(result, topics);
            }
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

    /** The answer for a group without committed offsets: -1 for each partition asked for, else nothing. */
    private static OffsetFetchResponse.OffsetFetchResponseGroup noOffsets(OffsetFetchResponse.OffsetFetchResponseGroup result,
                                                                          List<OffsetFetchRequest.OffsetFetchRequestTopics> topics) {
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
    void deleteOffsets(OffsetDeleteRequest request, Consumer<OffsetDeleteResponse> callback) {
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
            if (group.share != null) {
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

    // ------------------------------------------------------------------ offsets expiry

    /** Schedules the periodic offsets expiry (every offsets.retention.check.interval.ms until closed). */
    void scheduleOffsetsExpiry() {
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
                    if (group.is(GroupState.DEAD) || group.share != null) {
                        continue; // a share group has no offsets and lives until DeleteGroups
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
                        if (group.consumer != null) {
                            entries.addAll(ModernGroupRecordWriter.tombstones(group.groupId(), group.consumer.records));
                        }
                        entries.add(new CoordinatorLog.Entry(GroupRecords.groupKey(group.groupId()), null));
                    }
                    CompletableFuture<Void> written = log.append(group.partition(), entries);
                    if (removeGroup && group.consumer != null) {
                        group.consumer.records.appended(written); // if it fails, the tombstones are due again
                    }
                    written.whenComplete((ok, failure) -> {
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

    static List<String[]> allOffsets(ClassicGroup group) {
        List<String[]> all = new ArrayList<>();
        group.offsets().forEach((topic, byPartition) -> byPartition.keySet()
                .forEach(p -> all.add(new String[] {topic, Integer.toString(p)})));
        return all;
    }

    static List<CoordinatorLog.Entry> tombstones(ClassicGroup group, List<String[]> partitions) {
        List<CoordinatorLog.Entry> entries = new ArrayList<>();
        for (String[] tp : partitions) {
            entries.add(new CoordinatorLog.Entry(GroupRecords.offsetKey(group.groupId(), tp[0], Integer.parseInt(tp[1])),
                    null));
        }
        return entries;
    }
}
