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
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final BrokerConfig brokerConfig;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();

    public PartitionManager(int nodeId, LogManager logManager, BrokerConfig brokerConfig) {
        this.nodeId = nodeId;
        this.logManager = logManager;
        this.brokerConfig = brokerConfig;
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
        if (previous != null) {
            for (TopicImage old : previous.topics()) {
                TopicImage now = current.topic(old.name());
                if (now == null || !now.id().equals(old.id())) {
                    removeTopic(old);
                }
            }
        }
        for (TopicImage topic : current.topics()) {
            TopicConfig config = TopicConfig.resolve(topic.configs(), brokerConfig);
            for (PartitionState state : topic.partitions()) {
                if (!state.replicas().contains(nodeId)) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(topic.name(), state.partition());
                Partition existing = partitions.get(tp);
                if (existing == null) {
                    PartitionLog log = logManager.getOrCreateLog(tp, LogConfigs.from(config));
                    partitions.put(tp, new Partition(tp, topic.id(), nodeId, log, state, config));
                } else {
                    if (existing.config() != config && !existing.config().overrides().equals(config.overrides())) {
                        existing.log().updateConfig(LogConfigs.from(config));
                    }
                    existing.update(state, config);
                }
            }
        }
    }

    private void removeTopic(TopicImage topic) {
        for (PartitionState state : topic.partitions()) {
            TopicPartition tp = new TopicPartition(topic.name(), state.partition());
            if (partitions.remove(tp) != null) {
                logManager.deleteLog(tp);
                LOG.info("Deleted partition {} of removed topic {}", tp, topic.id());
            }
        }
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
        if (hosted == null || !hosted.isLeader()) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "Broker " + nodeId + " is not the leader of "
                    + topic + "-" + partition);
        }
        return hosted;
    }

    public Collection<Partition> partitions() {
        return partitions.values();
    }
}
