package io.krill.broker.console;

import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The group answers of the console API ({@code /console/api/groups}, {@code /groups/<id>}): groups the
 * principal may DESCRIBE, and within them only the topics it may DESCRIBE. Lag per partition is the end
 * offset (the leader's high watermark) minus the committed offset; for share groups the coordinator's lag
 * (DescribeShareGroupOffsets v1), else end minus the share-partition start offset.
 *
 * <p>Thread-safety: stateless beyond its thread-safe views.
 */
final class GroupsApi {
    private final ClusterView cluster;
    private final GroupsView groups;

    GroupsApi(ClusterView cluster, GroupsView groups) {
        this.cluster = cluster;
        this.groups = groups;
    }

    /** A partition's lag, or null when its end offset is not known. */
    static Long lag(GroupDetail.Committed committed, Long endOffset) {
        if (committed.lag() != null) {
            return committed.lag();
        }
        return endOffset == null ? null : Math.max(0, endOffset - committed.offset());
    }

    /** The group's total lag over the topics the principal may see; null when no partition's lag is known. */
    static Long totalLag(GroupDetail group, Map<TopicPartition, Long> ends, ConsoleAccess access) {
        Long total = null;
        for (Map.Entry<TopicPartition, GroupDetail.Committed> e : group.offsets().entrySet()) {
            if (access != null && !access.describeTopic(e.getKey().topic())) {
                continue;
            }
            Long lag = lag(e.getValue(), ends.get(e.getKey()));
            if (lag != null) {
                total = (total == null ? 0 : total) + lag;
            }
        }
        return total;
    }

    byte[] list(ConsoleAccess access) {
        GroupsView.Snapshot snapshot = groups.described();
        PartitionStats stats = cluster.stats();
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeArrayFieldStart("groups");
            for (GroupDetail g : snapshot.groups().values()) {
                if (!access.describeGroup(g.groupId())) {
                    continue;
                }
                json.writeStartObject();
                json.writeStringField("groupId", g.groupId());
                json.writeStringField("type", g.type());
                json.writeStringField("protocolType", g.protocolType());
                json.writeStringField("state", g.state());
                json.writeNumberField("members", g.members() == null ? 0 : g.members().size());
                json.writeNumberField("coordinator", g.coordinator());
                Json.longOrNull(json, "lag", totalLag(g, stats.endOffsets(), access));
                json.writeEndObject();
            }
            json.writeEndArray();
            TreeSet<Integer> missing = new TreeSet<>(snapshot.unavailable());
            missing.addAll(stats.unavailable());
            TopicsApi.unavailable(json, missing);
            json.writeEndObject();
        });
    }

    byte[] group(ConsoleAccess access, String groupId) {
        if (!access.describeGroup(groupId)) {
            throw ConsoleException.forbidden(Errors.GROUP_AUTHORIZATION_FAILED, "not authorized to describe group "
                    + groupId);
        }
        GroupsView.Snapshot snapshot = groups.described();
        GroupDetail g = snapshot.groups().get(groupId);
        if (g == null) {
            if (!snapshot.unavailable().isEmpty()) {
                throw ConsoleException.unavailable(Errors.COORDINATOR_NOT_AVAILABLE, "brokers "
                        + snapshot.unavailable() + " did not answer; group " + groupId + " may be theirs");
            }
            throw ConsoleException.notFound(Errors.GROUP_ID_NOT_FOUND, "no group " + groupId);
        }
        PartitionStats stats = cluster.stats();
        List<TopicPartition> partitions = new ArrayList<>(g.offsets().keySet());
        partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return Json.bytes(json -> {
            json.writeStartObject();
            json.writeStringField("groupId", g.groupId());
            json.writeStringField("type", g.type());
            json.writeStringField("protocolType", g.protocolType());
            json.writeStringField("state", g.state());
            json.writeNumberField("coordinator", g.coordinator());
            json.writeStringField("assignor", g.assignor());
            json.writeArrayFieldStart("members");
            for (GroupDetail.Member m : g.members() == null ? List.<GroupDetail.Member>of() : g.members()) {
                json.writeStartObject();
                json.writeStringField("memberId", m.memberId());
                json.writeStringField("clientId", m.clientId());
                json.writeStringField("host", m.host());
                json.writeStringField("instanceId", m.instanceId());
                json.writeArrayFieldStart("assignment");
                for (Map.Entry<String, List<Integer>> a : new java.util.TreeMap<>(m.assignment()).entrySet()) {
                    if (!access.describeTopic(a.getKey())) {
                        continue;
                    }
                    json.writeStartObject();
                    json.writeStringField("topic", a.getKey());
                    Json.intArray(json, "partitions", new TreeSet<>(a.getValue()));
                    json.writeEndObject();
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeArrayFieldStart("offsets");
            for (TopicPartition tp : partitions) {
                if (!access.describeTopic(tp.topic())) {
                    continue;
                }
                GroupDetail.Committed committed = g.offsets().get(tp);
                Long end = stats.endOffsets().get(tp);
                json.writeStartObject();
                json.writeStringField("topic", tp.topic());
                json.writeNumberField("partition", tp.partition());
                json.writeNumberField("committedOffset", committed.offset());
                Json.longOrNull(json, "endOffset", end);
                Json.longOrNull(json, "lag", lag(committed, end));
                json.writeStringField("metadata", committed.metadata());
                json.writeEndObject();
            }
            json.writeEndArray();
            TopicsApi.unavailable(json, stats.unavailable());
            json.writeEndObject();
        });
    }
}
