package io.krill.broker.group;

import io.krill.broker.share.state.SharePartitionKey;
import io.krill.broker.share.state.ShareState;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.broker.share.state.ShareStateSummary;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.AlterShareGroupOffsetsRequest;
import io.krill.wire.message.AlterShareGroupOffsetsResponse;
import io.krill.wire.message.DeleteShareGroupOffsetsRequest;
import io.krill.wire.message.DeleteShareGroupOffsetsResponse;
import io.krill.wire.message.DescribeShareGroupOffsetsRequest;
import io.krill.wire.message.DescribeShareGroupOffsetsResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The offsets of share groups (KIP-932): their share-partitions' start offsets, kept by the share coordinator
 * and reached through the {@link ShareStatePersister}. DescribeShareGroupOffsets reads each partition's summary
 * (start offset, leader epoch, and for v1 the lag: end offset - start offset - records already delivered at
 * or above it, as Kafka computes it); AlterShareGroupOffsets, of an empty group only, initializes the
 * partitions at a new start offset with a bumped state epoch, and they become the group's initialized
 * partitions; DeleteShareGroupOffsets, of an empty group only, deletes the topics' states and forgets them as
 * initialized. DeleteGroups of a share group deletes the states of all its initialized partitions first.
 *
 * <p>Thread-safety: thread-safe; no state of its own. The group's membership is checked and its initialized
 * partitions changed under its monitor; persister calls are made and completed outside it.
 */
final class ShareGroupOffsets {
    private final GroupContext shared;
    private final ShareStatePersister persister;
    private final PartitionEndOffsets endOffsets;
    private final ModernGroupRecordWriter writer;

    ShareGroupOffsets(GroupContext shared, ShareStatePersister persister, PartitionEndOffsets endOffsets) {
        this.shared = shared;
        this.persister = persister;
        this.endOffsets = endOffsets;
        this.writer = new ModernGroupRecordWriter(shared.log());
    }

    /** The share group {@code groupId}, or an ApiException with Kafka's error and message. */
    private ClassicGroup shareGroup(String groupId) {
        GroupContext.validateGroupId(groupId);
        GroupShard shard = shared.shardFor(groupId);
        ClassicGroup group = GroupContext.group(shard, groupId);
        if (group == null) {
            throw new ApiException(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
        }
        synchronized (group) {
            if (group.is(GroupState.DEAD) || group.isBlank()) {
                throw new ApiException(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
            }
            if (group.share == null) {
                throw new ApiException(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a share group.");
            }
        }
        return group;
    }

    // ------------------------------------------------------------------ describe

    /**
     * DescribeShareGroupOffsets for one group, as Kafka 4.4 answers it. {@code topics} null: every initialized
     * partition of the share group, nothing (and no error) when there is no such share group. Named topics are
     * read from the share coordinator whatever the group (Kafka does not look at it then): a topic that does
     * not exist answers start offset -1, leader epoch 0, no error.
     */
    CompletableFuture<DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup> describe(
            String groupId, List<DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic> topics) {
        DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup result =
                new DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup().setGroupId(groupId);
        MetadataImage image = shared.image();
        Map<String, Set<Integer>> asked = new java.util.LinkedHashMap<>(); // in the order asked, as Kafka answers
        try {
            GroupContext.validateGroupId(groupId);
            shared.shardFor(groupId);
            if (topics == null) {
                ClassicGroup group = shareGroup(groupId);
                synchronized (group) {
                    if (group.share != null) {
                        group.share.initialized.forEach((topicId, ps) -> {
                            TopicImage t = image == null ? null : image.topic(topicId);
                            if (t != null) {
                                asked.put(t.name(), new TreeSet<>(ps));
                            }
                        });
                    }
                }
            } else {
                topics.forEach(t -> asked.computeIfAbsent(t.topicName(), x -> new TreeSet<>()).addAll(t.partitions()));
            }
        } catch (ApiException e) {
            if (e.error() == Errors.GROUP_ID_NOT_FOUND) {
                return CompletableFuture.completedFuture(result); // no share group: no initialized partition
            }
            return CompletableFuture.completedFuture(result.setErrorCode(e.error().code()).setErrorMessage(e.getMessage()));
        }
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        asked.forEach((name, partitions) -> {
            TopicImage t = image == null ? null : image.topic(name);
            DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic topic =
                    new DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic().setTopicName(name)
                            .setTopicId(t == null ? new UUID(0, 0) : t.id());
            result.topics().add(topic);
            for (int p : partitions) {
                DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition partition =
                        new DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition()
                                .setPartitionIndex(p).setStartOffset(ShareState.UNINITIALIZED).setLeaderEpoch(0);
                topic.partitions().add(partition);
                if (t == null) {
                    continue;
                }
                pending.add(persister.readSummary(new SharePartitionKey(groupId, t.id(), p), -1)
                        .thenCompose(summary -> lag(name, p, summary).thenAccept(lag -> partition
                                .setStartOffset(summary.startOffset()).setLeaderEpoch(summary.leaderEpoch())
                                .setLag(lag)))
                        .exceptionally(failure -> {
                            Errors error = Errors.forException(unwrap(failure));
                            partition.setErrorCode(error.code()).setErrorMessage(unwrap(failure).getMessage());
                            return null;
                        }));
            }
        });
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(v -> result);
    }

    /** Kafka's lag: end offset - start offset - delivered at or above it; -1 when either is unknown. */
    private CompletableFuture<Long> lag(String topic, int partition, ShareStateSummary summary) {
        if (summary.startOffset() == ShareState.UNINITIALIZED) {
            return CompletableFuture.completedFuture(-1L);
        }
        return endOffsets.endOffset(topic, partition).thenApply(end -> end < 0 ? -1L
                : Math.max(0L, end - summary.startOffset() - summary.deliveryCompleteCount()));
    }

    // ------------------------------------------------------------------ alter

    /** AlterShareGroupOffsets: the group must be an empty share group. */
    CompletableFuture<AlterShareGroupOffsetsResponse> alter(AlterShareGroupOffsetsRequest request) {
        AlterShareGroupOffsetsResponse response = new AlterShareGroupOffsetsResponse();
        ClassicGroup group;
        try {
            group = emptyShareGroup(request.groupId());
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(alterError(request, e));
        }
        MetadataImage image = shared.image();
        Map<UUID, Set<Integer>> altered = new TreeMap<>();
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic topic : request.topics()) {
            TopicImage t = image == null ? null : image.topic(topic.topicName());
            AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic answered =
                    new AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic()
                            .setTopicName(topic.topicName()).setTopicId(t == null ? new UUID(0, 0) : t.id());
            response.responses().add(answered);
            for (AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition p : topic.partitions()) {
                AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition partition =
                        new AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition()
                                .setPartitionIndex(p.partitionIndex());
                answered.partitions().add(partition);
                if (t == null || p.partitionIndex() < 0 || p.partitionIndex() >= t.partitionCount()) {
                    partition.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
                    continue;
                }
                SharePartitionKey key = new SharePartitionKey(request.groupId(), t.id(), p.partitionIndex());
                pending.add(persister.readSummary(key, -1)
                        .thenCompose(summary -> persister.initialize(key, summary.stateEpoch() + 1, p.startOffset()))
                        .handle((ok, failure) -> {
                            if (failure != null) {
                                Throwable cause = unwrap(failure);
                                partition.setErrorCode(Errors.forException(cause).code()).setErrorMessage(cause.getMessage());
                            } else {
                                synchronized (altered) {
                                    altered.computeIfAbsent(key.topicId(), x -> new TreeSet<>()).add(key.partition());
                                }
                            }
                            return null;
                        }));
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            synchronized (group) {
                if (group.share == null || group.is(GroupState.DEAD)) {
                    return CompletableFuture.completedFuture(response);
                }
                synchronized (altered) {
                    ShareGroup.addAll(group.share.initialized, altered);
                }
                return writer.writeShareGroup(group, shared.image()).handle((ok, failure) -> failure == null ? response
                        : alterError(request, new ApiException(GroupContext.groupStoreError(failure),
                                "The group's record was not written")));
            }
        });
    }

    /** A refusal of the whole request: the error at the top, no topics (Kafka 4.4's answer). */
    private static AlterShareGroupOffsetsResponse alterError(AlterShareGroupOffsetsRequest request, ApiException e) {
        return new AlterShareGroupOffsetsResponse().setErrorCode(e.error().code()).setErrorMessage(e.getMessage());
    }

    // ------------------------------------------------------------------ delete

    /** DeleteShareGroupOffsets: the group must be an empty share group; every partition of each topic is forgotten. */
    CompletableFuture<DeleteShareGroupOffsetsResponse> delete(DeleteShareGroupOffsetsRequest request) {
        DeleteShareGroupOffsetsResponse response = new DeleteShareGroupOffsetsResponse();
        ClassicGroup group;
        try {
            group = emptyShareGroup(request.groupId());
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(response.setErrorCode(e.error().code()).setErrorMessage(e.getMessage()));
        }
        MetadataImage image = shared.image();
        Map<UUID, Set<Integer>> deleted = new TreeMap<>();
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic topic : request.topics()) {
            TopicImage t = image == null ? null : image.topic(topic.topicName());
            DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic answered =
                    new DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic()
                            .setTopicName(topic.topicName()).setTopicId(t == null ? new UUID(0, 0) : t.id());
            response.responses().add(answered);
            if (t == null) {
                answered.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
                continue;
            }
            Set<Integer> partitions = new TreeSet<>();
            for (int p = 0; p < t.partitionCount(); p++) {
                partitions.add(p);
            }
            pending.add(deleteStates(request.groupId(), Map.of(t.id(), partitions)).handle((ok, failure) -> {
                if (failure != null) {
                    Throwable cause = unwrap(failure);
                    answered.setErrorCode(Errors.forException(cause).code()).setErrorMessage(cause.getMessage());
                } else {
                    synchronized (deleted) {
                        deleted.put(t.id(), partitions);
                    }
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            synchronized (group) {
                if (group.share == null || group.is(GroupState.DEAD)) {
                    return CompletableFuture.completedFuture(response);
                }
                synchronized (deleted) {
                    ShareGroup.removeAll(group.share.initialized, deleted);
                }
                return writer.writeShareGroup(group, shared.image()).handle((ok, failure) -> failure == null ? response
                        : new DeleteShareGroupOffsetsResponse().setErrorCode(GroupContext.groupStoreError(failure).code())
                                .setErrorMessage("The group's record was not written"));
            }
        });
    }

    /** Deletes the share-partitions' states (DeleteShareGroupState); completes when all are gone. */
    CompletableFuture<Void> deleteStates(String groupId, Map<UUID, Set<Integer>> partitions) {
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        partitions.forEach((topicId, ps) -> ps.forEach(p ->
                calls.add(persister.delete(new SharePartitionKey(groupId, topicId, p)))));
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
    }

    private ClassicGroup emptyShareGroup(String groupId) {
        ClassicGroup group = shareGroup(groupId);
        synchronized (group) {
            if (group.share == null) {
                throw new ApiException(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
            }
            if (!group.share.isEmpty()) {
                throw new ApiException(Errors.NON_EMPTY_GROUP, Errors.NON_EMPTY_GROUP.message());
            }
        }
        return group;
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
