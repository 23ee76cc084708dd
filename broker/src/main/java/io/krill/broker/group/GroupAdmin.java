package io.krill.broker.group;

import io.krill.broker.coordinator.CoordinatorLog;
import io.krill.broker.coordinator.CoordinatorTimer;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.message.ListGroupsResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin side of the groups: DescribeGroups (classic groups), ListGroups over every led partition
 * (either protocol) and DeleteGroups (an empty group's offsets and records are tombstoned, then it is
 * removed).
 *
 * <p>Thread-safety: thread-safe; no state of its own (groups through {@link GroupContext}). Each group is
 * read or changed under its own monitor, one group at a time; a deletion's write completion retakes it.
 */
final class GroupAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(GroupAdmin.class);

    static final String CLASSIC_TYPE = "classic";
    static final String CONSUMER_TYPE = "consumer";
    static final String SHARE_TYPE = "share";

    private final GroupContext shared;
    private final CoordinatorLog log;
    private final CoordinatorTimer timer;
    private final ShareGroupOffsets shareOffsets;

    GroupAdmin(GroupContext shared, ShareGroupOffsets shareOffsets) {
        this.shared = shared;
        this.shareOffsets = shareOffsets;
        this.log = shared.log();
        this.timer = shared.timer();
    }

    private long now() {
        return timer.milliseconds();
    }

    /**
     * DescribeGroups for one group: a missing group, or one of another type, is described as Dead; from v6
     * with GROUP_ID_NOT_FOUND and Kafka's message (KIP-1043).
     */
    DescribeGroupsResponse.DescribedGroup describeGroup(String groupId, short version) {
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
            return notFound(described, version, "Classic group " + groupId + " not found.");
        }
        synchronized (group) {
            if (group.consumer != null || group.share != null) {
                // As Kafka 4.4: a group of another type is described as a missing one.
                return notFound(described, version, "Group " + groupId + " is not a classic group.");
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

    /** A group DescribeGroups does not describe: Dead, and from v6 GROUP_ID_NOT_FOUND with a message. */
    private static DescribeGroupsResponse.DescribedGroup notFound(DescribeGroupsResponse.DescribedGroup described,
                                                                 short version, String message) {
        if (version >= 6) {
            described.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage(message);
        }
        return described;
    }

    /**
     * ListGroups over every partition this broker coordinates. {@code states} and {@code types} filter
     * case-insensitively when not empty (types: classic, consumer).
     */
    GroupCoordinator.ListedGroups listGroups(Set<String> states, Set<String> types) {
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
                    String type = group.share != null ? SHARE_TYPE : group.consumer != null ? CONSUMER_TYPE : CLASSIC_TYPE;
                    if (!lowerTypes.isEmpty() && !lowerTypes.contains(type)) {
                        continue;
                    }
                    String state = group.share != null ? group.share.state()
                            : group.consumer != null ? group.consumer.state() : group.state().displayName();
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
        return new GroupCoordinator.ListedGroups(error, listed);
    }

    /** DeleteGroups: empty groups lose their offsets and metadata; others are NON_EMPTY_GROUP. */
    CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
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
            if (!group.is(GroupState.EMPTY) || (group.consumer != null && !group.consumer.isEmpty())
                    || (group.share != null && !group.share.isEmpty())) {
                callback.accept(Errors.NON_EMPTY_GROUP);
                return;
            }
            if (group.share != null) {
                deleteShareGroup(shard, group, callback);
                return;
            }
            List<CoordinatorLog.Entry> entries = OffsetStore.tombstones(group, OffsetStore.allOffsets(group));
            if (group.consumer != null) {
                entries.addAll(ModernGroupRecordWriter.tombstones(groupId, group.consumer.records));
            }
            entries.add(new CoordinatorLog.Entry(GroupRecords.groupKey(groupId), null));
            CompletableFuture<Void> written = log.append(group.partition(), entries);
            if (group.consumer != null) {
                group.consumer.records.appended(written); // if it fails, the tombstones are due again
            }
            written.whenComplete((ok, failure) -> {
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

    /**
     * Deletes an empty share group: first the states of its initialized share-partitions (as Kafka, whose
     * DeleteGroups deletes the share state through the persister before the group's records), then its record.
     * Caller holds the group's monitor; the completions retake it.
     */
    private void deleteShareGroup(GroupShard shard, ClassicGroup group, Consumer<Errors> callback) {
        String groupId = group.groupId();
        ShareGroup sg = group.share;
        Map<java.util.UUID, Set<Integer>> initialized = new java.util.TreeMap<>();
        ShareGroup.addAll(initialized, sg.initialized);
        shareOffsets.deleteStates(groupId, initialized).whenComplete((deleted, failure) -> {
            if (failure != null) {
                callback.accept(Errors.forException(ShareGroupOffsets.unwrap(failure)));
                return;
            }
            synchronized (group) {
                if (group.share != sg || group.is(GroupState.DEAD)) {
                    callback.accept(Errors.GROUP_ID_NOT_FOUND);
                    return;
                }
                if (!sg.isEmpty()) {
                    callback.accept(Errors.NON_EMPTY_GROUP); // a member joined meanwhile
                    return;
                }
                List<CoordinatorLog.Entry> entries = new ArrayList<>(ModernGroupRecordWriter.tombstones(groupId, sg.records));
                entries.add(new CoordinatorLog.Entry(GroupRecords.groupKey(groupId), null));
                CompletableFuture<Void> written = log.append(group.partition(), entries);
                sg.records.appended(written);
                written.whenComplete((ok, writeFailure) -> {
                            synchronized (group) {
                                if (writeFailure != null) {
                                    callback.accept(GroupContext.groupStoreError(writeFailure));
                                    return;
                                }
                                if (!group.is(GroupState.DEAD)) {
                                    group.transitionTo(GroupState.DEAD, now());
                                }
                                shard.groups.remove(groupId, group);
                            }
                            LOG.info("Deleted share group {}", groupId);
                            callback.accept(Errors.NONE);
                        });
            }
        });
    }
}
