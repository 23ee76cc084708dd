package io.krill.broker.console;

import io.krill.broker.security.authorizer.AclOperation;
import io.krill.broker.security.authorizer.ResourceType;
import io.krill.controller.metadata.PartitionState;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DeleteGroupsRequest;
import io.krill.wire.message.DeleteGroupsResponse;
import io.krill.wire.message.OffsetCommitRequest;
import io.krill.wire.message.OffsetCommitResponse;
import io.krill.wire.message.OffsetDeleteRequest;
import io.krill.wire.message.OffsetDeleteResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The console's group actions, as kafka-consumer-groups does them: reset offsets (--reset-offsets
 * --to-earliest/--to-latest/--to-offset/--to-datetime, for all the group's topics or one, refused unless
 * the group is inactive; {@code dryRun} is --dry-run, else --execute: an admin OffsetCommit, generation -1,
 * to the coordinator), delete the group (--delete: DeleteGroups, refused by the coordinator unless empty)
 * and delete a topic's offsets (--delete-offsets: OffsetDelete). The targets come from ListOffsets at
 * each partition's leader. Each first checks the ACLs Kafka would check for the viewer: READ on the group
 * and its topics to reset, DELETE on the group to delete (and READ on the topic for its offsets).
 *
 * <p>Thread-safety: thread-safe; stateless beyond its collaborators.
 */
final class GroupActions {
    static final short OFFSET_COMMIT_VERSION = 8;
    static final short OFFSET_DELETE_VERSION = 0;
    static final short DELETE_GROUPS_VERSION = 2;
    /** The states kafka-consumer-groups resets offsets in. */
    private static final Set<String> INACTIVE = Set.of("Empty", "Dead");

    /** What one reset moves a partition to. */
    private record Reset(TopicPartition tp, Long current, long target, Long end) {
    }

    private final ConsoleActions actions;
    private final GroupsView groups;

    GroupActions(ConsoleActions actions, GroupsView groups) {
        this.actions = actions;
        this.groups = groups;
    }

    /**
     * {@code POST groups/<id>/offsets/reset} {"strategy": "earliest|latest|offset|timestamp", "topic": t,
     * "offset": n, "timestamp": ms, "dryRun": true}: the new offsets and lag, committed unless dryRun.
     */
    ConsoleActions.Result resetOffsets(ConsoleAccess access, String groupId, JsonBody body) {
        String strategy = body.string("strategy").toLowerCase(Locale.ROOT);
        String topic = body.optionalString("topic");
        long offset = body.number("offset", 0, Long.MAX_VALUE, -1);
        long timestamp = body.number("timestamp", 0, Long.MAX_VALUE, -1);
        boolean dryRun = body.flag("dryRun");
        switch (strategy) {
            case "earliest", "latest" -> { }
            case "offset" -> require(offset >= 0, "strategy offset needs offset (0 or more)");
            case "timestamp" -> require(timestamp >= 0, "strategy timestamp needs timestamp (epoch milliseconds)");
            default -> throw ConsoleException.badRequest("strategy must be earliest, latest, offset or timestamp");
        }
        String what = (dryRun ? "preview reset" : "reset") + " offsets of group " + groupId + " to " + strategy
                + (strategy.equals("offset") ? " " + offset : strategy.equals("timestamp") ? " " + timestamp : "")
                + " for " + (topic == null ? "all its topics" : "topic " + topic);
        return actions.audited(access, what, () -> {
            access.require(AclOperation.READ, ResourceType.GROUP, groupId, Errors.GROUP_AUTHORIZATION_FAILED);
            GroupsView.Snapshot snapshot = groups.describedNow();
            GroupDetail group = snapshot.groups().get(groupId);
            if (group == null && !snapshot.unavailable().isEmpty()) {
                throw ConsoleException.unavailable(Errors.COORDINATOR_NOT_AVAILABLE, "brokers "
                        + snapshot.unavailable() + " did not answer; group " + groupId + " may be theirs");
            }
            if (group != null && group.isShare()) {
                throw ConsoleException.badRequest("group " + groupId + " is a share group: its offsets are "
                        + "share-partition start offsets, which this action does not reset");
            }
            if (group != null && !INACTIVE.contains(group.state())) {
                throw ConsoleActions.failure(Errors.NON_EMPTY_GROUP, "Assignments can only be reset if the group '"
                        + groupId + "' is inactive, but the current state is " + group.state() + ".");
            }
            List<TopicPartition> partitions = partitions(group, topic);
            for (String t : new TreeSet<>(partitions.stream().map(TopicPartition::topic).toList())) {
                access.require(AclOperation.READ, ResourceType.TOPIC, t, Errors.TOPIC_AUTHORIZATION_FAILED);
            }
            Map<TopicPartition, Long> ends = offsets(partitions, ClusterView.LATEST, true);
            Map<TopicPartition, Long> targets = switch (strategy) {
                case "earliest" -> offsets(partitions, ClusterView.EARLIEST, true);
                case "latest" -> ends;
                case "offset" -> clamped(partitions, offset, ends);
                default -> atTimestamp(partitions, timestamp, ends);
            };
            List<Reset> resets = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                GroupDetail.Committed committed = group == null ? null : group.offsets().get(tp);
                resets.add(new Reset(tp, committed == null ? null : committed.offset(), targets.get(tp), ends.get(tp)));
            }
            if (!dryRun) {
                commit(groupId, resets);
            }
            return ConsoleActions.ok(json -> {
                json.writeStringField("groupId", groupId);
                json.writeBooleanField("dryRun", dryRun);
                json.writeArrayFieldStart("partitions");
                for (Reset r : resets) {
                    json.writeStartObject();
                    json.writeStringField("topic", r.tp().topic());
                    json.writeNumberField("partition", r.tp().partition());
                    Json.longOrNull(json, "currentOffset", r.current());
                    json.writeNumberField("newOffset", r.target());
                    Json.longOrNull(json, "endOffset", r.end());
                    Json.longOrNull(json, "lag", r.end() == null ? null : Math.max(0, r.end() - r.target()));
                    json.writeEndObject();
                }
                json.writeEndArray();
            });
        });
    }

    /** {@code DELETE groups/<id>}: DELETE on the group; the coordinator refuses a group with members. */
    ConsoleActions.Result deleteGroup(ConsoleAccess access, String groupId) {
        return actions.audited(access, "delete group " + groupId, () -> {
            access.require(AclOperation.DELETE, ResourceType.GROUP, groupId, Errors.GROUP_AUTHORIZATION_FAILED);
            int coordinator = actions.coordinator(groupId);
            DeleteGroupsRequest request = new DeleteGroupsRequest().setGroupsNames(new ArrayList<>(List.of(groupId)));
            DeleteGroupsResponse.DeletableGroupResult result = actions.await(coordinator, actions.cluster().client()
                    .call(coordinator, ApiKeys.DELETE_GROUPS, DELETE_GROUPS_VERSION, request,
                            (DeleteGroupsResponse response) -> response.results().get(0)));
            ConsoleActions.check(result.errorCode(), result.errorMessage());
            return ConsoleActions.ok(json -> {
                json.writeStringField("groupId", groupId);
                json.writeBooleanField("deleted", true);
            });
        });
    }

    /** {@code DELETE groups/<id>/offsets/<topic>}: DELETE on the group, READ on the topic (as OffsetDelete checks). */
    ConsoleActions.Result deleteOffsets(ConsoleAccess access, String groupId, String topic) {
        return actions.audited(access, "delete offsets of group " + groupId + " for topic " + topic, () -> {
            access.require(AclOperation.DELETE, ResourceType.GROUP, groupId, Errors.GROUP_AUTHORIZATION_FAILED);
            access.require(AclOperation.READ, ResourceType.TOPIC, topic, Errors.TOPIC_AUTHORIZATION_FAILED);
            OffsetDeleteRequest.OffsetDeleteRequestTopic t = new OffsetDeleteRequest.OffsetDeleteRequestTopic()
                    .setName(topic);
            for (PartitionState p : actions.topic(topic).partitions()) {
                t.partitions().add(new OffsetDeleteRequest.OffsetDeleteRequestPartition()
                        .setPartitionIndex(p.partition()));
            }
            OffsetDeleteRequest request = new OffsetDeleteRequest().setGroupId(groupId);
            request.topics().add(t);
            int coordinator = actions.coordinator(groupId);
            List<Integer> deleted = actions.await(coordinator, actions.cluster().client().call(coordinator,
                    ApiKeys.OFFSET_DELETE, OFFSET_DELETE_VERSION, request, (OffsetDeleteResponse response) -> {
                        ConsoleActions.check(response.errorCode(), null);
                        List<Integer> partitions = new ArrayList<>();
                        for (OffsetDeleteResponse.OffsetDeleteResponseTopic rt : response.topics()) {
                            for (OffsetDeleteResponse.OffsetDeleteResponsePartition rp : rt.partitions()) {
                                ConsoleActions.check(rp.errorCode(), null);
                                partitions.add(rp.partitionIndex());
                            }
                        }
                        return partitions;
                    }));
            return ConsoleActions.ok(json -> {
                json.writeStringField("groupId", groupId);
                json.writeStringField("topic", topic);
                Json.intArray(json, "partitions", new TreeSet<>(deleted));
            });
        });
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw ConsoleException.badRequest(message);
        }
    }

    /** Every partition of {@code topic}, or else the partitions the group has offsets for (--all-topics). */
    private List<TopicPartition> partitions(GroupDetail group, String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        if (topic != null) {
            for (PartitionState p : actions.topic(topic).partitions()) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
        } else if (group != null) {
            partitions.addAll(group.offsets().keySet());
        }
        if (partitions.isEmpty()) {
            throw ConsoleException.badRequest("group has no committed offsets: name a topic to reset");
        }
        partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return partitions;
    }

    /**
     * ListOffsets at {@code timestamp} for the partitions, one request per leader; when {@code required}, a
     * partition without an answer fails the action (503).
     */
    private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, long timestamp, boolean required) {
        Map<Integer, List<TopicPartition>> byLeader = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            byLeader.computeIfAbsent(actions.leader(tp), l -> new ArrayList<>()).add(tp);
        }
        Map<Integer, CompletableFuture<Map<TopicPartition, Long>>> futures = new LinkedHashMap<>();
        byLeader.forEach((leader, tps) -> futures.put(leader,
                actions.cluster().listOffsets(leader, tps, timestamp, (byte) 0)));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        futures.forEach((leader, future) -> offsets.putAll(actions.await(leader, future)));
        if (required) {
            for (TopicPartition tp : partitions) {
                if (!offsets.containsKey(tp)) {
                    throw ConsoleActions.failure(Errors.LEADER_NOT_AVAILABLE, "no offset for " + tp + " from its leader");
                }
            }
        }
        return offsets;
    }

    /** --to-offset: the offset, moved into [log start, log end] of each partition, as the tool does. */
    private Map<TopicPartition, Long> clamped(List<TopicPartition> partitions, long offset,
                                              Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> starts = offsets(partitions, ClusterView.EARLIEST, true);
        Map<TopicPartition, Long> targets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            targets.put(tp, Math.max(starts.get(tp), Math.min(offset, ends.get(tp))));
        }
        return targets;
    }

    /** --to-datetime: the first offset at or after the time; the log end where there is none. */
    private Map<TopicPartition, Long> atTimestamp(List<TopicPartition> partitions, long timestamp,
                                                  Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> targets = new HashMap<>(offsets(partitions, timestamp, false));
        for (TopicPartition tp : partitions) {
            targets.putIfAbsent(tp, ends.get(tp));
        }
        return targets;
    }

    /** The admin commit (generation -1, no member) kafka-consumer-groups --execute sends. */
    private void commit(String groupId, List<Reset> resets) {
        OffsetCommitRequest request = new OffsetCommitRequest().setGroupId(groupId).setGenerationIdOrMemberEpoch(-1)
                .setMemberId("").setGroupInstanceId(null);
        Map<String, OffsetCommitRequest.OffsetCommitRequestTopic> topics = new LinkedHashMap<>();
        for (Reset r : resets) {
            topics.computeIfAbsent(r.tp().topic(), name -> {
                OffsetCommitRequest.OffsetCommitRequestTopic t = new OffsetCommitRequest.OffsetCommitRequestTopic()
                        .setName(name);
                request.topics().add(t);
                return t;
            }).partitions().add(new OffsetCommitRequest.OffsetCommitRequestPartition()
                    .setPartitionIndex(r.tp().partition()).setCommittedOffset(r.target()).setCommittedLeaderEpoch(-1)
                    .setCommittedMetadata(""));
        }
        int coordinator = actions.coordinator(groupId);
        actions.await(coordinator, actions.cluster().client().call(coordinator, ApiKeys.OFFSET_COMMIT,
                OFFSET_COMMIT_VERSION, request, (OffsetCommitResponse response) -> {
                    for (OffsetCommitResponse.OffsetCommitResponseTopic t : response.topics()) {
                        for (OffsetCommitResponse.OffsetCommitResponsePartition p : t.partitions()) {
                            ConsoleActions.check(p.errorCode(), null);
                        }
                    }
                    return null;
                }));
    }
}
