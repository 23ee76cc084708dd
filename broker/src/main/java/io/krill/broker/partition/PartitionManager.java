package io.krill.broker.partition;

import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.TopicConfig;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.LogManager;
import io.krill.log.PartitionLog;
import io.krill.log.TopicPartition;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker hosts, kept in step with cluster metadata: a partition whose replicas
 * include this broker gets a log and a {@link Partition}; a deleted topic loses both. Request handlers
 * look partitions up here.
 *
 * <p>Thread-safety: the map is concurrent; {@link #onChange} runs on the metadata store's notification
 * thread, one change at a time (it is synchronized against {@link #startup}).
 */
public final class PartitionManager implements MetadataListener {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionManager.class);

    private final int nodeId;
    private final LogManager logManager;
    private final Supplier<BrokerConfig> brokerConfig;
    private final BooleanSupplier fenced;
    private final ReplicaFollowing following;
    private final Consumer<TopicPartition> stateChanged;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    /** Set at controlled shutdown: no partition is served as leader any more. */
    private volatile boolean leadingStopped;

    /** A single node's partitions: never fenced, nothing to follow, nobody to tell. */
    public PartitionManager(int nodeId, LogManager logManager, BrokerConfig brokerConfig) {
        this(nodeId, logManager, () -> brokerConfig, () -> false, ReplicaFollowing.NONE, tp -> { });
    }

    /**
     * @param brokerConfig the effective broker configuration (dynamic topic defaults change with it)
     * @param fenced       whether this broker is cut off from the cluster (leaders then stop moving high watermarks)
     * @param following    the replica fetchers
     * @param stateChanged told after a hosted partition's state changed or a leader append (wakes requests
     *                     waiting on it)
     */
    public PartitionManager(int nodeId, LogManager logManager, Supplier<BrokerConfig> brokerConfig, BooleanSupplier fenced,
                            ReplicaFollowing following, Consumer<TopicPartition> stateChanged) {
        this.nodeId = nodeId;
        this.logManager = logManager;
        this.brokerConfig = brokerConfig;
        this.fenced = fenced;
        this.following = following;
        this.stateChanged = stateChanged;
    }

    /** Creates the partitions of the image this broker starts with. */
    public synchronized void startup(MetadataImage image) {
        apply(null, image);
    }

    @Override
    public synchronized void onChange(MetadataImage previous, MetadataImage current) {
        apply(previous, current);
    }

    private void apply(MetadataImage previous, MetadataImage current) {
        // 1. Partitions this broker no longer hosts, and those whose leadership changes: fetchers let go first.
        Set<TopicPartition> removed = new HashSet<>();
        Set<TopicPartition> roleChanged = new HashSet<>();
        for (Partition hosted : partitions.values()) {
            TopicImage topic = current.topic(hosted.topicPartition().topic());
            PartitionState now = topic == null || !topic.id().equals(hosted.topicId()) ? null
                    : topic.partition(hosted.topicPartition().partition());
            if (now == null || !now.replicas().contains(nodeId)) {
                removed.add(hosted.topicPartition());
            } else if (now.leader() != hosted.state().leader() || now.leaderEpoch() != hosted.leaderEpoch()) {
                roleChanged.add(hosted.topicPartition());
            }
        }
        if (!removed.isEmpty() || !roleChanged.isEmpty()) {
            Set<TopicPartition> stopping = new HashSet<>(removed);
            stopping.addAll(roleChanged);
            following.stopFollowing(stopping);
        }
        for (TopicPartition tp : removed) {
            if (partitions.remove(tp) != null) {
                logManager.deleteLog(tp);
                LOG.info("Deleted replica {}: its topic is gone or its replicas no longer include broker {}", tp, nodeId);
                stateChanged.accept(tp);
            }
        }
        // 2. New and changed partitions.
        List<Partition> followed = new ArrayList<>();
        BrokerConfig brokerConfig = this.brokerConfig.get();
        for (TopicImage topic : current.topics()) {
            TopicConfig config = TopicConfig.resolve(topic.configs(), brokerConfig);
            for (PartitionState state : topic.partitions()) {
                if (!state.replicas().contains(nodeId)) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(topic.name(), state.partition());
                Partition existing = partitions.get(tp);
                Partition partition;
                if (existing == null) {
                    PartitionLog log = logManager.getOrCreateLog(tp, LogConfigs.from(config));
                    partition = new Partition(tp, topic.id(), nodeId, log, state, config, fenced, stateChanged);
                    partitions.put(tp, partition);
                } else {
                    partition = existing;
                    if (existing.config() != config && !existing.config().overrides().equals(config.overrides())) {
                        existing.log().updateConfig(LogConfigs.from(config));
                    }
                    if (!existing.state().equals(state) || existing.config() != config) {
                        existing.update(state, config);
                        stateChanged.accept(tp);
                    }
                }
                if (state.hasLeader() && state.leader() != nodeId) {
                    followed.add(partition);
                }
            }
        }
        // 3. The fetchers follow the partitions led elsewhere, from their current leaders.
        following.follow(followed);
    }

    /** The partition, or null when this broker does not host it. */
    public Partition partition(String topic, int partition) {
        return partitions.get(new TopicPartition(topic, partition));
    }

    /**
     * The partition, which must exist in {@code image} and be led here: UNKNOWN_TOPIC_OR_PARTITION when
     * the cluster has no such partition, NOT_LEADER_OR_FOLLOWER when another broker leads it.
     */
    public Partition leaderPartition(MetadataImage image, String topic, int partition) {
        TopicImage topicImage = image.topic(topic);
        if (topicImage == null || topicImage.partition(partition) == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition: "
                    + topic + "-" + partition);
        }
        Partition hosted = partitions.get(new TopicPartition(topic, partition));
        if (hosted == null || !hosted.isLeader() || leadingStopped) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + nodeId + " is not the leader of "
                    + topic + "-" + partition);
        }
        return hosted;
    }

    /**
     * Controlled shutdown: from now on every request for a partition answers NOT_LEADER_OR_FOLLOWER, so
     * clients look for the new leaders while this broker hands its leaderships over.
     */
    public void stopLeading() {
        leadingStopped = true;
    }

    public Collection<Partition> partitions() {
        return partitions.values();
    }
}
