package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.TxnOffsetCommitRequest;
import io.krill.wire.message.TxnOffsetCommitResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The groups' transactional offsets (KIP-98, KIP-447): TxnOffsetCommit, verified with the transaction's
 * coordinator first (KIP-890), written as the producer's transactional batch and held pending in the
 * group ({@link PendingTxnOffsets}) until the transaction's marker reaches the partition, then committed
 * or dropped. Apart from {@link OffsetStore} because its life is the transaction's, not the group's.
 *
 * <p>Thread-safety: thread-safe; no state of its own (pending offsets live in their {@link ClassicGroup}).
 * Every operation takes the group's monitor; a verification or write answered later resumes on the
 * coordinator thread and retakes it.
 */
final class TransactionalOffsetStore {
    private final GroupContext shared;
    private final GroupConfig config;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final TxnOffsetCommitVerifier verifier;

    TransactionalOffsetStore(GroupContext shared, TxnOffsetCommitVerifier verifier) {
        this.shared = shared;
        this.config = shared.config();
        this.log = shared.log();
        this.timer = shared.timer();
        this.verifier = verifier;
    }

    private long now() {
        return timer.milliseconds();
    }

    /**
     * TxnOffsetCommit: first the producer's transaction is verified ({@link TxnOffsetCommitVerifier}),
     * unless it already wrote to the group's partition in this transaction; then the offsets are written
     * to the group's partition as one transactional batch of the producer (its epoch fenced by the log)
     * and held as pending: they become the group's committed offsets when the commit marker of the
     * producer's transaction reaches the partition ({@link #onTransactionCompleted}), and are dropped on
     * an abort. A group that does not exist is created (an empty, simple group), as Kafka does; a member
     * id or generation given is checked. A verification answered later (by another broker) resumes on
     * the coordinator thread.
     */
    void commitTransactionalOffsets(TxnOffsetCommitRequest request, short version,
                                    Consumer<TxnOffsetCommitResponse> callback) {
        GroupShard shard;
        try {
            GroupContext.validateGroupId(request.groupId());
            shard = shared.shardFor(request.groupId());
        } catch (ApiException e) {
            callback.accept(txnCommitError(request, e.error()));
            return;
        }
        if (log.hasOngoingTransaction(shard.partition, request.producerId(), request.producerEpoch())) {
            writeTransactionalOffsets(shard, request, callback);
            return;
        }
        CompletableFuture<Errors> verified = verifier.verify(new TopicPartition(GroupCoordinator.TOPIC, shard.partition),
                request.transactionalId(), request.producerId(), request.producerEpoch(), version);
        if (verified.isDone()) {
            afterVerification(shard, request, verified.join(), callback);
        } else {
            verified.thenAccept(error -> timer.execute(() -> afterVerification(shard, request, error, callback)));
        }
    }

    private void afterVerification(GroupShard shard, TxnOffsetCommitRequest request, Errors error,
                                   Consumer<TxnOffsetCommitResponse> callback) {
        if (error == Errors.NONE) {
            writeTransactionalOffsets(shard, request, callback);
        } else {
            callback.accept(txnCommitError(request, error));
        }
    }

    /** The checks of the group and the write, once the transaction is known to include the group. */
    private void writeTransactionalOffsets(GroupShard shard, TxnOffsetCommitRequest request,
                                           Consumer<TxnOffsetCommitResponse> callback) {
        String groupId = request.groupId();
        String memberId = request.memberId() == null ? "" : request.memberId();
        while (true) {
            ClassicGroup group = shard.groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, shard.partition, now()));
            synchronized (group) {
                if (group.is(GroupState.DEAD)) {
                    shard.groups.remove(groupId, group);
                    continue;
                }
                if (group.share != null) {
                    callback.accept(txnCommitError(request, Errors.GROUP_ID_NOT_FOUND));
                    return;
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
                            Errors error = OffsetStore.commitError(failure);
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

    static TxnOffsetCommitResponse txnCommitError(TxnOffsetCommitRequest request, Errors error) {
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
    void onTransactionCompleted(int partition, long producerId, boolean commit) {
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
}
