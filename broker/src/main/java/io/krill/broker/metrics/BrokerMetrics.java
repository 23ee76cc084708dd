package io.krill.broker.metrics;

import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.replication.IsrChanger;
import io.krill.broker.replication.ReplicaFetcherManager;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.wire.message.ListGroupsResponse;
import io.krill.wire.message.OffsetFetchResponse;
import io.krill.broker.fetch.FetchSessionCache;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The broker's Prometheus registry and what it reports besides requests: bytes and records in and out
 * per topic (counted by the produce and fetch handlers), and, computed when scraped, log size and
 * segment count per partition, under-replicated and offline partitions, whether this broker is the
 * active controller, groups by state, and consumer lag per group and partition (committed offset to
 * high watermark: built in, where Kafka needs an external exporter). JVM and GC metrics too.
 *
 * <p>Thread-safe: Prometheus metrics are; callbacks read thread-safe broker state.
 */
public final class BrokerMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter bytesIn;
    private final Counter recordsIn;
    private final Counter bytesOut;
    private final Map<String, TopicCounters> byTopic = new ConcurrentHashMap<>();
    private final Function<String, TopicCounters> newTopicCounters;

    public BrokerMetrics() {
        bytesIn = Counter.builder().name("krill_topic_bytes_in_total").help("Bytes appended by producers, by topic")
                .labelNames("topic").register(registry);
        recordsIn = Counter.builder().name("krill_topic_records_in_total").help("Records appended by producers, by topic")
                .labelNames("topic").register(registry);
        bytesOut = Counter.builder().name("krill_topic_bytes_out_total").help("Bytes sent to consumers, by topic")
                .labelNames("topic").register(registry);
        JvmMetrics.builder().register(registry);
        newTopicCounters = topic -> new TopicCounters(bytesIn.labelValues(topic), recordsIn.labelValues(topic),
                bytesOut.labelValues(topic));
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** Counts a produce to {@code topic}; allocates nothing once the topic has been seen. */
    public void produced(String topic, int bytes, int records) {
        TopicCounters counters = topicCounters(topic);
        counters.bytesIn.inc(bytes);
        counters.recordsIn.inc(records);
    }

    /** Counts a fetch from {@code topic}; allocates nothing once the topic has been seen. */
    public void fetched(String topic, long bytes) {
        if (bytes > 0) {
            topicCounters(topic).bytesOut.inc(bytes);
        }
    }

    /**
     * The topic's data points, looked up in Prometheus once: {@code labelValues} allocates a varargs array
     * and a label list on every call, on the produce and fetch paths. Like Prometheus's own children,
     * a deleted topic's counters stay (a recreated topic continues them).
     */
    private TopicCounters topicCounters(String topic) {
        TopicCounters counters = byTopic.get(topic);
        return counters != null ? counters : byTopic.computeIfAbsent(topic, newTopicCounters);
    }

    /** One topic's counters. Immutable; the data points are thread-safe. */
    private record TopicCounters(CounterDataPoint bytesIn, CounterDataPoint recordsIn, CounterDataPoint bytesOut) {
    }

    /** Registers the gauges read from the hosted partitions and the cluster metadata. */
    public void bindPartitions(PartitionManager partitions, MetadataStore metadata, int nodeId) {
        GaugeWithCallback.builder().name("krill_log_size_bytes").help("Size of a partition's log on disk")
                .labelNames("topic", "partition")
                .callback(cb -> {
                    for (Partition p : partitions.partitions()) {
                        cb.call(p.log().size(), p.topicPartition().topic(), Integer.toString(p.topicPartition().partition()));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("krill_log_segments").help("Segments of a partition's log")
                .labelNames("topic", "partition")
                .callback(cb -> {
                    for (Partition p : partitions.partitions()) {
                        cb.call(p.log().numberOfSegments(), p.topicPartition().topic(),
                                Integer.toString(p.topicPartition().partition()));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("krill_under_replicated_partitions")
                .help("Partitions led here whose ISR is smaller than their replica set")
                .callback(cb -> {
                    int count = 0;
                    for (Partition p : partitions.partitions()) {
                        PartitionState state = p.state();
                        if (p.isLeader() && state.isr().size() < state.replicas().size()) {
                            count++;
                        }
                    }
                    cb.call(count);
                }).register(registry);
        GaugeWithCallback.builder().name("krill_offline_partitions").help("Partitions of the cluster with no leader")
                .callback(cb -> {
                    int count = 0;
                    for (TopicImage topic : metadata.image().topics()) {
                        for (PartitionState state : topic.partitions()) {
                            if (!state.hasLeader()) {
                                count++;
                            }
                        }
                    }
                    cb.call(count);
                }).register(registry);
        GaugeWithCallback.builder().name("krill_active_controller").help("1 if this broker is the active controller")
                .callback(cb -> cb.call(metadata.image().controllerId() == nodeId ? 1 : 0)).register(registry);
    }

    /** Registers replication state: ISR changes made here, followed partitions, and each follower's lag. */
    public void bindReplication(IsrChanger isr, ReplicaFetcherManager fetchers, PartitionManager partitions) {
        CounterWithCallback.builder().name("krill_isr_shrinks").help("ISR shrinks made by this broker as leader")
                .callback(cb -> cb.call(isr.isrShrinks())).register(registry);
        CounterWithCallback.builder().name("krill_isr_expands").help("ISR expansions made by this broker as leader")
                .callback(cb -> cb.call(isr.isrExpands())).register(registry);
        GaugeWithCallback.builder().name("krill_replica_fetcher_partitions")
                .help("Partitions this broker follows (fetches from their leaders)")
                .callback(cb -> cb.call(fetchers.followedPartitions())).register(registry);
        GaugeWithCallback.builder().name("krill_replica_lag_records")
                .help("Records a follower lacks, as the leader (this broker) last saw it fetch")
                .labelNames("topic", "partition", "replica")
                .callback(cb -> {
                    for (Partition p : partitions.partitions()) {
                        PartitionState state = p.state();
                        if (!p.isLeader()) {
                            continue;
                        }
                        long end = p.logEndOffset();
                        for (int replica : state.replicas()) {
                            if (replica == state.leader()) {
                                continue;
                            }
                            long followerEnd = p.followerEndOffset(replica);
                            cb.call(followerEnd < 0 ? end : Math.max(0, end - followerEnd), p.topicPartition().topic(),
                                    Integer.toString(p.topicPartition().partition()), Integer.toString(replica));
                        }
                    }
                }).register(registry);
    }

    /** Registers the incremental fetch sessions (KIP-227): how many, their partitions, evictions. */
    public void bindFetchSessions(FetchSessionCache sessions) {
        GaugeWithCallback.builder().name("krill_fetch_sessions").help("Incremental fetch sessions open on this broker")
                .callback(cb -> cb.call(sessions.size())).register(registry);
        GaugeWithCallback.builder().name("krill_fetch_session_partitions")
                .help("Partitions in this broker's incremental fetch sessions")
                .callback(cb -> cb.call(sessions.partitions())).register(registry);
        CounterWithCallback.builder().name("krill_fetch_session_evictions")
                .help("Fetch sessions evicted to make room for new ones")
                .callback(cb -> cb.call(sessions.evictions())).register(registry);
    }

    /** Registers group states and consumer lag, read from the coordinator when scraped. */
    public void bindGroups(GroupCoordinator coordinator, PartitionManager partitions, MetadataStore metadata) {
        GaugeWithCallback.builder().name("krill_groups").help("Consumer groups coordinated here, by state")
                .labelNames("state")
                .callback(cb -> {
                    Map<String, Integer> byState = new HashMap<>();
                    for (ListGroupsResponse.ListedGroup group : coordinator.listGroups(Set.of(), Set.of()).groups()) {
                        byState.merge(group.groupState(), 1, Integer::sum);
                    }
                    byState.forEach((state, count) -> cb.call(count, state));
                }).register(registry);
        GaugeWithCallback.builder().name("krill_consumer_group_lag")
                .help("Records between a group's committed offset and the high watermark, by group and partition")
                .labelNames("group", "topic", "partition")
                .callback(cb -> {
                    MetadataImage image = metadata.image();
                    for (ListGroupsResponse.ListedGroup group : coordinator.listGroups(Set.of(), Set.of()).groups()) {
                        OffsetFetchResponse.OffsetFetchResponseGroup offsets = coordinator.fetchOffsets(group.groupId(), null);
                        for (OffsetFetchResponse.OffsetFetchResponseTopics topic : offsets.topics()) {
                            if (image.topic(topic.name()) == null) {
                                continue;
                            }
                            for (OffsetFetchResponse.OffsetFetchResponsePartitions p : topic.partitions()) {
                                Partition partition = partitions.partition(topic.name(), p.partitionIndex());
                                if (partition != null && p.committedOffset() >= 0) {
                                    cb.call(Math.max(0, partition.highWatermark() - p.committedOffset()), group.groupId(),
                                            topic.name(), Integer.toString(p.partitionIndex()));
                                }
                            }
                        }
                    }
                }).register(registry);
    }
}
