package io.krill.controller.local;

import io.krill.controller.metadata.ApiError;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.ElectionType;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.NewTopic;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.controller.metadata.TopicPartitionKey;
import io.krill.controller.topic.TopicRequests;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.nio.ByteBuffer;

/**
 * Cluster metadata of a single-node cluster: this broker is the only broker, the controller, and the
 * leader (epoch 0) and sole in-sync replica of every partition. Topics persist in a {@link MetadataFile}
 * under the first log dir, so they survive restarts.
 *
 * <p>Thread-safe: changes are serialised on this object's monitor, the image is published through a
 * volatile field, listeners are told in order while the monitor is held.
 */
public final class LocalMetadataStore implements MetadataStore {
    private final int nodeId;
    private final MetadataFile file;
    private final List<MetadataListener> listeners = new CopyOnWriteArrayList<>();
    private volatile MetadataImage image;
    private long nextProducerId;
    private final java.util.Random random = new java.util.Random(); // placement (one broker: no choice)

    /**
     * Opens (or creates) the registry in {@code metadataDir}. {@code self} is this broker as clients reach
     * it; {@code clusterId} is used only when the registry is new and may be null (one is generated).
     */
    public LocalMetadataStore(Path metadataDir, BrokerInfo self, String clusterId) {
        this.nodeId = self.nodeId();
        this.file = new MetadataFile(metadataDir);
        MetadataFile.Contents contents = file.read(nodeId);
        if (contents == null) {
            String id = clusterId != null ? clusterId : newClusterId();
            file.write(id, List.of(), 0, Map.of());
            contents = new MetadataFile.Contents(id, List.of(), 0, Map.of());
        } else if (clusterId != null && !clusterId.equals(contents.clusterId())) {
            throw new IllegalStateException("cluster.id " + clusterId + " does not match " + contents.clusterId()
                    + " stored in " + file.path());
        }
        this.image = new MetadataImage(contents.clusterId(), nodeId, List.of(self), contents.topics(),
                contents.entityConfigs());
        this.nextProducerId = contents.nextProducerId();
    }

    static PartitionState soleReplica(int partition, int nodeId) {
        return new PartitionState(partition, nodeId, 0, List.of(nodeId), List.of(nodeId), 0);
    }

    /** A random cluster id in Kafka's form: 22 characters of URL-safe base64 of a UUID. */
    static String newClusterId() {
        UUID uuid = UUID.randomUUID();
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    @Override
    public MetadataImage image() {
        return image;
    }

    @Override
    public void addListener(MetadataListener listener) {
        listeners.add(listener);
    }

    @Override
    public synchronized long allocateProducerIds(int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive: " + count);
        }
        long first = nextProducerId;
        file.write(image.clusterId(), image.topics(), first + count, image.allEntityConfigs());
        nextProducerId = first + count;
        return first;
    }

    @Override
    public synchronized void registerBroker(BrokerInfo broker) {
        if (broker.nodeId() != nodeId) {
            throw new IllegalArgumentException("a single-node cluster has only broker " + nodeId);
        }
        MetadataImage current = image;
        MetadataImage next = current.withBrokers(nodeId, List.of(broker));
        image = next;
        for (MetadataListener listener : listeners) {
            listener.onChange(current, next);
        }
    }

    @Override
    public synchronized TopicImage createTopic(NewTopic spec) {
        MetadataImage current = image;
        int count = checkNewTopic(current, spec);
        List<PartitionState> partitions = new ArrayList<>(count);
        for (int p = 0; p < count; p++) {
            partitions.add(soleReplica(p, nodeId));
        }
        TopicImage topic = new TopicImage(spec.name(), newTopicId(current), partitions, spec.configs(), spec.internal());
        publish(current.withTopic(topic));
        return topic;
    }

    @Override
    public void checkCreateTopic(NewTopic spec) {
        checkNewTopic(image, spec);
    }

    /**
     * Validates {@code spec} against {@code current} as the ZooKeeper store does ({@link TopicRequests});
     * returns its partition count. One broker: every replica list can only be this broker.
     */
    private int checkNewTopic(MetadataImage current, NewTopic spec) {
        return TopicRequests.planNewTopic(current, spec, 1, 1, random).partitionCount();
    }

    @Override
    public synchronized void deleteTopic(String name) {
        MetadataImage current = image;
        if (current.topic(name) == null) {
            throw unknownTopic(name);
        }
        publish(current.withoutTopic(name));
    }

    @Override
    public synchronized TopicImage createPartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        MetadataImage current = image;
        TopicImage topic = checkNewPartitions(current, name, totalCount, newAssignments);
        List<PartitionState> partitions = new ArrayList<>(topic.partitions());
        for (int p = topic.partitionCount(); p < totalCount; p++) {
            partitions.add(soleReplica(p, nodeId));
        }
        TopicImage grown = new TopicImage(name, topic.id(), partitions, topic.configs(), topic.internal());
        publish(current.withTopic(grown));
        return grown;
    }

    @Override
    public void checkCreatePartitions(String name, int totalCount, List<List<Integer>> newAssignments) {
        checkNewPartitions(image, name, totalCount, newAssignments);
    }

    /** Validates growing {@code name} to {@code totalCount} partitions as the ZooKeeper store does; returns the topic. */
    private TopicImage checkNewPartitions(MetadataImage current, String name, int totalCount,
                                          List<List<Integer>> newAssignments) {
        TopicRequests.planNewPartitions(current, name, totalCount, newAssignments, random);
        return current.topic(name);
    }

    /** Applied at once, on the calling thread: the returned future is complete. */
    @Override
    public CompletableFuture<TopicImage> alterTopicConfigsAsync(String name, UnaryOperator<Map<String, String>> change) {
        try {
            return CompletableFuture.completedFuture(alterTopicConfigs(name, change));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized TopicImage alterTopicConfigs(String name, UnaryOperator<Map<String, String>> change) {
        MetadataImage current = image;
        TopicImage topic = current.topic(name);
        if (topic == null) {
            throw unknownTopic(name);
        }
        Map<String, String> overrides = Map.copyOf(change.apply(topic.configs()));
        if (overrides.equals(topic.configs())) {
            return topic;
        }
        TopicImage altered = new TopicImage(name, topic.id(), topic.partitions(), overrides, topic.internal());
        publish(current.withTopic(altered));
        return altered;
    }

    /** Applied at once, on the calling thread: the returned future is complete. */
    @Override
    public CompletableFuture<Map<String, String>> updateEntityConfigsAsync(String entity,
                                                                        UnaryOperator<Map<String, String>> change) {
        try {
            return CompletableFuture.completedFuture(updateEntityConfigs(entity, change));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized Map<String, String> updateEntityConfigs(String entity, UnaryOperator<Map<String, String>> change) {
        Map<String, String> current = image.entityConfigs(entity);
        Map<String, String> next = Map.copyOf(change.apply(current));
        if (!next.equals(current)) {
            publish(image.withEntityConfigs(entity, next));
        }
        return next;
    }

    @Override
    public synchronized PartitionState alterPartition(String topicName, PartitionState expected, PartitionState proposed) {
        TopicImage topic = image.topic(topicName);
        PartitionState current = topic == null ? null : topic.partition(expected.partition());
        if (current == null) {
            throw unknownTopic(topicName);
        }
        if (current.partitionEpoch() != expected.partitionEpoch()) {
            throw new ApiException(Errors.INVALID_UPDATE_VERSION, "partition epoch " + expected.partitionEpoch()
                    + " is stale, current is " + current.partitionEpoch());
        }
        // One node: the only replica is always the leader and the whole ISR. Nothing to change.
        return current;
    }

    /** The only replica always leads: every existing partition is ELECTION_NOT_NEEDED. */
    @Override
    public Map<TopicPartitionKey, ApiError> electLeaders(ElectionType type, Collection<TopicPartitionKey> partitions) {
        MetadataImage current = image;
        Map<TopicPartitionKey, ApiError> results = new LinkedHashMap<>();
        for (TopicPartitionKey key : partitions) {
            results.put(key, exists(current, key) ? new ApiError(Errors.ELECTION_NOT_NEEDED,
                    "Broker " + nodeId + " already leads " + key + ", its only replica.") : unknownPartition(key));
        }
        return results;
    }

    /**
     * One node has one possible assignment: a valid target (this broker alone) is already in place and
     * succeeds at once; there is never a reassignment to cancel.
     */
    @Override
    public Map<TopicPartitionKey, ApiError> alterPartitionReassignments(
            Map<TopicPartitionKey, Optional<List<Integer>>> targets, boolean allowReplicationFactorChange) {
        MetadataImage current = image;
        Map<TopicPartitionKey, ApiError> results = new LinkedHashMap<>();
        targets.forEach((key, target) -> {
            if (!exists(current, key)) {
                results.put(key, unknownPartition(key));
            } else if (target.isEmpty()) {
                results.put(key, new ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS,
                        "No reassignment of " + key + " is in progress."));
            } else {
                try {
                    TopicRequests.checkAssignment(target.get(), TopicRequests.liveBrokers(current));
                    results.put(key, ApiError.NONE);
                } catch (ApiException e) {
                    results.put(key, ApiError.of(e));
                }
            }
        });
        return results;
    }

    private static boolean exists(MetadataImage current, TopicPartitionKey key) {
        TopicImage topic = current.topic(key.topic());
        return topic != null && topic.partition(key.partition()) != null;
    }

    private static ApiError unknownPartition(TopicPartitionKey key) {
        return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition: "
                + key);
    }

    @Override
    public void close() {
        listeners.clear();
    }

    private void publish(MetadataImage next) {
        file.write(next.clusterId(), next.topics(), nextProducerId, next.allEntityConfigs());
        MetadataImage previous = image;
        image = next;
        for (MetadataListener listener : listeners) {
            listener.onChange(previous, next);
        }
    }

    private static UUID newTopicId(MetadataImage current) {
        UUID id;
        do {
            id = UUID.randomUUID();
        } while (current.topic(id) != null);
        return id;
    }

    private static ApiException unknownTopic(String name) {
        return new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic: " + name);
    }
}
