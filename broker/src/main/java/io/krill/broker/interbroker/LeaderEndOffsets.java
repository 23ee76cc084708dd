package io.krill.broker.interbroker;

import io.krill.broker.group.PartitionEndOffsets;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.TopicPartition;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.ListOffsetsRequest;
import io.krill.wire.message.ListOffsetsResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end offsets of a share group's lag (DescribeShareGroupOffsets v1, KIP-1226) from the partitions'
 * leaders, as Kafka 4.4's group coordinator gets them: the high watermark of this broker's replica when this
 * broker leads the partition, otherwise a ListOffsets for the latest offset (timestamp -1, read_uncommitted,
 * replica id -1 as a consumer sends it, which a leader answers with its high watermark) to the leader the
 * current metadata image names, over the inter-broker listener. Why the leader: a follower's high watermark
 * lags the leader's, and a broker holding no replica (the group coordinator of a partition on other brokers)
 * knows none at all.
 *
 * <p>Threads: {@link #endOffset} never blocks (a request thread, the group coordinator or the share-state
 * sender may call it). A remote ask is queued on a {@link BrokerOutbox}: one queue and one thread per leader
 * ({@code end-offsets-<node>-to-<leader>}), which sends everything queued for that leader as one ListOffsets
 * request (each partition once, however many asks wait for it) and completes the asks' futures on that
 * thread, so what callers chain on them runs there and must not block. The wait is bounded by the outbox's
 * timeout (connect, and then the answer, each within {@code request.timeout.ms}).
 *
 * <p>Failures never fail the future: an unknown partition, one without a leader (or whose leader has no
 * endpoint on the inter-broker listener), a partition the leader refuses (NOT_LEADER_OR_FOLLOWER, ...) or
 * leaves out of its answer, a connection that fails or times out, an unreadable answer, and asks still queued
 * at {@link #close}, all complete with -1: the lag is unknown, as Kafka answers when it cannot tell. Each is
 * logged at debug level. There is no retry (Kafka 4.4's {@code NetworkPartitionMetadataClient} retries a
 * failed request up to five times with backoff): the next DescribeShareGroupOffsets asks again.
 *
 * <p>Thread-safety: thread-safe; the only state is the outbox (concurrent queues, each destination's channel
 * owned by its thread); the image and the local replicas are read through the suppliers given. Each ask's
 * future is completed once.
 */
public final class LeaderEndOffsets implements PartitionEndOffsets, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderEndOffsets.class);
    /** ListOffsets v10, the newest every Krill broker serves. */
    static final short VERSION = 10;
    static final long LATEST_TIMESTAMP = -1L;
    static final byte READ_UNCOMMITTED = 0;
    static final int CONSUMER_REPLICA_ID = -1;
    private static final long UNKNOWN = -1L;
    private static final int MAX_PER_REQUEST = 1000;
    private static final int MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

    /** This broker's own replicas. */
    @FunctionalInterface
    public interface LocalLeaders {
        /** The high watermark of {@code topic}-{@code partition} when this broker leads it now, else -1. */
        long highWatermarkIfLeader(String topic, int partition);
    }

    /** One end offset asked of a remote leader. */
    private record Ask(TopicPartition partition, CompletableFuture<Long> future) {
        void unknown(String why, Object... args) {
            future.complete(LeaderEndOffsets.unknown(partition.topic(), partition.partition(), why, args));
        }
    }

    private final int nodeId;
    private final Supplier<MetadataImage> image;
    private final LocalLeaders local;
    private final String listenerName;
    private final int timeoutMs;
    private final BrokerOutbox<Ask> outbox;

    /**
     * @param image        the current metadata image (where the leaders are)
     * @param local        this broker's high watermark of a partition it leads
     * @param listenerName the listener to reach other brokers on (the inter-broker one)
     * @param timeoutMs    connect timeout and the longest wait for an answer ({@code request.timeout.ms})
     */
    public LeaderEndOffsets(int nodeId, Supplier<MetadataImage> image, LocalLeaders local, String listenerName,
                            InterBrokerConnector connector, int timeoutMs) {
        this.nodeId = nodeId;
        this.image = image;
        this.local = local;
        this.listenerName = listenerName;
        this.timeoutMs = timeoutMs;
        this.outbox = new BrokerOutbox<>("end-offsets-" + nodeId, connector, timeoutMs, MAX_RESPONSE_BYTES,
                MAX_PER_REQUEST, new BrokerOutbox.Sender<>() {
                    @Override
                    public void send(BrokerOutbox.Destination<Ask> destination, List<Ask> batch) {
                        LeaderEndOffsets.this.send(destination, batch);
                    }

                    @Override
                    public void leftOver(List<Ask> asks) {
                        asks.forEach(a -> a.unknown("not sent (the broker is stopping or the leader moved)"));
                    }
                });
    }

    /** The partition's high watermark from its leader; -1 when it cannot be told. Never fails, never blocks. */
    @Override
    public CompletableFuture<Long> endOffset(String topic, int partition) {
        try {
            return ask(topic, partition);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(unknown(topic, partition, "{}", String.valueOf(e)));
        }
    }

    private CompletableFuture<Long> ask(String topic, int partition) {
        long here = local.highWatermarkIfLeader(topic, partition);
        if (here >= 0) {
            return CompletableFuture.completedFuture(here);
        }
        if (outbox.isClosed()) {
            return CompletableFuture.completedFuture(unknown(topic, partition, "the broker is stopping"));
        }
        MetadataImage current = image.get();
        TopicImage t = current == null ? null : current.topic(topic);
        PartitionState state = t == null ? null : t.partition(partition);
        if (state == null) {
            return CompletableFuture.completedFuture(unknown(topic, partition, "no such partition in the metadata"));
        }
        if (!state.hasLeader()) {
            return CompletableFuture.completedFuture(unknown(topic, partition, "no leader"));
        }
        if (state.leader() == nodeId) {
            return CompletableFuture.completedFuture(unknown(topic, partition,
                    "this broker is named its leader but does not lead it (yet)"));
        }
        BrokerInfo leader = current.broker(state.leader());
        BrokerInfo.Endpoint endpoint = leader == null ? null : leader.endpoint(listenerName);
        if (endpoint == null) {
            return CompletableFuture.completedFuture(unknown(topic, partition, "leader {} has no endpoint on {}",
                    state.leader(), listenerName));
        }
        Ask ask = new Ask(new TopicPartition(topic, partition), new CompletableFuture<>());
        outbox.add(leader.nodeId(), new InetSocketAddress(endpoint.host(), endpoint.port()), ask);
        return ask.future();
    }

    /** One ListOffsets for everything queued for {@code destination}; each partition once. */
    private void send(BrokerOutbox.Destination<Ask> destination, List<Ask> batch) {
        Map<TopicPartition, List<Ask>> byPartition = new LinkedHashMap<>();
        for (Ask ask : batch) {
            byPartition.computeIfAbsent(ask.partition(), p -> new ArrayList<>(1)).add(ask);
        }
        ListOffsetsRequest request = new ListOffsetsRequest().setReplicaId(CONSUMER_REPLICA_ID)
                .setIsolationLevel(READ_UNCOMMITTED).setTimeoutMs(timeoutMs);
        Map<String, ListOffsetsRequest.ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (TopicPartition tp : byPartition.keySet()) {
            topics.computeIfAbsent(tp.topic(), name -> {
                ListOffsetsRequest.ListOffsetsTopic t = new ListOffsetsRequest.ListOffsetsTopic().setName(name);
                request.topics().add(t);
                return t;
            }).partitions().add(new ListOffsetsRequest.ListOffsetsPartition().setPartitionIndex(tp.partition())
                    .setCurrentLeaderEpoch(-1).setTimestamp(LATEST_TIMESTAMP));
        }
        ListOffsetsResponse response;
        try {
            response = destination.channel().call(ApiKeys.LIST_OFFSETS, VERSION, request);
        } catch (IOException e) {
            destination.disconnect();
            byPartition.values().forEach(asks -> asks.forEach(a -> a.unknown("ListOffsets to broker {} failed: {}",
                    destination.brokerId, e.getMessage())));
            return;
        } catch (RuntimeException e) {
            destination.disconnect();
            byPartition.values().forEach(asks -> asks.forEach(a -> a.unknown("ListOffsets to broker {}: {}",
                    destination.brokerId, String.valueOf(e))));
            return;
        }
        Map<TopicPartition, ListOffsetsResponse.ListOffsetsPartitionResponse> answers = new HashMap<>();
        for (ListOffsetsResponse.ListOffsetsTopicResponse t : response.topics()) {
            for (ListOffsetsResponse.ListOffsetsPartitionResponse p : t.partitions()) {
                answers.put(new TopicPartition(t.name(), p.partitionIndex()), p);
            }
        }
        byPartition.forEach((tp, asks) -> {
            ListOffsetsResponse.ListOffsetsPartitionResponse answer = answers.get(tp);
            for (Ask ask : asks) {
                if (answer == null) {
                    ask.unknown("broker {} did not answer for it", destination.brokerId);
                } else if (answer.errorCode() != Errors.NONE.code()) {
                    ask.unknown("broker {} answered {}", destination.brokerId, Errors.forCode(answer.errorCode()));
                } else if (answer.offset() < 0) {
                    ask.unknown("broker {} answered offset {}", destination.brokerId, answer.offset());
                } else {
                    ask.future().complete(answer.offset());
                }
            }
        });
    }

    /** Logs (debug) why the end offset of {@code topic}-{@code partition} is unknown; returns -1. */
    private static long unknown(String topic, int partition, String why, Object... args) {
        if (LOG.isDebugEnabled()) {
            Object[] all = new Object[args.length + 2];
            all[0] = topic;
            all[1] = partition;
            System.arraycopy(args, 0, all, 2, args.length);
            LOG.debug("End offset of {}-{} unknown (lag -1): " + why, all);
        }
        return UNKNOWN;
    }

    /** Stops the leaders' threads; asks not answered yet complete with -1. */
    @Override
    public void close() {
        outbox.close();
    }
}
