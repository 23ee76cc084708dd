package io.krill.broker.console;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ConsumerGroupDescribeRequest;
import io.krill.wire.message.ConsumerGroupDescribeResponse;
import io.krill.wire.message.ConsumerProtocolAssignment;
import io.krill.wire.message.DescribeGroupsRequest;
import io.krill.wire.message.DescribeGroupsResponse;
import io.krill.wire.message.DescribeShareGroupOffsetsRequest;
import io.krill.wire.message.DescribeShareGroupOffsetsResponse;
import io.krill.wire.message.ListGroupsRequest;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.message.OffsetFetchRequest;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.wire.message.ShareGroupDescribeRequest;
import io.krill.wire.message.ShareGroupDescribeResponse;
import io.krill.wire.protocol.MalformedMessageException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's groups: every broker's ListGroups (a broker lists the groups it coordinates), then at each
 * coordinator, batched per group type, DescribeGroups (classic), ConsumerGroupDescribe (KIP-848),
 * ShareGroupDescribe, and the offsets: OffsetFetch (all groups of that coordinator in one request, every
 * partition) or DescribeShareGroupOffsets v1 (share-partition start offsets and lag). Described snapshots
 * are cached for {@link ClusterView#CACHE_MS} ms.
 *
 * <p>Thread-safety: thread-safe; the cache is a volatile reference to an immutable snapshot.
 */
final class GroupsView {
    static final short LIST_GROUPS_VERSION = 5;
    static final short DESCRIBE_GROUPS_VERSION = 5;
    static final short CONSUMER_GROUP_DESCRIBE_VERSION = 1;
    static final short SHARE_GROUP_DESCRIBE_VERSION = 1;
    static final short OFFSET_FETCH_VERSION = 8;
    static final short DESCRIBE_SHARE_GROUP_OFFSETS_VERSION = 1;

    /** Groups by id, and the brokers that did not answer. Immutable. */
    record Snapshot(Map<String, GroupDetail> groups, Set<Integer> unavailable, long takenAtMs) {
        Snapshot {
            groups = java.util.Collections.unmodifiableMap(new TreeMap<>(groups));
            unavailable = Set.copyOf(unavailable);
        }
    }

    private record Listed(String groupId, String type, String protocolType, String state) {
    }

    private final ClusterView cluster;
    private volatile Snapshot cached;

    GroupsView(ClusterView cluster) {
        this.cluster = cluster;
    }

    /** Every group, described, with its offsets; no older than {@link ClusterView#CACHE_MS} ms. */
    Snapshot described() {
        Snapshot current = cached;
        long now = System.currentTimeMillis();
        if (current != null && now - current.takenAtMs() < ClusterView.CACHE_MS && now >= current.takenAtMs()) {
            return current;
        }
        return describedNow();
    }

    /** Every group, described now (not from the cache, which it refreshes): what an action decides on. */
    Snapshot describedNow() {
        Snapshot fresh = collect(true);
        cached = fresh;
        return fresh;
    }

    /** Every group's offsets, members not described: the history's sample. */
    Snapshot offsets() {
        return collect(false);
    }

    private Snapshot collect(boolean describe) {
        MetadataImage image = cluster.image();
        BrokerClient client = cluster.client();
        Answers answers = new Answers(client.timeoutMs());
        Map<Integer, CompletableFuture<List<Listed>>> listings = new LinkedHashMap<>();
        for (BrokerInfo broker : image.brokers()) {
            listings.put(broker.nodeId(), list(broker.nodeId()));
        }
        Map<Integer, List<Listed>> byCoordinator = new LinkedHashMap<>();
        listings.forEach((broker, future) -> {
            List<Listed> listed = answers.get(broker, future);
            if (listed != null && !listed.isEmpty()) {
                byCoordinator.put(broker, listed);
            }
        });
        Map<Integer, CompletableFuture<List<GroupDetail>>> details = new LinkedHashMap<>();
        byCoordinator.forEach((broker, listed) -> details.put(broker, details(broker, listed, describe)));
        Map<String, GroupDetail> groups = new HashMap<>();
        details.forEach((broker, future) -> {
            List<GroupDetail> answer = answers.get(broker, future);
            if (answer != null) {
                answer.forEach(g -> groups.put(g.groupId(), g));
            }
        });
        return new Snapshot(groups, answers.unavailable(), System.currentTimeMillis());
    }

    private CompletableFuture<List<Listed>> list(int broker) {
        return cluster.client().call(broker, ApiKeys.LIST_GROUPS, LIST_GROUPS_VERSION, new ListGroupsRequest(),
                (ListGroupsResponse response) -> {
                    List<Listed> listed = new ArrayList<>();
                    if (response.errorCode() == Errors.NONE.code()) {
                        for (ListGroupsResponse.ListedGroup g : response.groups()) {
                            String type = g.groupType() == null || g.groupType().isEmpty() ? "classic"
                                    : g.groupType().toLowerCase(java.util.Locale.ROOT);
                            listed.add(new Listed(g.groupId(), type, g.protocolType(), g.groupState()));
                        }
                    }
                    return listed;
                });
    }

    /** The groups of one coordinator: described per type (when asked) and their offsets, all requests at once. */
    private CompletableFuture<List<GroupDetail>> details(int coordinator, List<Listed> listed, boolean describe) {
        List<String> classic = new ArrayList<>();
        List<String> consumer = new ArrayList<>();
        List<String> share = new ArrayList<>();
        List<String> withOffsets = new ArrayList<>();
        for (Listed g : listed) {
            switch (g.type()) {
                case "share" -> share.add(g.groupId());
                case "consumer" -> {
                    consumer.add(g.groupId());
                    withOffsets.add(g.groupId());
                }
                case "classic" -> {
                    classic.add(g.groupId());
                    withOffsets.add(g.groupId());
                }
                default -> withOffsets.add(g.groupId());
            }
        }
        BrokerClient client = cluster.client();
        CompletableFuture<Map<String, Described>> classicDescribed = describe && !classic.isEmpty()
                ? client.call(coordinator, ApiKeys.DESCRIBE_GROUPS, DESCRIBE_GROUPS_VERSION,
                        new DescribeGroupsRequest().setGroups(classic), GroupsView::classic)
                : CompletableFuture.completedFuture(Map.of());
        CompletableFuture<Map<String, Described>> consumerDescribed = describe && !consumer.isEmpty()
                ? client.call(coordinator, ApiKeys.CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_DESCRIBE_VERSION,
                        new ConsumerGroupDescribeRequest().setGroupIds(consumer), GroupsView::consumer)
                : CompletableFuture.completedFuture(Map.of());
        CompletableFuture<Map<String, Described>> shareDescribed = describe && !share.isEmpty()
                ? client.call(coordinator, ApiKeys.SHARE_GROUP_DESCRIBE, SHARE_GROUP_DESCRIBE_VERSION,
                        new ShareGroupDescribeRequest().setGroupIds(share), GroupsView::share)
                : CompletableFuture.completedFuture(Map.of());
        CompletableFuture<Map<String, Map<TopicPartition, GroupDetail.Committed>>> committed = withOffsets.isEmpty()
                ? CompletableFuture.completedFuture(Map.of()) : offsetFetch(coordinator, withOffsets);
        CompletableFuture<Map<String, Map<TopicPartition, GroupDetail.Committed>>> shareOffsets = share.isEmpty()
                ? CompletableFuture.completedFuture(Map.of()) : shareOffsets(coordinator, share);
        return CompletableFuture.allOf(classicDescribed, consumerDescribed, shareDescribed, committed, shareOffsets)
                .thenApply(done -> {
                    Map<String, Described> described = new HashMap<>();
                    described.putAll(classicDescribed.join());
                    described.putAll(consumerDescribed.join());
                    described.putAll(shareDescribed.join());
                    Map<String, Map<TopicPartition, GroupDetail.Committed>> offsets = new HashMap<>(committed.join());
                    offsets.putAll(shareOffsets.join());
                    List<GroupDetail> result = new ArrayList<>();
                    for (Listed g : listed) {
                        Described d = described.get(g.groupId());
                        result.add(new GroupDetail(g.groupId(), g.type(), g.protocolType(),
                                d != null && d.state() != null ? d.state() : g.state(), coordinator,
                                d == null ? null : d.assignor(), d == null ? (describe ? List.of() : null) : d.members(),
                                offsets.getOrDefault(g.groupId(), Map.of())));
                    }
                    return result;
                });
    }

    private record Described(String state, String assignor, List<GroupDetail.Member> members) {
    }

    private static Map<String, Described> classic(DescribeGroupsResponse response) {
        Map<String, Described> result = new HashMap<>();
        for (DescribeGroupsResponse.DescribedGroup g : response.groups()) {
            if (g.errorCode() != Errors.NONE.code()) {
                continue;
            }
            List<GroupDetail.Member> members = new ArrayList<>();
            for (DescribeGroupsResponse.DescribedGroupMember m : g.members()) {
                Map<String, List<Integer>> assignment = "consumer".equals(g.protocolType())
                        ? consumerAssignment(m.memberAssignment()) : Map.of();
                members.add(new GroupDetail.Member(m.memberId(), m.clientId(), m.clientHost(), m.groupInstanceId(),
                        assignment));
            }
            result.put(g.groupId(), new Described(g.groupState(), g.protocolData(), members));
        }
        return result;
    }

    private static Map<String, Described> consumer(ConsumerGroupDescribeResponse response) {
        Map<String, Described> result = new HashMap<>();
        for (ConsumerGroupDescribeResponse.DescribedGroup g : response.groups()) {
            if (g.errorCode() != Errors.NONE.code()) {
                continue;
            }
            List<GroupDetail.Member> members = new ArrayList<>();
            for (ConsumerGroupDescribeResponse.Member m : g.members()) {
                Map<String, List<Integer>> assignment = new TreeMap<>();
                if (m.assignment() != null) {
                    for (ConsumerGroupDescribeResponse.TopicPartitions tp : m.assignment().topicPartitions()) {
                        assignment.put(tp.topicName(), List.copyOf(tp.partitions()));
                    }
                }
                members.add(new GroupDetail.Member(m.memberId(), m.clientId(), m.clientHost(), m.instanceId(),
                        assignment));
            }
            result.put(g.groupId(), new Described(consumerState(g.groupState()), g.assignorName(), members));
        }
        return result;
    }

    private static Map<String, Described> share(ShareGroupDescribeResponse response) {
        Map<String, Described> result = new HashMap<>();
        for (ShareGroupDescribeResponse.DescribedGroup g : response.groups()) {
            if (g.errorCode() != Errors.NONE.code()) {
                continue;
            }
            List<GroupDetail.Member> members = new ArrayList<>();
            for (ShareGroupDescribeResponse.Member m : g.members()) {
                Map<String, List<Integer>> assignment = new TreeMap<>();
                if (m.assignment() != null) {
                    for (ShareGroupDescribeResponse.TopicPartitions tp : m.assignment().topicPartitions()) {
                        assignment.put(tp.topicName(), List.copyOf(tp.partitions()));
                    }
                }
                members.add(new GroupDetail.Member(m.memberId(), m.clientId(), m.clientHost(), null, assignment));
            }
            result.put(g.groupId(), new Described(consumerState(g.groupState()), g.assignorName(), members));
        }
        return result;
    }

    /** KIP-848 and share group states as kafka-consumer-groups prints them ("Stable", not "stable"). */
    static String consumerState(String state) {
        if (state == null || state.isEmpty()) {
            return state;
        }
        return switch (state.toLowerCase(java.util.Locale.ROOT)) {
            case "empty" -> "Empty";
            case "assigning" -> "Assigning";
            case "reconciling" -> "Reconciling";
            case "stable" -> "Stable";
            case "dead" -> "Dead";
            case "notready", "not_ready" -> "NotReady";
            default -> state;
        };
    }

    /** A classic consumer member's assignment (the consumer protocol's Assignment); empty when unreadable. */
    static Map<String, List<Integer>> consumerAssignment(byte[] bytes) {
        Map<String, List<Integer>> assignment = new TreeMap<>();
        if (bytes == null || bytes.length < 2) {
            return assignment;
        }
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        try {
            short version = buf.readShort();
            if (version < 0) {
                return assignment;
            }
            ConsumerProtocolAssignment decoded = new ConsumerProtocolAssignment();
            decoded.read(buf, (short) Math.min(version, 3));
            for (ConsumerProtocolAssignment.TopicPartition tp : decoded.assignedPartitions()) {
                assignment.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).addAll(tp.partitions());
            }
        } catch (MalformedMessageException | IndexOutOfBoundsException e) {
            assignment.clear();
        }
        return assignment;
    }

    /** OffsetFetch v8 for {@code groups} (every partition each committed). */
    private CompletableFuture<Map<String, Map<TopicPartition, GroupDetail.Committed>>> offsetFetch(int coordinator,
                                                                                                   List<String> groups) {
        OffsetFetchRequest request = new OffsetFetchRequest();
        for (String group : groups) {
            request.groups().add(new OffsetFetchRequest.OffsetFetchRequestGroup().setGroupId(group).setTopics(null));
        }
        return cluster.client().call(coordinator, ApiKeys.OFFSET_FETCH, OFFSET_FETCH_VERSION, request,
                (OffsetFetchResponse response) -> {
                    Map<String, Map<TopicPartition, GroupDetail.Committed>> result = new HashMap<>();
                    for (OffsetFetchResponse.OffsetFetchResponseGroup g : response.groups()) {
                        if (g.errorCode() != Errors.NONE.code()) {
                            continue;
                        }
                        Map<TopicPartition, GroupDetail.Committed> offsets = new HashMap<>();
                        for (OffsetFetchResponse.OffsetFetchResponseTopics t : g.topics()) {
                            for (OffsetFetchResponse.OffsetFetchResponsePartitions p : t.partitions()) {
                                if (p.errorCode() == Errors.NONE.code() && p.committedOffset() >= 0) {
                                    offsets.put(new TopicPartition(t.name(), p.partitionIndex()),
                                            new GroupDetail.Committed(p.committedOffset(), p.metadata(), null));
                                }
                            }
                        }
                        result.put(g.groupId(), offsets);
                    }
                    return result;
                });
    }

    /** DescribeShareGroupOffsets v1 for {@code groups}: every share-partition's start offset and lag. */
    private CompletableFuture<Map<String, Map<TopicPartition, GroupDetail.Committed>>> shareOffsets(int coordinator,
                                                                                                    List<String> groups) {
        DescribeShareGroupOffsetsRequest request = new DescribeShareGroupOffsetsRequest();
        for (String group : groups) {
            request.groups().add(new DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup()
                    .setGroupId(group).setTopics(null));
        }
        return cluster.client().call(coordinator, ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
                DESCRIBE_SHARE_GROUP_OFFSETS_VERSION, request, (DescribeShareGroupOffsetsResponse response) -> {
                    Map<String, Map<TopicPartition, GroupDetail.Committed>> result = new HashMap<>();
                    for (DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup g : response.groups()) {
                        if (g.errorCode() != Errors.NONE.code()) {
                            continue;
                        }
                        Map<TopicPartition, GroupDetail.Committed> offsets = new HashMap<>();
                        for (DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic t : g.topics()) {
                            for (DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition p
                                    : t.partitions()) {
                                if (p.errorCode() == Errors.NONE.code() && p.startOffset() >= 0) {
                                    offsets.put(new TopicPartition(t.topicName(), p.partitionIndex()),
                                            new GroupDetail.Committed(p.startOffset(), "",
                                                    p.lag() >= 0 ? p.lag() : null));
                                }
                            }
                        }
                        result.put(g.groupId(), offsets);
                    }
                    return result;
                });
    }
}
