package io.krill.broker.console;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.DescribeLogDirsRequest;
import io.krill.wire.message.DescribeLogDirsResponse;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.ListOffsetsResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The whole cluster as the console shows it: the topology from this broker's metadata image, and what
 * only the other brokers hold (offsets from the leaders, log sizes from every broker) asked over the
 * inter-broker listener through {@link BrokerClient}, every broker at once, within one deadline. The
 * partition statistics are cached for {@value #CACHE_MS} ms, so a page's several reads (and several
 * viewers) cost one round of requests.
 *
 * <p>Thread-safety: thread-safe; the cache is one volatile reference to an immutable snapshot (two
 * threads may refresh it at once; either result is right).
 */
public final class ClusterView {
    static final long CACHE_MS = 1_500;
    /** ListOffsets v7 (timestamps, the isolation level; no topic ids). */
    static final short LIST_OFFSETS_VERSION = 7;
    static final short DESCRIBE_LOG_DIRS_VERSION = 4;
    static final long EARLIEST = -2L;
    static final long LATEST = -1L;

    private final Supplier<MetadataImage> image;
    private final BrokerClient client;
    private volatile PartitionStats cached;

    public ClusterView(Supplier<MetadataImage> image, BrokerClient client) {
        this.image = image;
        this.client = client;
    }

    public MetadataImage image() {
        return image.get();
    }

    BrokerClient client() {
        return client;
    }

    /** Partition offsets and sizes no older than {@value #CACHE_MS} ms. */
    PartitionStats stats() {
        PartitionStats current = cached;
        long now = System.currentTimeMillis();
        if (current != null && now - current.takenAtMs() < CACHE_MS && now >= current.takenAtMs()) {
            return current;
        }
        PartitionStats fresh = collectStats(image.get());
        cached = fresh;
        return fresh;
    }

    private PartitionStats collectStats(MetadataImage current) {
        Answers answers = new Answers(client.timeoutMs());
        Map<Integer, List<TopicPartition>> byLeader = partitionsByLeader(current, current.topics());
        Map<Integer, CompletableFuture<Map<TopicPartition, Long>>> earliest = new HashMap<>();
        Map<Integer, CompletableFuture<Map<TopicPartition, Long>>> latest = new HashMap<>();
        byLeader.forEach((leader, partitions) -> {
            earliest.put(leader, listOffsets(leader, partitions, EARLIEST, (byte) 0));
            latest.put(leader, listOffsets(leader, partitions, LATEST, (byte) 0));
        });
        Map<Integer, CompletableFuture<Map<TopicPartition, Long>>> sizes = new HashMap<>();
        for (BrokerInfo broker : current.brokers()) {
            sizes.put(broker.nodeId(), logSizes(broker.nodeId()));
        }
        Map<TopicPartition, Long> starts = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        earliest.forEach((leader, future) -> putAll(starts, answers.get(leader, future)));
        latest.forEach((leader, future) -> putAll(ends, answers.get(leader, future)));
        Map<TopicPartition, Map<Integer, Long>> replicaSizes = new HashMap<>();
        sizes.forEach((broker, future) -> {
            Map<TopicPartition, Long> answer = answers.get(broker, future);
            if (answer != null) {
                answer.forEach((tp, size) -> replicaSizes.computeIfAbsent(tp, k -> new HashMap<>()).put(broker, size));
            }
        });
        return new PartitionStats(starts, ends, replicaSizes, answers.unavailable(), System.currentTimeMillis());
    }

    private static void putAll(Map<TopicPartition, Long> into, Map<TopicPartition, Long> answer) {
        if (answer != null) {
            into.putAll(answer);
        }
    }

    /** The partitions of {@code topics} with a leader, grouped by it. */
    static Map<Integer, List<TopicPartition>> partitionsByLeader(MetadataImage current, Collection<TopicImage> topics) {
        Map<Integer, List<TopicPartition>> byLeader = new LinkedHashMap<>();
        for (TopicImage topic : topics) {
            for (PartitionState p : topic.partitions()) {
                if (p.hasLeader() && current.broker(p.leader()) != null) {
                    byLeader.computeIfAbsent(p.leader(), l -> new ArrayList<>())
                            .add(new TopicPartition(topic.name(), p.partition()));
                }
            }
        }
        return byLeader;
    }

    /**
     * The latest (high watermark) offsets of every partition with a live leader: one ListOffsets per
     * leader, all its partitions in it; partitions whose leader did not answer in time are absent.
     */
    Map<TopicPartition, Long> endOffsets(MetadataImage current, Answers answers) {
        Map<Integer, CompletableFuture<Map<TopicPartition, Long>>> latest = new HashMap<>();
        partitionsByLeader(current, current.topics())
                .forEach((leader, partitions) -> latest.put(leader, listOffsets(leader, partitions, LATEST, (byte) 0)));
        Map<TopicPartition, Long> ends = new HashMap<>();
        latest.forEach((leader, future) -> putAll(ends, answers.get(leader, future)));
        return ends;
    }

    /**
     * ListOffsets for {@code partitions} at {@code timestamp} (-2 earliest, -1 latest, or a time) from their
     * leader; partitions answered with an error or no offset are left out.
     */
    CompletableFuture<Map<TopicPartition, Long>> listOffsets(int leader, List<TopicPartition> partitions,
                                                            long timestamp, byte isolationLevel) {
        ListOffsetsRequest request = new ListOffsetsRequest().setReplicaId(-1).setIsolationLevel(isolationLevel);
        Map<String, ListOffsetsRequest.ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            topics.computeIfAbsent(tp.topic(), name -> {
                ListOffsetsRequest.ListOffsetsTopic t = new ListOffsetsRequest.ListOffsetsTopic().setName(name);
                request.topics().add(t);
                return t;
            }).partitions().add(new ListOffsetsRequest.ListOffsetsPartition().setPartitionIndex(tp.partition())
                    .setTimestamp(timestamp));
        }
        return client.call(leader, ApiKeys.LIST_OFFSETS, LIST_OFFSETS_VERSION, request,
                (ListOffsetsResponse response) -> {
                    Map<TopicPartition, Long> offsets = new HashMap<>();
                    for (ListOffsetsResponse.ListOffsetsTopicResponse t : response.topics()) {
                        for (ListOffsetsResponse.ListOffsetsPartitionResponse p : t.partitions()) {
                            if (p.errorCode() == Errors.NONE.code() && p.offset() >= 0) {
                                offsets.put(new TopicPartition(t.name(), p.partitionIndex()), p.offset());
                            }
                        }
                    }
                    return offsets;
                });
    }

    /** One ListOffsets answer for a single partition, its error kept. */
    record OffsetAnswer(Errors error, long offset, long timestamp) {
    }

    CompletableFuture<OffsetAnswer> listOffset(int leader, TopicPartition tp, long timestamp, byte isolationLevel) {
        ListOffsetsRequest request = new ListOffsetsRequest().setReplicaId(-1).setIsolationLevel(isolationLevel);
        request.topics().add(new ListOffsetsRequest.ListOffsetsTopic().setName(tp.topic())
                .setPartitions(new ArrayList<>(List.of(new ListOffsetsRequest.ListOffsetsPartition()
                        .setPartitionIndex(tp.partition()).setTimestamp(timestamp)))));
        return client.call(leader, ApiKeys.LIST_OFFSETS, LIST_OFFSETS_VERSION, request,
                (ListOffsetsResponse response) -> {
                    for (ListOffsetsResponse.ListOffsetsTopicResponse t : response.topics()) {
                        for (ListOffsetsResponse.ListOffsetsPartitionResponse p : t.partitions()) {
                            if (t.name().equals(tp.topic()) && p.partitionIndex() == tp.partition()) {
                                return new OffsetAnswer(Errors.forCode(p.errorCode()), p.offset(), p.timestamp());
                            }
                        }
                    }
                    return new OffsetAnswer(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1);
                });
    }

    /** Every replica's log size on {@code broker} (DescribeLogDirs for all topics), summed over its log dirs. */
    private CompletableFuture<Map<TopicPartition, Long>> logSizes(int broker) {
        DescribeLogDirsRequest request = new DescribeLogDirsRequest().setTopics(null);
        return client.call(broker, ApiKeys.DESCRIBE_LOG_DIRS, DESCRIBE_LOG_DIRS_VERSION, request,
                (DescribeLogDirsResponse response) -> {
                    Map<TopicPartition, Long> sizes = new HashMap<>();
                    for (DescribeLogDirsResponse.DescribeLogDirsResult dir : response.results()) {
                        if (dir.errorCode() != Errors.NONE.code()) {
                            continue;
                        }
                        for (DescribeLogDirsResponse.DescribeLogDirsTopic t : dir.topics()) {
                            for (DescribeLogDirsResponse.DescribeLogDirsPartition p : t.partitions()) {
                                if (!p.isFutureKey()) {
                                    sizes.merge(new TopicPartition(t.name(), p.partitionIndex()), p.partitionSize(),
                                            Long::sum);
                                }
                            }
                        }
                    }
                    return sizes;
                });
    }
}
